"""Which processes are alive, robust against pid reuse (pure Python, no Qt, no torch).

A process is named by ``pid:start`` where ``start`` is its start time in clock ticks since boot
(field 22 of ``/proc/PID/stat``): a pid the kernel hands to another program later has another start
time. Where ``/proc`` does not exist the start is 0 and only the pid is checked.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path


def _stat_fields(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rfind(")") + 2:].split()  # the command name may hold spaces and parentheses


def identity(pid: int) -> str:
    """``pid:start`` of a running process (``pid:0`` where the start time cannot be read)."""
    fields = _stat_fields(pid)
    return f"{pid}:{fields[19] if fields else 0}"


def state(pid: int) -> str:
    """The kernel's one-letter state (R, S, D, T stopped, t traced, Z zombie), '' when unknown/gone."""
    fields = _stat_fields(pid)
    return fields[0] if fields else ""


def alive(ident: str) -> bool:
    """Whether the process named by ``identity()`` still runs (a zombie does not)."""
    pid_text, _, start = ident.partition(":")
    try:
        pid = int(pid_text)
    except ValueError:
        return False
    fields = _stat_fields(pid)
    if fields is not None:
        return fields[0] not in ("Z", "X") and (start in ("", "0") or fields[19] == start)
    if Path("/proc/self/stat").exists():
        return False
    if os.name == "nt":  # os.kill(pid, 0) would send CTRL_C_EVENT there
        return _windows_alive(pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _windows_alive(pid: int) -> bool:
    import ctypes

    kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined]
    handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
    if not handle:
        return False
    code = ctypes.c_ulong()
    kernel32.GetExitCodeProcess(handle, ctypes.byref(code))
    kernel32.CloseHandle(handle)
    return code.value == 259  # STILL_ACTIVE


def host() -> str:
    return socket.gethostname()


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now (the OS picks it): the rendezvous of local ranks."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# --- process groups: Studio signals only the groups it created --------------------------------------------------
def shares_callers_group() -> bool:
    """Whether this process runs in a process group it does not lead: its caller's (a script that started it in
    the background, a desktop wrapper, a test harness). Its children then get groups of their own, so that nothing
    Studio signals reaches the caller; a process that leads its group (a shell's job, the queue's scheduler in its
    own session) keeps its children in it, so a signal to that group (``timeout``, a scheduler) still reaches them."""
    if not hasattr(os, "getpgrp"):  # pragma: no cover - Windows
        return False
    return os.getpgrp() != os.getpid()


def lead_own_group() -> None:
    """Make this process the leader of a new process group (a child of a process that shares its caller's group)."""
    try:
        os.setpgid(0, 0)
    except (AttributeError, OSError):  # pragma: no cover - Windows; a session leader already leads its group
        pass


def leads_own_group(pid: int) -> bool:
    """Whether ``pid`` leads its own process group (so that group is one Studio created for it)."""
    try:
        return os.getpgid(pid) == pid
    except (AttributeError, OSError):
        return False


def signal_group(pid: int, sig: int) -> bool:
    """Send ``sig`` to the group ``pid`` leads (its grandchildren too); never to any other group. Whether it was
    sent."""
    if not leads_own_group(pid):
        return False
    try:
        os.killpg(pid, sig)
    except OSError:
        return False
    return True
