"""What bounds a sandbox as a whole: a memory and pids cgroup, and a seccomp filter.

``prlimit`` limits each process of a sandbox on its own (address space, CPU time); a student's
code can start many. Where the host lets the grader make cgroups, each sandbox gets its own:

* cgroup v1 (separate ``memory`` and ``pids`` hierarchies, each mounted under
  /sys/fs/cgroup): ``memory.limit_in_bytes`` (and ``memory.memsw.limit_in_bytes``, so that
  swap does not lift it) and ``pids.max``;
* cgroup v2 (one unified hierarchy): ``memory.max``, ``memory.swap.max`` and ``pids.max``, in
  a child of the grader's own cgroup whose parent delegates the ``memory`` and ``pids``
  controllers.

The memory cgroup counts all the sandbox's memory: every process, the files in its private
``/tmp`` and home (tmpfs pages), and the kernel memory of its inodes and directory entries,
so empty files cannot take memory that nothing counts. Where no cgroup can be made (no
writable hierarchy: a container without delegation, a non-root grader on cgroup v1),
:func:`cgroup_problem` says why and the limits that still hold are per process: ``prlimit``'s
address space, processes per uid (as root, each sandbox runs as a uid of its own), CPU
seconds, file size and open files, and the size of each tmpfs.

The seccomp filter makes the kernel keyring calls (``add_key``, ``keyctl``,
``request_key``) fail with EPERM: keys belong to a uid and outlive the processes that made
them, so a key left by one submission could be read by the next one run as the same uid.
"""

import itertools
import os
import platform
import struct
import threading
import time
from pathlib import Path

__all__ = ["Cgroup", "cgroup_problem", "keyring_filter"]

# --------------------------------------------------------------------------- seccomp

# (audit architecture, system call numbers of add_key, request_key, keyctl)
_KEYRING_CALLS = {
    "x86_64": [
        (0xC000003E, [248, 249, 250] + [0x40000000 + n for n in (248, 249, 250)]),  # + x32
        (0x40000003, [286, 287, 288]),  # i386 calls on a 64-bit kernel
    ],
    "aarch64": [(0xC00000B7, [217, 218, 219]), (0x40000028, [309, 310, 311])],
}
_LD_W_ABS, _JEQ_K, _RET_K = 0x20, 0x15, 0x06
_ALLOW, _EPERM = 0x7FFF0000, 0x00050000 | 1
_ARCH_OFFSET, _NR_OFFSET = 4, 0


def keyring_filter(machine=None):
    """The seccomp program (bytes of ``struct sock_filter``) that denies the keyring calls.

    None on a machine whose system call numbers are not listed here.
    """
    blocks = _KEYRING_CALLS.get(machine or platform.machine())
    if blocks is None:
        return None
    program = []  # (code, jump if true, jump if false, k); jumps are filled in below
    denies = []
    for arch, numbers in blocks:
        program.append((_LD_W_ABS, 0, 0, _ARCH_OFFSET))
        skip = len(program)
        program.append(None)  # jump over this block when the architecture differs
        program.append((_LD_W_ABS, 0, 0, _NR_OFFSET))
        for number in numbers:
            denies.append(len(program))
            program.append((_JEQ_K, None, 0, number))
        program.append((_RET_K, 0, 0, _ALLOW))
        program[skip] = (_JEQ_K, 0, len(program) - skip - 1, arch)
    program.append((_RET_K, 0, 0, _ALLOW))
    deny = len(program)
    program.append((_RET_K, 0, 0, _EPERM))
    for index in denies:
        code, _, jf, k = program[index]
        program[index] = (code, deny - index - 1, jf, k)
    return b"".join(struct.pack("=HBBI", *instruction) for instruction in program)


# --------------------------------------------------------------------------- cgroups

_COUNTER = itertools.count()
CPU_PERIOD_US = 100_000  # the period of a cgroup's CPU quota


def _own_cgroups():
    """{controller or "": path of the grader's cgroup in that hierarchy} from /proc/self."""
    found = {}
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            found[controller] = path
    return found


def _mounts():
    """{controller or "" (v2): mount point} of the cgroup hierarchies."""
    found = {}
    for line in Path("/proc/self/mounts").read_text().splitlines():
        fields = line.split()
        if len(fields) < 4:
            continue
        if fields[2] == "cgroup2":
            found.setdefault("", fields[1])
        elif fields[2] == "cgroup":
            for option in fields[3].split(","):
                if option in ("memory", "pids", "cpu"):
                    found.setdefault(option, fields[1])
    return found


def _v1_parents():
    own, mounts = _own_cgroups(), _mounts()
    if "memory" in mounts and "pids" in mounts:
        return {c: Path(mounts[c]) / own.get(c, "/").lstrip("/") for c in ("memory", "pids")}
    return None


def _v1_cpu_parent():
    own, mounts = _own_cgroups(), _mounts()
    if "cpu" not in mounts:
        return None
    return Path(mounts["cpu"]) / own.get("cpu", "/").lstrip("/")


def _delegated(parent):
    try:
        return set((parent / "cgroup.subtree_control").read_text().split())
    except OSError:
        return set()


def _v2_parent():
    own, mounts = _own_cgroups(), _mounts()
    if "" not in mounts or "" not in own:
        return None
    parent = Path(mounts[""]) / own[""].lstrip("/")
    return parent if {"memory", "pids"} <= _delegated(parent) else None


class Cgroup:
    """The memory, pids and CPU cgroup of one sandbox; ``procs`` are the files a process joins by.

    ``cpus``: the cores the sandbox's processes may use together (CPU bandwidth: a quota of
    ``cpus`` times the period, 0.1 s), so that busy loops forked by one submission, even in new
    sessions, cannot starve the submissions graded beside it. The CPU limit is set where the
    cpu controller can be written (cgroup v1, or v2 with cpu delegated); memory and pids are
    required.
    """

    def __init__(self, memory_bytes, processes, cpus=None):
        self.folders, self.procs = [], []
        name = f"nbcore-sandbox-{os.getpid()}-{next(_COUNTER)}"
        quota = None if cpus is None else max(1000, int(cpus * CPU_PERIOD_US))
        v1 = _v1_parents()
        if v1 is not None:
            settings = {
                "memory": {
                    "memory.limit_in_bytes": memory_bytes,
                    "memory.memsw.limit_in_bytes": memory_bytes,
                },
                "pids": {"pids.max": processes},
            }
            for controller, parent in v1.items():
                self._make(parent / name, settings[controller])
            cpu = _v1_cpu_parent()
            if quota is not None and cpu is not None:
                cpu_limits = {"cpu.cfs_period_us": CPU_PERIOD_US, "cpu.cfs_quota_us": quota}
                try:
                    self._make(cpu / name, cpu_limits)
                except OSError:  # not writable here: memory and pids still hold
                    pass
            return
        parent = _v2_parent()
        if parent is None:
            raise OSError("no cgroup hierarchy with the memory and pids controllers")
        limits = {"memory.max": memory_bytes, "memory.swap.max": 0, "pids.max": processes}
        if quota is not None and "cpu" in _delegated(parent):
            limits["cpu.max"] = f"{quota} {CPU_PERIOD_US}"
        self._make(parent / name, limits)

    def _make(self, folder, settings):
        try:
            folder.mkdir()
            self.folders.append(folder)
            for setting, value in settings.items():  # the optional ones are about swap
                target = folder / setting
                if target.exists() or "sw" not in setting:
                    target.write_text(str(value))
        except OSError:
            self.remove()
            raise
        self.procs.append(str(folder / "cgroup.procs"))

    def remove(self):
        """Remove the cgroups once their last processes are reaped, without waiting for it."""
        folders, self.folders = self.folders, []
        if not folders or _remove(folders, tries=1):
            return
        threading.Thread(target=_remove, args=(folders,), daemon=True).start()


def _remove(folders, tries=100):
    """Remove empty cgroup folders, trying every 0.1 s; whether all are gone."""
    for attempt in range(tries):
        for folder in list(folders):
            try:
                folder.rmdir()
                folders.remove(folder)
            except FileNotFoundError:
                folders.remove(folder)
            except OSError:
                pass
        if not folders:
            return True
        if attempt + 1 < tries:
            time.sleep(0.1)
    return False


_PROBLEM = {}


def cgroup_problem():
    """Why sandboxes cannot get a memory and pids cgroup here (a sentence), or None."""
    if "result" not in _PROBLEM:
        try:
            Cgroup(1024**3, 64).remove()
            _PROBLEM["result"] = None
        except OSError as error:
            _PROBLEM["result"] = f"no cgroup could be made ({error})"
    return _PROBLEM["result"]
