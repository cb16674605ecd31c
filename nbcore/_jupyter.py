"""A Jupyter Server extension installed with nbcore: kernels talk over encrypted sockets.

By default a kernel started by Jupyter Server listens on plain TCP ports of the machine, and
ipykernel warns at every start that what it sends "is susceptible to eavesdropping" by other
users of the machine. jupyter_client can give each kernel CurveZMQ keys instead
(``KernelManager.transport_encryption = "auto"``: keys when the kernelspec declares support,
as ipykernel's does). The wheel enables this extension for every ``jupyter lab`` or
``jupyter notebook`` of the environment it is installed in (a file in
``{prefix}/etc/jupyter/jupyter_server_config.d/``), so a student's plain ``jupyter lab`` has
encrypted kernel sockets and no warning. A ``transport_encryption`` the user configured is
left as it is.
"""


def _jupyter_server_extension_points():
    return [{"module": "nbcore._jupyter"}]


def _load_jupyter_server_extension(serverapp):
    settings = serverapp.config.KernelManager
    if "transport_encryption" not in settings:
        settings.transport_encryption = "auto"
        serverapp.kernel_manager.config.KernelManager.transport_encryption = "auto"
        serverapp.log.info("nbcore: kernels use CurveZMQ transport encryption")
