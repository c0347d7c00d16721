"""Running one script in its own subprocess through the probe.

This module never imports torch: the parent process stays light and only reads
the probe's JSON.
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["DEVICES", "ScriptRun", "child_env", "run_script"]

#: Values accepted by ``--device`` (exported as ``PJRT_DEVICE``).
DEVICES: tuple[str, ...] = ("CPU", "CUDA", "TPU", "NEURON")
#: Seconds between SIGTERM (the probe saves its figures) and SIGKILL on timeout.
KILL_GRACE_S = 5.0
_TAIL_LINES = 25
#: A longer output or traceback line is cut in the middle (a script may print megabytes).
MAX_LINE_CHARS = 2000
_PR_SET_CHILD_SUBREAPER = 36  # prctl option (Linux >= 3.4)
_subreaper: bool | None = None
#: Probe statuses meaning the script itself ran to its end (returned, raised or exited).
_FINISHED = frozenset({"ok", "exception", "exit"})
_PACKAGE_ROOT = str(Path(__file__).resolve().parent.parent)
#: Environment variables removed from the child: they would hide graph compilations.
HIDING_VARIABLES: tuple[str, ...] = ("XLA_PERSISTENT_CACHE_PATH", "XLA_USE_EAGER_DEBUG_MODE")


@dataclass
class ScriptRun:
    """The result of running one script.

    Attributes:
        script: the script path as given.
        outcome: ``"ok"``, ``"error"`` (non-zero exit, uncaught exception, crash) or
            ``"timeout"`` (killed after the time limit).
        exit_code: the process exit status (negative: killed by that signal), or None
            when it was killed on timeout.
        wall_s: wall time of the whole subprocess in seconds (interpreter start and
            torch_xla import included).
        probe: the probe's JSON document (figures, per-step snapshots), or None when
            the probe wrote nothing (e.g. killed hard).
        traceback_tail: the last lines of the script's traceback, or of its stderr
            when there is no traceback; empty for a clean run.
        stdout_tail: the last lines of the script's stdout.
        stderr_tail: the last lines of the script's stderr.
        notes: remarks on the run (e.g. stopped during a slow shutdown).
    """

    script: str
    outcome: str
    exit_code: int | None
    wall_s: float
    probe: dict[str, Any] | None = None
    traceback_tail: list[str] = field(default_factory=list)
    stdout_tail: list[str] = field(default_factory=list)
    stderr_tail: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-serializable dict of every field."""
        return {
            "script": self.script,
            "outcome": self.outcome,
            "exit_code": self.exit_code,
            "wall_s": round(self.wall_s, 3),
            "traceback_tail": self.traceback_tail,
            "stdout_tail": self.stdout_tail,
            "stderr_tail": self.stderr_tail,
            "notes": self.notes,
            "probe": self.probe,
        }


def child_env(
    base: Mapping[str, str],
    device: str | None = None,
    steps: int | None = None,
) -> dict[str, str]:
    """Build the environment of a probed script.

    ``PJRT_DEVICE`` is *device* when given, else the inherited value, else ``CPU``.
    ``XLA_CHECK_STEPS`` is set when *steps* is given.  The persistent compilation
    cache and eager debug mode variables are removed, since they hide graph
    compilations.  The package root is put on ``PYTHONPATH`` so the probe imports.
    """
    env = dict(base)
    for name in HIDING_VARIABLES:
        env.pop(name, None)
    if device:
        env["PJRT_DEVICE"] = device
    elif not env.get("PJRT_DEVICE"):
        env["PJRT_DEVICE"] = "CPU"
    if steps is not None:
        env["XLA_CHECK_STEPS"] = str(steps)
    path = env.get("PYTHONPATH", "")
    parts = [p for p in path.split(os.pathsep) if p]
    if _PACKAGE_ROOT not in parts:
        env["PYTHONPATH"] = os.pathsep.join([_PACKAGE_ROOT, *parts])
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


def clip_line(line: str, limit: int = MAX_LINE_CHARS) -> str:
    """``line`` cut in the middle to at most about ``limit`` characters."""
    if len(line) <= limit:
        return line
    half = limit // 2
    return f"{line[:half]} [... {len(line) - 2 * half} characters cut ...] {line[-half:]}"


def _tail(path: Path, lines: int = _TAIL_LINES) -> list[str]:
    try:
        with path.open("rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - 64 * 1024))
            text = fh.read().decode("utf-8", errors="replace")
    except OSError:
        return []
    return [clip_line(line) for line in text.rstrip("\n").splitlines()[-lines:]] \
        if text.strip() else []


def _stderr_traceback(stderr_tail: list[str]) -> list[str]:
    """The last traceback in *stderr_tail*, or the whole tail when there is none."""
    for index in range(len(stderr_tail) - 1, -1, -1):
        if stderr_tail[index].startswith("Traceback (most recent call last)"):
            return stderr_tail[index:]
    return stderr_tail


def _become_subreaper() -> bool:
    """Make this process adopt the orphans of its descendants (Linux only).

    A script may move a child out of its process group (``setsid``, a daemon);
    killing the group then misses it, and without this it would be adopted by
    init and run on. As a subreaper, this process adopts it instead, and
    :func:`_stop_strays` finds it among its own children.
    """
    global _subreaper
    if _subreaper is None:
        _subreaper = False
        if sys.platform.startswith("linux"):
            try:
                libc = ctypes.CDLL(None, use_errno=True)
                _subreaper = libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
            except (OSError, AttributeError):
                _subreaper = False
    return _subreaper


def _processes() -> dict[int, tuple[str, int, int]]:
    """``pid -> (state, parent pid, process group)`` from /proc (empty without /proc)."""
    out: dict[int, tuple[str, int, int]] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return out
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                data = fh.read()
        except OSError:
            continue
        fields = data.rsplit(b")", 1)[-1].split()  # the command name may hold spaces
        try:
            out[int(name)] = (fields[0].decode(), int(fields[1]), int(fields[2]))
        except (IndexError, ValueError):
            continue
    return out


def _live_group_members(pgid: int) -> int:
    """How many live (non-zombie) processes are in process group ``pgid``."""
    return sum(1 for state, _, group in _processes().values() if group == pgid and state != "Z")


def _wait_group_gone(pgid: int, wait_s: float = 2.0) -> None:
    """Wait (at most ``wait_s``) until process group ``pgid`` has no live member."""
    deadline = time.monotonic() + wait_s
    while _live_group_members(pgid) and time.monotonic() < deadline:
        time.sleep(0.01)


def _stop_strays(known: set[int], wait_s: float = 5.0) -> int:
    """Kill and reap the children this process adopted from a script's tree.

    ``known`` are the children it had before the script started (and the
    script itself). Returns how many were still alive.
    """
    me = os.getpid()
    alive: set[int] = set()
    deadline = time.monotonic() + wait_s
    while True:
        strays = {pid: state for pid, (state, parent, _) in _processes().items()
                  if parent == me and pid not in known}
        if not strays or time.monotonic() > deadline:
            break
        for pid, state in strays.items():
            if state != "Z":
                alive.add(pid)
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        time.sleep(0.02)
        for pid in strays:
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass
    return len(alive)


def _kill_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _stop(proc: subprocess.Popen[bytes], grace_s: float) -> None:
    """SIGTERM the process group (the probe saves its figures), then SIGKILL it."""
    _kill_group(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        pass
    _kill_group(proc.pid, signal.SIGKILL)
    proc.wait()


def run_script(
    script: Path,
    env: Mapping[str, str],
    timeout_s: float,
    workdir: Path | None = None,
    grace_s: float = KILL_GRACE_S,
    explain: bool = False,
) -> ScriptRun:
    """Run *script* under the probe in a new process group and collect its figures.

    Whatever the script started is stopped when it ends, times out or is
    interrupted: its process group is killed, and on Linux this process is a
    child subreaper (``prctl(PR_SET_CHILD_SUBREAPER)``), so that processes the
    script moved out of the group (``setsid``, daemons) are adopted, killed and
    reaped too. A run that left processes behind gets a note saying how many.
    The adoption assumes no other thread of this process starts children
    meanwhile (the command line does not). Output and traceback lines longer
    than :data:`MAX_LINE_CHARS` are cut in the middle.

    Args:
        script: the Python script, run unmodified as ``__main__``.
        env: the child's environment (see :func:`child_env`).
        timeout_s: seconds before the whole process group is stopped (outcome
            ``"timeout"``).
        workdir: folder for the probe's JSON and the captured output (a temporary
            folder when None).
        grace_s: seconds between SIGTERM and SIGKILL on timeout.
        explain: run the probe with ``--explain`` (the origin of every compilation,
            execution and transfer lands in ``probe["explain"]``).

    Returns:
        The :class:`ScriptRun`; a crash or a timeout is a result, not an exception.

    Raises:
        KeyboardInterrupt: re-raised after the process group has been killed.
        OSError: the interpreter cannot be started.
    """
    with tempfile.TemporaryDirectory(prefix="perf_validation-", dir=workdir) as tmp:
        tmpdir = Path(tmp)
        out_json = tmpdir / "probe.json"
        stdout_path, stderr_path = tmpdir / "stdout.txt", tmpdir / "stderr.txt"
        command = [sys.executable, "-m", "perf_validation.probe",
                   *(["--explain"] if explain else []), str(script), str(out_json)]
        adopting = _become_subreaper()
        me = os.getpid()
        known = {pid for pid, (_, parent, _) in _processes().items() if parent == me} \
            if adopting else set()
        leftovers = strays = 0
        started = time.perf_counter()
        with stdout_path.open("wb") as out, stderr_path.open("wb") as err:
            proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                    env=dict(env), start_new_session=True)
            timed_out = False
            try:
                proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                timed_out = True
                _stop(proc, grace_s)
            except BaseException:
                _kill_group(proc.pid, signal.SIGKILL)
                proc.wait()
                raise
            finally:
                # Leave no stray child of the script behind: its process group, then
                # (as a subreaper) whatever left the group.
                if not timed_out:
                    leftovers = _live_group_members(proc.pid)
                _kill_group(proc.pid, signal.SIGKILL)
                if adopting:
                    _wait_group_gone(proc.pid)  # their orphans are adopted as they die
                    strays = _stop_strays(known | {proc.pid})
        wall_s = time.perf_counter() - started
        probe: dict[str, Any] | None = None
        try:
            probe = json.loads(out_json.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            probe = None
        stdout_tail, stderr_tail = _tail(stdout_path), _tail(stderr_path)
    exit_code = None if timed_out else proc.returncode
    notes: list[str] = []
    if leftovers or strays:
        notes.append(f"the script left {leftovers + strays} process(es) running "
                     f"({strays} outside its process group); they were killed")
    finished = probe is not None and probe.get("status") in _FINISHED
    if timed_out and finished:
        # The script itself returned in time; only interpreter/torch_xla shutdown was slow.
        assert probe is not None
        outcome = "ok" if probe.get("status") == "ok" else "error"
        notes.append(f"the script finished but the process did not exit within {timeout_s:g} s "
                     "(shutdown); it was stopped")
    elif timed_out:
        outcome = "timeout"
    elif exit_code == 0 and probe is not None and probe.get("status") == "ok":
        outcome = "ok"
    else:
        outcome = "error"
    traceback_tail: list[str] = []
    if outcome == "error":
        exception = (probe or {}).get("exception")
        if exception and exception.get("traceback"):
            traceback_tail = [clip_line(str(line))
                              for line in list(exception["traceback"])[-_TAIL_LINES:]]
        else:
            traceback_tail = _stderr_traceback(stderr_tail)
            if not traceback_tail:
                traceback_tail = [f"exit status {exit_code}"]
            if probe is None:
                traceback_tail.append("the probe wrote no figures (killed, or left through "
                                      "os._exit before its report)")
    return ScriptRun(
        script=str(script),
        outcome=outcome,
        exit_code=exit_code,
        wall_s=wall_s,
        probe=probe,
        traceback_tail=traceback_tail,
        stdout_tail=stdout_tail,
        stderr_tail=stderr_tail,
        notes=notes,
    )
