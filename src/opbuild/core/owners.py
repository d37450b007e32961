"""Owners read from disk or a shared tier, parsed as data: the pid and host in a temporary's name, in a
private build directory's name, in a build lease, in a checkpoint temporary.

Anyone who can write kernel_meta, ``$TMPDIR`` or the shared tier chooses these strings, and the one thing done
with a parsed pid is ``os.kill(pid, 0)``, which raises ``OverflowError`` for a number that does not fit a C
``long`` and acts on a process group for 0 and negative numbers. So every pid is a bounded decimal integer
matched by a strict pattern, every host a strict pattern, and anything else is "not ours": foreign debris
that callers ignore or move aside by age, never an exception.
"""

from __future__ import annotations

import os
import re

#: Linux's largest possible pid (``/proc/sys/kernel/pid_max`` cannot exceed 2**22); other systems stay below.
MAX_PID = 1 << 22
#: A pid as written by ``str(os.getpid())``: no sign, no leading zero, at most seven digits.
PID_PATTERN = r"[1-9][0-9]{0,6}"
#: A host as opbuild writes it into names (:func:`name_host`); the shared tier's owners add ``/<pid namespace>``.
HOST_PATTERN = r"[A-Za-z0-9_-]{1,64}"
_PID_RE = re.compile(PID_PATTERN)
_TMP_RE = re.compile(rf"\.tmp\.({HOST_PATTERN})\.({PID_PATTERN})\.([0-9a-f]{{8}})\.(.{{1,255}})", re.DOTALL)
_LEASE_RE = re.compile(rf"(.{{1,300}}):({PID_PATTERN}):([A-Za-z0-9_-]{{1,64}})", re.DOTALL)
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def name_host(nodename: str) -> str:
    """This host as it is written into file names: characters outside ``[A-Za-z0-9_-]`` become ``_`` and the
    result is cut to 64 characters, so that what we write always parses back (:data:`HOST_PATTERN`)."""
    return _UNSAFE.sub("_", nodename)[:64] or "host"


def parse_pid(text: object) -> int | None:
    """``text`` as a pid: a string of decimal digits matching :data:`PID_PATTERN` whose value is at most
    :data:`MAX_PID`; None for anything else (an int, a sign, spaces, 20 digits, Unicode digits)."""
    if not isinstance(text, str) or _PID_RE.fullmatch(text) is None:
        return None
    pid = int(text)
    return pid if pid <= MAX_PID else None


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid exists on this host. A pid outside ``1..MAX_PID`` is no process (it
    never reaches ``os.kill``, where 0 and negative values would address process groups)."""
    if type(pid) is not int or not 0 < pid <= MAX_PID:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's live process
        return True
    except (OverflowError, OSError):  # cannot be a process here
        return False
    return True


def dead_here(pid: int | None) -> bool:
    """Whether ``pid`` (parsed by this module; None when malformed) names a process of this host that is gone
    and is not this one. A malformed pid is never "dead": its owner is unknown, so only age can clear it."""
    return pid is not None and pid != os.getpid() and not pid_alive(pid)


def parse_tmp_name(name: str) -> tuple[str, int, str] | None:
    """(host, pid, final name) of a temporary named ``.tmp.<host>.<pid>.<8 hex>.<final name>`` (cache/fsio.py
    ``tmp_name``), or None if ``name`` is not exactly that."""
    m = _TMP_RE.fullmatch(name)
    if m is None:
        return None
    pid = parse_pid(m.group(2))
    return None if pid is None else (m.group(1), pid, m.group(4))


def parse_lease_owner(owner: object) -> tuple[str, int, str] | None:
    """(host, pid, token) of a shared-tier lease owner ``<host>:<pid>:<token>`` (cache/shared/tier.py), or
    None for anything else: lease values are written by whoever can write the tier, and are not signed."""
    if not isinstance(owner, str):
        return None
    m = _LEASE_RE.fullmatch(owner)
    if m is None:
        return None
    pid = parse_pid(m.group(2))
    return None if pid is None else (m.group(1), pid, m.group(3))


def parse_private_dir(name: str, prefix: str) -> int | None:
    """The pid of a private build directory named ``<prefix><pid>-<anything>`` (builder/stores.py), or None."""
    if not name.startswith(prefix):
        return None
    head, sep, _ = name[len(prefix):].partition("-")
    return parse_pid(head) if sep else None


__all__ = ["HOST_PATTERN", "MAX_PID", "PID_PATTERN", "dead_here", "name_host", "parse_lease_owner", "parse_pid",
           "parse_private_dir", "parse_tmp_name", "pid_alive"]
