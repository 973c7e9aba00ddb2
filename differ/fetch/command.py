"""Fetch a page through a program of the user's (a headless browser, a script): what it prints is the page.

The program runs without a shell, its standard input closed, in a process group of its own, so that when it
overruns its time or its size, or once it has exited, whatever it started (a browser's helpers) is stopped
with it. Should differ itself be killed outright (SIGKILL, the OOM killer), a small process of its own, the
reaper, stops the programs it left running.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence

from differ.errors import FetchError, StoppedError
from differ.options import cut, one_line

_running: set[subprocess.Popen[bytes]] = set()  # the programs running now, for `stop_all`
_stopped: set[int] = set()  # the process ids `stop_all` stopped
_lock = threading.Lock()
CHUNK = 65536
KEEP_STDERR = 8192  # the tail of what the program says on standard error, for the error line
EXIT_GRACE = 1.0  # seconds a program that closed its output is given to exit before it is stopped


def run_command(
    argv: Sequence[str], *, deadline: float, limit: int, env: Mapping[str, str] | None = None
) -> bytes:
    """What `argv` prints on standard output, at most `limit` bytes, within `deadline` seconds; a FetchError
    naming what went wrong (not found, a non-zero exit with its last line of standard error, too slow, too
    large) otherwise. `env`: its environment, when not differ's own."""
    name = argv[0]
    try:
        proc = subprocess.Popen(
            list(argv),
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except FileNotFoundError:
        raise FetchError(f"command {name!r} not found (not a file, nor on PATH)")
    except PermissionError:
        raise FetchError(f"command {name!r} cannot be run (not executable)")
    except OSError as exc:
        raise FetchError(f"command {name!r} could not start: {exc.strerror or exc}")
    with _lock:
        _running.add(proc)
    _reaper.started(proc.pid)
    out, err = bytearray(), bytearray()
    end = time.monotonic() + deadline
    try:
        _read(proc, out, err, end, limit, deadline)
        code = _exit_code(proc, end, deadline)
    finally:
        with _lock:
            _running.discard(proc)
            stopped = proc.pid in _stopped
            _stopped.discard(proc.pid)
        _stop(proc)
    if stopped:
        raise StoppedError(f"command {name!r} stopped: differ is stopping; checked again next time")
    if code != 0:
        said = _last_line(bytes(err))
        how = f"was killed by signal {-code}" if code < 0 else f"exited with {code}"
        raise FetchError(f"command {name!r} {how}" + (f": {said}" if said else ""))
    return bytes(out)


# The variables through which programs (curl, wget, Python's urllib, Chromium on a server) are told a proxy,
# and those that name another or exceptions to it, in either case.
PROXY_VARIABLES = ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY")
OTHER_PROXY_VARIABLES = frozenset({"all_proxy", "ftp_proxy", "no_proxy"})


def proxy_environment(proxy: str) -> dict[str, str]:
    """differ's environment with `proxy` as the program's proxy for every address, as it is differ's: each
    proxy variable of the environment, `no_proxy`'s exceptions among them, gives way to it."""
    told = {name.lower() for name in PROXY_VARIABLES} | OTHER_PROXY_VARIABLES
    env = {name: value for name, value in os.environ.items() if name.lower() not in told}
    env.update(dict.fromkeys(PROXY_VARIABLES, proxy))
    return env


def _read(
    proc: subprocess.Popen[bytes],
    out: bytearray,
    err: bytearray,
    end: float,
    limit: int,
    deadline: float,
) -> None:
    """Read both of the program's outputs to their end, or until EXIT_GRACE after it exited (a helper it left
    running may hold them open), within the limits."""
    assert proc.stdout is not None and proc.stderr is not None
    exited_at: float | None = None
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ, out)
        selector.register(proc.stderr, selectors.EVENT_READ, err)
        while selector.get_map():
            now = time.monotonic()
            if now >= end:
                raise FetchError(f"command {_name(proc)!r} did not finish within {deadline:g}s; stopped")
            if exited_at is None and _exited(proc) is not None:
                exited_at = now
            if exited_at is not None and now - exited_at >= EXIT_GRACE:
                return
            for key, _ in selector.select(min(end - now, 0.25)):
                chunk = os.read(key.fd, CHUNK)
                if not chunk:
                    selector.unregister(key.fileobj)
                    continue
                kept: bytearray = key.data
                kept += chunk
                if kept is out and len(out) > limit:
                    raise FetchError(
                        f"command {_name(proc)!r} printed more than {limit:,} bytes (max_bytes); stopped"
                    )
                if kept is err and len(err) > 2 * KEEP_STDERR:
                    del err[:-KEEP_STDERR]


def _exited(proc: subprocess.Popen[bytes]) -> int | None:
    """The program's exit status if it has exited (a signal's number negated), without reaping it: its
    process group stays its own until `_stop` has stopped the rest."""
    status = os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT | os.WNOHANG)
    if status is None:
        return None
    return status.si_status if status.si_code == os.CLD_EXITED else -status.si_status


def _exit_code(proc: subprocess.Popen[bytes], end: float, deadline: float) -> int:
    """The program's exit status; it is stopped if it lingers after closing its output."""
    give_up = min(end, time.monotonic() + EXIT_GRACE)
    while (code := _exited(proc)) is None:
        if time.monotonic() >= give_up:
            if give_up >= end:
                raise FetchError(f"command {_name(proc)!r} did not finish within {deadline:g}s; stopped")
            raise FetchError(f"command {_name(proc)!r} closed its output but did not exit; stopped")
        time.sleep(0.01)
    return code


def stop_all() -> int:
    """Kill every program running now, with what each started (differ is stopping: a check waiting on a browser
    ends at once, its page checked again next time); how many there were."""
    # held while killing: a program is reaped only once out of `_running`, so its group is its own
    with _lock:
        running = list(_running)
        _stopped.update(proc.pid for proc in running)
        for proc in running:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
    return len(running)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Kill the program's process group (whatever it started and left running), then reap it (its group's
    id is no one else's until then, so the reaper forgets it first)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    _reaper.ended(proc.pid)
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()
    proc.wait()


# The reaper: reads "+GROUP" as a program starts and "-GROUP" once differ has stopped it; at the end of its
# input, which comes when differ exits or is killed, it kills the groups still running. It is in a session of
# its own, so a Ctrl-C meant for differ does not end it first.
REAPER = """
import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_IGN)
groups = set()
for line in sys.stdin:
    if line[:1] == "+":
        groups.add(int(line[1:]))
    elif line[:1] == "-":
        groups.discard(int(line[1:]))
for group in groups:
    try:
        os.killpg(group, signal.SIGKILL)
    except OSError:
        pass
"""


class Reaper:
    """differ's side of the reaper, started with the first program: each program's group is told to it as the
    program starts and once differ has stopped it. A reaper that cannot be started or told leaves the
    programs to differ, as before (a line it cannot write is not a fetch's failure)."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[bytes] | None = None
        self.lock = threading.Lock()

    def started(self, group: int) -> None:
        self._tell(f"+{group}")

    def ended(self, group: int) -> None:
        self._tell(f"-{group}")

    def _tell(self, line: str) -> None:
        with self.lock, contextlib.suppress(OSError, ValueError):
            if self.proc is None or self.proc.poll() is not None:
                if line[0] == "-":
                    return  # a new reaper never knew the group
                self.proc = subprocess.Popen(
                    [sys.executable, "-I", "-S", "-c", REAPER],  # no site, no environment: it needs neither
                    stdin=subprocess.PIPE,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    start_new_session=True,
                )
            assert self.proc.stdin is not None
            self.proc.stdin.write(f"{line}\n".encode())
            self.proc.stdin.flush()

    def close(self) -> None:
        """differ is exiting: the reaper, told of no group left running, ends with it."""
        with self.lock:
            if self.proc is not None and self.proc.stdin is not None:
                with contextlib.suppress(OSError):
                    self.proc.stdin.close()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.proc.wait(timeout=5)


_reaper = Reaper()
atexit.register(_reaper.close)


def _name(proc: subprocess.Popen[bytes]) -> str:
    """The program a process runs, as its command named it."""
    args = proc.args
    return str(args[0]) if isinstance(args, list | tuple) and args else str(args)


def _last_line(text: bytes) -> str:
    """The last line a program wrote on standard error, as one short line."""
    lines = [line.strip() for line in text.decode("utf-8", errors="replace").splitlines() if line.strip()]
    return cut(one_line(lines[-1]), 200) if lines else ""
