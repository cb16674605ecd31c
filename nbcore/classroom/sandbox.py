"""Run a student's code in a throw-away bubblewrap sandbox, and talk to it over pipes.

Each submission gets its own sandbox (``bwrap``, Debian package ``bubblewrap``):

* a **read-only** view of the system folders (/usr, /etc, ...), of the Python installation, of
  the virtual environment and of the ``nbcore`` package, and nothing else of the machine: not
  the book, not the submissions, not the grader's work folder, not the home folders;
* a private, size-limited ``/tmp``, home and ``/dev/shm`` (where multiprocessing keeps its
  locks: chapter 10's Dask cluster starts worker processes), a new ``/proc`` and ``/dev``;
* **no network** (``--unshare-net``), its own PID, IPC and UTS namespaces
  (``--unshare-pid --die-with-parent --new-session``): every process the student's code starts
  dies with the sandbox, daemons included;
* a **cleared environment** (``--clearenv``; only PATH, HOME, locale and thread settings);
* **resource limits** (``prlimit``): address space, number of processes, CPU seconds, file
  size, open files. When the grader runs as root, the code runs as an unprivileged user of
  its own (uid 61000 + the job's slot) with no capabilities, so the process limit applies
  (the kernel exempts root from it).

The sandboxed program is :mod:`nbcore.classroom.driver`; the grader sends it cells and reads
back answer values as JSON lines on its standard streams, each line capped in size. There is
no file that both sides touch.
"""

import json
import os
import queue
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import nbcore
from nbcore.answers import MAX_ANSWER_BYTES
from nbcore.classroom.confine import Cgroup, keyring_filter

__all__ = ["Limits", "Sandbox", "SandboxError", "sandbox_problem", "sandbox_command"]

SANDBOX_HOME = "/home/student"
SYSTEM_DIRS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc"]
MAX_LINE = MAX_ANSWER_BYTES + 4096
FIRST_UID = 61000
MPL_CACHE = "/run/nbcore/matplotlib-cache"
# bwrap itself starts with this environment, not the grader's: with --unshare-user the
# sandbox's process 1 is bwrap, whose /proc/1/environ the student's code can read
BWRAP_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
QUEUED_REPLIES = 4  # replies read ahead of the grader's requests, at most
JOIN = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"'


class SandboxError(RuntimeError):
    """The sandbox stopped, ran past its time, or said something that is not an answer."""

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind  # "timeout", "dead", "overflow", "protocol", "start"


@dataclass
class Limits:
    """Resource limits of one sandbox."""

    memory_bytes: int = 4 * 1024**3
    processes: int = 256
    cpus: float = 1.0  # cores its processes share (a cgroup CPU quota, where one can be set)
    cpu_seconds: int = 900
    file_bytes: int = 64 * 1024**2
    tmp_bytes: int = 256 * 1024**2
    open_files: int = 512


def _python_dirs():
    """Folders the sandboxed Python needs: its installation, the venv, the nbcore package."""
    package = Path(nbcore.__file__).resolve().parent
    dirs = {Path(sys.base_prefix).resolve(), Path(sys.prefix).resolve()}
    dirs.add(Path(os.path.realpath(sys.executable)).parent.parent)
    if not any(package.is_relative_to(d) for d in dirs):
        dirs.add(package)
    return sorted(dirs)


def sandbox_command(program, slot=0, limits=None, seccomp_fd=None):
    """The bwrap command line that runs ``program`` (a list) in a sandbox.

    ``seccomp_fd``: an open file descriptor of a seccomp program (:func:`keyring_filter`).
    """
    limits = limits or Limits()
    command = ["bwrap", "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts"]
    if seccomp_fd is not None:
        command += ["--seccomp", str(seccomp_fd)]
    command += ["--unshare-cgroup-try", "--die-with-parent", "--new-session", "--clearenv"]
    made = set()

    def parents(path):
        for parent in reversed(Path(path).parents):
            text = str(parent)
            if text != "/" and text not in made:
                made.add(text)
                command.extend(["--perms", "0755", "--dir", text])

    for system in SYSTEM_DIRS:
        if os.path.islink(system):
            command += ["--symlink", os.readlink(system), system]
        elif os.path.isdir(system):
            command += ["--ro-bind", system, system]
            made.add(system)
    command += ["--proc", "/proc", "--dev", "/dev"]
    # a private, writable /dev/shm: multiprocessing's locks and semaphores are files there, and
    # without them no worker process starts (chapter 10's Dask cluster: "Nanny failed to start")
    command += ["--size", str(limits.tmp_bytes), "--perms", "1777", "--tmpfs", "/dev/shm"]
    # the private /tmp and home first: a Python installed below /tmp (a checkout there) is then
    # bound on top of the private /tmp instead of being hidden by it
    command += ["--size", str(limits.tmp_bytes), "--perms", "1777", "--tmpfs", "/tmp"]
    made.add("/tmp")
    parents(SANDBOX_HOME)
    command += ["--size", str(limits.tmp_bytes), "--perms", "0777", "--tmpfs", SANDBOX_HOME]
    made.add(SANDBOX_HOME)
    for folder in _python_dirs():
        if any(str(folder).startswith(s + "/") for s in SYSTEM_DIRS if s in made):
            continue
        parents(folder)
        command += ["--ro-bind", str(folder), str(folder)]
    cache = _matplotlib_cache()
    if cache is not None:  # its font list, read-only: building one takes a second per sandbox
        parents(MPL_CACHE)
        command += ["--ro-bind", str(cache), MPL_CACHE]
    command += ["--chdir", SANDBOX_HOME, "--hostname", "sandbox"]
    env = {
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "HOME": SANDBOX_HOME,
        "LANG": "C.UTF-8",
        "MPLBACKEND": "Agg",
        "MPLCONFIGDIR": "/tmp/matplotlib",
        "IPYTHONDIR": "/tmp/ipython",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONNOUSERSITE": "1",
    }
    for name, value in env.items():
        command += ["--setenv", name, value]
    if os.geteuid() == 0:
        uid = str(FIRST_UID + slot)
        command += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
        command += ["--", "/usr/bin/setpriv", "--reuid", uid, "--regid", uid, "--clear-groups"]
        command += ["--inh-caps=-all", "--bounding-set=-all"]
    else:
        command += ["--unshare-user", "--cap-drop", "ALL", "--"]
    command += [
        "/usr/bin/prlimit",
        f"--as={limits.memory_bytes}",
        f"--nproc={limits.processes}",
        f"--cpu={limits.cpu_seconds}",
        f"--fsize={limits.file_bytes}",
        f"--nofile={limits.open_files}",
        "--core=0",
        "--",
    ]
    return command + list(program)


def _matplotlib_cache():
    """The grader's Matplotlib cache folder when it holds a font list, else None."""
    try:
        import matplotlib

        folder = Path(matplotlib.get_cachedir())
    except Exception:  # pragma: no cover - no usable Matplotlib
        return None
    return folder if any(folder.glob("fontlist-*.json")) else None


def driver_program():
    return [sys.executable, "-I", "-m", "nbcore.classroom.driver"]


_PROBLEM = {}


def _filter_file():
    """A file descriptor holding the keyring filter (read once by bwrap), or None."""
    program = keyring_filter()
    if program is None:
        return None
    fd = os.memfd_create("nbcore-seccomp")
    os.write(fd, program)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def sandbox_problem():
    """Why student code cannot be sandboxed here (a sentence), or None when it can."""
    if "result" in _PROBLEM:
        return _PROBLEM["result"]
    problem = None
    if not sys.platform.startswith("linux"):
        problem = f"bubblewrap needs Linux; this is {sys.platform}"
    elif shutil.which("bwrap") is None:
        problem = "bwrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    elif not (os.path.exists("/usr/bin/prlimit") and os.path.exists("/usr/bin/setpriv")):
        problem = "prlimit and setpriv (util-linux) are needed in /usr/bin"
    else:
        program = [sys.executable, "-I", "-c", "import nbcore, IPython"]
        seccomp = _filter_file()
        fds = () if seccomp is None else (seccomp,)
        probe = sandbox_command(program, seccomp_fd=seccomp)
        try:
            done = subprocess.run(
                probe, capture_output=True, text=True, timeout=60, env=BWRAP_ENV, pass_fds=fds
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            problem = f"bwrap could not start ({error})"
        else:
            if done.returncode != 0:
                problem = f"bwrap could not start a sandbox: {done.stderr.strip()[-300:]}"
        finally:
            if seccomp is not None:
                os.close(seccomp)
    _PROBLEM["result"] = problem
    return problem


class Sandbox:
    """One running sandbox with the driver in it; a context manager that kills it on exit.

    Every wait is bounded by the clock: a request that cannot be written (the sandbox stopped
    reading) or is not answered in time raises a timeout, and at most QUEUED_REPLIES replies
    are read ahead (code that answers the grader's requests in advance cannot fill memory).
    """

    def __init__(self, slot=0, limits=None, program=None, command=None):
        self.limits = limits or Limits()
        self.confined = command is None
        self.slot = slot
        self.command = command or [*(program or driver_program())]
        self.process = None
        self.cgroup = None
        self.closed = threading.Event()
        self.replies = queue.Queue(maxsize=QUEUED_REPLIES)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def start(self, timeout=120):
        """Start the sandbox and wait for the driver's "ready"."""
        command, fds = self.command, ()
        if self.confined:
            seccomp = _filter_file()
            fds = () if seccomp is None else (seccomp,)
            command = sandbox_command(self.command, self.slot, self.limits, seccomp)
            try:
                self.cgroup = Cgroup(
                    self.limits.memory_bytes, self.limits.processes, self.limits.cpus
                )
                command = ["/bin/sh", "-c", JOIN, "sh", *self.cgroup.procs, "--", *command]
            except OSError:  # no cgroups here: the per-process limits still hold
                self.cgroup = None
        try:
            self.process = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                close_fds=True,
                pass_fds=fds,
                env=BWRAP_ENV if self.confined else None,
                cwd="/" if self.confined else None,
            )
        finally:
            for fd in fds:
                os.close(fd)
        os.set_blocking(self.process.stdin.fileno(), False)
        threading.Thread(target=self._read, daemon=True).start()
        reply = self._reply(time.monotonic() + timeout, "start")
        if not reply.get("ready"):
            raise SandboxError("start", f"the sandbox did not start: {reply.get('fatal', reply)}")

    def _put(self, item):
        while not self.closed.is_set():
            try:
                self.replies.put(item, timeout=0.2)
                return True
            except queue.Full:
                continue
        return False

    def _read(self):
        stream = self.process.stdout
        while True:
            try:
                line = stream.readline(MAX_LINE)
            except (OSError, ValueError):
                line = b""
            if not line:
                self._put(("dead", None))
                return
            if not line.endswith(b"\n"):
                self._put(("overflow", None))
                return
            if not self._put(("line", line)):
                return

    def _reply(self, deadline, when):
        try:
            kind, line = self.replies.get(timeout=max(deadline - time.monotonic(), 0.01))
        except queue.Empty:
            raise SandboxError("timeout", "no reply in time") from None
        if kind == "dead":
            self.replies.put_nowait((kind, line))  # the reader has stopped: there is room
            raise SandboxError("dead" if when != "start" else "start", "the sandbox stopped")
        if kind == "overflow":
            self.replies.put_nowait((kind, line))
            raise SandboxError("overflow", "a reply larger than the limit")
        try:
            reply = json.loads(line)
        except ValueError:
            raise SandboxError("protocol", "a reply that is not JSON") from None
        if not isinstance(reply, dict):
            raise SandboxError("protocol", "a reply that is not a JSON object")
        return reply

    def _write(self, data, deadline):
        """Write ``data`` to the sandbox's input, giving up at ``deadline``."""
        fd = self.process.stdin.fileno()
        view = memoryview(data)
        while view:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise SandboxError("timeout", "the sandbox stopped reading its requests")
            _, writable, _ = select.select([], [fd], [], remaining)
            if not writable:
                continue
            try:
                view = view[os.write(fd, view) :]
            except BlockingIOError:
                continue
            except OSError:
                raise SandboxError("dead", "the sandbox stopped") from None

    def request(self, message, timeout):
        """Send one request and return its reply (a dict) within ``timeout`` seconds in all."""
        if self.process is None or self.process.poll() is not None:
            raise SandboxError("dead", "the sandbox stopped")
        deadline = time.monotonic() + timeout
        self._write((json.dumps(message) + "\n").encode(), deadline)
        return self._reply(deadline, "request")

    def close(self):
        """Kill the sandbox and everything in it, and remove its cgroup."""
        self.closed.set()
        if self.process is None:
            return
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        for stream in (self.process.stdin, self.process.stdout):
            try:
                stream.close()
            except OSError:
                pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover - the kernel did not reap it
            time.sleep(0.1)
        self.process = None
        if self.cgroup is not None:
            self.cgroup.remove()
            self.cgroup = None
