"""Run a student's code in a throw-away bubblewrap sandbox, and talk to it over pipes.

Each submission gets its own sandbox (``bwrap``, Debian package ``bubblewrap``):

* a **read-only** view of the system folders (/usr, /etc, ...), of the Python installation, of
  the virtual environment and of the ``nbcore`` package, and nothing else of the machine: not
  the book, not the submissions, not the grader's work folder, not the home folders;
* a private, size-limited ``/tmp`` and home, a new ``/proc`` and ``/dev``;
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

__all__ = ["Limits", "Sandbox", "SandboxError", "sandbox_problem", "sandbox_command"]

SANDBOX_HOME = "/home/student"
SYSTEM_DIRS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc"]
MAX_LINE = MAX_ANSWER_BYTES + 4096
FIRST_UID = 61000
MPL_CACHE = "/run/nbcore/matplotlib-cache"


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


def sandbox_command(program, slot=0, limits=None):
    """The bwrap command line that runs ``program`` (a list) in a sandbox."""
    limits = limits or Limits()
    command = ["bwrap", "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts"]
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
        probe = sandbox_command([sys.executable, "-I", "-c", "import nbcore, IPython"])
        try:
            done = subprocess.run(probe, capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired) as error:
            problem = f"bwrap could not start ({error})"
        else:
            if done.returncode != 0:
                problem = f"bwrap could not start a sandbox: {done.stderr.strip()[-300:]}"
    _PROBLEM["result"] = problem
    return problem


class Sandbox:
    """One running sandbox with the driver in it; a context manager that kills it on exit."""

    def __init__(self, slot=0, limits=None, program=None, command=None):
        self.command = command or sandbox_command(program or driver_program(), slot, limits)
        self.process = None
        self.replies = queue.Queue()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def start(self, timeout=120):
        """Start the sandbox and wait for the driver's "ready"."""
        self.process = subprocess.Popen(
            self.command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
        )
        threading.Thread(target=self._read, daemon=True).start()
        reply = self._reply(timeout, "start")
        if not reply.get("ready"):
            raise SandboxError("start", f"the sandbox did not start: {reply.get('fatal', reply)}")

    def _read(self):
        stream = self.process.stdout
        while True:
            try:
                line = stream.readline(MAX_LINE)
            except (OSError, ValueError):
                line = b""
            if not line:
                self.replies.put(("dead", None))
                return
            if not line.endswith(b"\n"):
                self.replies.put(("overflow", None))
                return
            self.replies.put(("line", line))

    def _reply(self, timeout, when):
        try:
            kind, line = self.replies.get(timeout=max(timeout, 0.01))
        except queue.Empty:
            raise SandboxError("timeout", f"no reply within {timeout:g} s") from None
        if kind == "dead":
            self.replies.put((kind, line))
            raise SandboxError("dead" if when != "start" else "start", "the sandbox stopped")
        if kind == "overflow":
            self.replies.put((kind, line))
            raise SandboxError("overflow", "a reply larger than the limit")
        try:
            reply = json.loads(line)
        except ValueError:
            raise SandboxError("protocol", "a reply that is not JSON") from None
        if not isinstance(reply, dict):
            raise SandboxError("protocol", "a reply that is not a JSON object")
        return reply

    def request(self, message, timeout):
        """Send one request and return its reply (a dict); SandboxError otherwise."""
        if self.process is None or self.process.poll() is not None:
            raise SandboxError("dead", "the sandbox stopped")
        try:
            self.process.stdin.write((json.dumps(message) + "\n").encode())
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise SandboxError("dead", "the sandbox stopped") from None
        return self._reply(timeout, "request")

    def close(self):
        """Kill the sandbox and everything in it."""
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
