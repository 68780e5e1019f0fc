"""Nothing the tools start outlives them: a guardian process per tool process.

The first time a tool starts a program (or makes a scratch directory) it also starts a small
guardian that holds the read end of a pipe. The tool tells it which process groups and
directories are live; when the tool ends in any way, SIGKILL included, the pipe closes, and
the guardian kills those process groups and removes those directories before it exits.
Every program runs in its own process group (run_process), so its children go with it.

A program could run before its group's registration reaches the pipe (the tool killed right
after the start), so every program also carries this guardian's mark in its environment
(program_env); at the end the guardian also kills the group of every process bearing it.

A program can also leave descendants that bear no mark and are in no group of its own: a daemon
that forks twice, calls setsid() and clears its environment. The tool process is therefore a
child subreaper (Linux): such orphans are adopted by the tool instead of init, where they can be
found; when a program ends, whatever it left (its group, its session, the processes that hold its
output pipes, the descendants seen while it ran) is killed (_Leftovers), so nothing the run started
outlives it and no pipe the tool reads is held open after it.

Every program also gets TMPDIR, TMP and TEMP in a private scratch directory of the tool (scratch_env),
removed by the guardian: a build killed halfway leaves no compiler temporaries (cc*.s, tmpxft*) in
the shared temporary directory.

Run as a script (python -I -S reaper.py) it is the guardian; only the standard library is used.
"""
from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable

MARK_VARIABLE = "CCTK_REAPER_MARK"
TEMP_VARIABLES = ("TMPDIR", "TMP", "TEMP")
PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36

_lock = threading.Lock()
# Held while a program is started and registered (start_program), and while _Leftovers picks what
# to kill: a child forked but not yet registered holds copies of the tool's descriptors, among
# them the pipes of a program that just ended, and would be taken for that program's leftover.
_spawn_lock = threading.RLock()
_guardian: subprocess.Popen | None = None
_owner_pid = 0
_mark = ""
_scratch = ""          # this process's private temporary directory for its programs
_scratch_pid = 0


def _prctl(option: int, arg: int) -> bool:
    """prctl(2) where there is one (Linux); False elsewhere or when it fails."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes
        return ctypes.CDLL(None, use_errno=True).prctl(option, arg, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def die_with_parent(parent_pid: int) -> None:
    """For a worker process (a pool's initializer): be killed when the process that started it
    dies, however it dies (SIGKILL included), instead of living on as an orphan.

    PR_SET_PDEATHSIG is the kernel's: nothing has to run in the dying parent, and no registration
    can come too late. (It fires when the parent *thread* that started the worker ends: a pool
    must be started by a thread that outlives it, as a `with` block around the pool does.) The
    parent may have died before the prctl: then the worker is already an orphan, and ends now."""
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent_pid:
        os._exit(1)


def _after_fork_in_child() -> None:
    """A forked child (a pool worker) must not keep its parent's guardian pipe open (the guardian
    would not see the parent die while the child lives); it starts a guardian of its own when
    it needs one. The lock may have been held by another thread of the parent at the fork."""
    global _lock, _guardian, _leftovers
    _lock = threading.Lock()
    if _guardian is not None and _guardian.stdin is not None:
        try:    # the pipe's end becomes /dev/null: the file object may close it later, harmlessly
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, _guardian.stdin.fileno())
            os.close(null)
        except (OSError, ValueError):
            pass
    _guardian = None
    _leftovers = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def start() -> None:
    """Start this process's guardian now (before the first program, so that registering the
    program right after it starts costs only a pipe write)."""
    global _guardian, _owner_pid, _mark
    with _spawn_lock, _lock:
        if _guardian is not None and _owner_pid == os.getpid():
            return
        _mark = f"{os.getpid()}-{os.urandom(8).hex()}"
        try:   # a forked child gets a guardian of its own
            _guardian = subprocess.Popen([sys.executable, "-I", "-S", os.path.abspath(__file__), _mark],
                                         stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL, start_new_session=True)
        except OSError:
            _guardian = None
            return
        _owner_pid = os.getpid()
        # orphans of our programs are adopted by us, not by init: _Leftovers finds them
        _prctl(PR_SET_CHILD_SUBREAPER, 1)


def program_env(env: dict[str, str] | None) -> dict[str, str]:
    """The environment a program starts with: env (default: ours) plus this guardian's mark. (Its
    temporary directory stays the user's: a program run under a tool computes what it computes
    without one. Compilers get scratch_env.)"""
    start()
    full = dict(os.environ if env is None else env)
    if _mark:
        full[MARK_VARIABLE] = _mark
    return full


def scratch_dir() -> str:
    """This process's private temporary directory for the programs and compilers it starts
    (mode 0700, made on first use), removed by the guardian when the process ends, however it
    ends; "" where none could be made."""
    global _scratch, _scratch_pid
    with _lock:
        if _scratch_pid == os.getpid() and os.path.isdir(_scratch):
            return _scratch
        try:
            _scratch = tempfile.mkdtemp(prefix="cctk-tmp-")
        except OSError:
            return ""
        _scratch_pid = os.getpid()
    watch_dir(_scratch)
    return _scratch


def scratch_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for a compiler the tools start: env (default: ours) with TMPDIR, TMP and
    TEMP in scratch_dir(): a compiler killed mid-build
    (cc*.s, cc*.o, nvcc's tmpxft*) leaves its temporaries where the guardian removes them, not in
    the shared temporary directory. A temporary directory the caller chose (one other than ours)
    is kept."""
    full = dict(os.environ if env is None else env)
    scratch = scratch_dir()
    if scratch:
        for name in TEMP_VARIABLES:
            if full.get(name) == os.environ.get(name):   # inherited, not chosen for this program
                full[name] = scratch
    return full


def _send(line: str) -> None:
    start()
    with _lock:
        if _guardian is None:
            return
        try:
            _guardian.stdin.write((line + "\n").encode())
            _guardian.stdin.flush()
        except (OSError, ValueError):
            pass


def start_program(popen: Callable[[], subprocess.Popen]) -> subprocess.Popen:
    """popen() (a Popen with start_new_session=True), registered with watch_group before any
    program's leftovers are looked for: until then the new child is told apart from nothing else.
    (Killed as a leftover and reaped here, its Popen would read status 0 and no output.)"""
    start()
    with _spawn_lock:
        proc = popen()
        watch_group(proc.pid)
    return proc


def watch_group(pgid: int) -> None:
    """A program started in a group (and session) of its own, pgid being its pid: killed with us;
    what it leaves behind is killed when it ends (_Leftovers)."""
    _send(f"+g {pgid}")
    _monitor().watch(pgid)


def unwatch_group(pgid: int) -> None:
    """The program of group pgid has ended (and was waited for): its leftovers go now."""
    _monitor().finish(pgid)
    _send(f"-g {pgid}")


def watch_dir(path: str | Path) -> None:
    _send(f"+d {os.path.abspath(path)}")


def unwatch_dir(path: str | Path) -> None:
    _send(f"-d {os.path.abspath(path)}")


@contextmanager
def temp_dir(prefix: str = "cctk-"):
    """A scratch directory that is removed when the block ends, or by the guardian when the
    tool is killed before that."""
    path = tempfile.mkdtemp(prefix=prefix)
    watch_dir(path)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
        unwatch_dir(path)


# ---------------------------------------------------------------- what a program leaves behind

def _stat(pid: int) -> tuple[str, int, int, int, int] | None:
    """(state, parent, group, session, start time) of a process; None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return fields[0].decode(), int(fields[1]), int(fields[2]), int(fields[3]), int(fields[19])
    except (OSError, IndexError, ValueError):
        return None


def _children(pid: int) -> set[int]:
    """The children of a process (of every thread of it: an orphan is adopted by one of them)."""
    found: set[int] = set()
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                found.update(int(c) for c in f.read().split())
        except FileNotFoundError:    # a kernel without CONFIG_PROC_CHILDREN: ask every process
            return {c for c in _all_pids() if (_stat(c) or ("", 0))[1] == pid}
        except (OSError, ValueError):
            pass
    return found


def _all_pids() -> list[int]:
    try:
        return [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []


def _subtree(pid: int) -> list[int]:
    """The descendants of a process (a snapshot)."""
    out, todo = [], [pid]
    while todo and len(out) < 100000:
        for c in _children(todo.pop()):
            out.append(c)
            todo.append(c)
    return out


def _pipes(pid: int, fds=None) -> set[str]:
    """The pipes ('pipe:[inode]') a process holds open: on fds, or on any descriptor."""
    found: set[str] = set()
    if fds is None:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            return found
    for fd in fds:
        try:
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if link.startswith("pipe:"):
            found.add(link)
    return found


class _Program:
    """A program started in a session of its own, and what ties a process to it: its session and
    group (its pid), its standard pipes (those the tool reads: not the tool's own), and the
    descendants seen while it ran (pid and start time: a pid alone may be reused)."""

    def __init__(self, pid: int):
        self.pid = pid
        self.closed = False
        self.pidfd: int | None = None
        try:        # readable once the program ends; it cannot be reaped before we open it
            self.pidfd = os.pidfd_open(pid)
        except (AttributeError, OSError):
            pass
        self.pipes = _pipes(pid, (0, 1, 2)) - _pipes(os.getpid(), (0, 1, 2))
        self.seen: set[tuple[int, int]] = set()
        self.note_descendants()

    def note_descendants(self) -> None:
        for d in _subtree(self.pid):
            st = _stat(d)
            if st is not None:
                self.seen.add((d, st[4]))

    def ended(self) -> bool:
        if self.closed:
            return True
        if self.pidfd is not None:
            try:
                return bool(select.select([self.pidfd], [], [], 0)[0])
            except (OSError, ValueError):
                return True
        st = _stat(self.pid)
        return st is None or st[0] in "ZX"

    def close(self) -> None:
        self.closed = True
        if self.pidfd is not None:
            try:
                os.close(self.pidfd)
            except OSError:
                pass

    def owns(self, pid: int, st: tuple[str, int, int, int, int], lineage: set[int]) -> bool:
        """Whether an orphan the tool adopted comes from this program."""
        _state, _parent, group, session, started = st
        return (session in lineage or group in lineage or (pid, started) in self.seen
                or bool(self.pipes and _pipes(pid) & self.pipes))


class _Leftovers:
    """Kills what each program leaves behind when it ends, and never anything else.

    A thread waits for the watched programs to end (pidfds); when one does, its process group is
    killed, and so is every orphan the tool adopted (it is a subreaper) that the program owns
    (_Program.owns), with all of its descendants. A daemon that holds the program's output pipe
    thus dies as the program ends: the tool reading that pipe gets its end of file. Only children
    we can prove are a program's are killed and reaped: a child the tool started itself never
    is (it is in the tool's session, or in a session of its own that no program made)."""

    TICK = 0.05

    def __init__(self):
        self.cond = threading.Condition()
        self.programs: dict[int, _Program] = {}
        self.killed: dict[int, tuple[int, float]] = {}   # pid -> (start time, when): to reap once ours
        threading.Thread(target=self._loop, name="cctk-leftovers", daemon=True).start()

    def watch(self, pid: int) -> None:
        prog = _Program(pid)
        with self.cond:
            self.programs[pid] = prog
            self.cond.notify()

    def finish(self, pid: int) -> None:
        with self.cond:
            prog = self.programs.pop(pid, None)
        if prog is not None:
            self._clear(prog)

    def _loop(self) -> None:
        while True:
            with self.cond:
                while not self.programs and not self.killed:
                    self.cond.wait()
                progs = list(self.programs.values())
            fds = [p.pidfd for p in progs if p.pidfd is not None and not p.closed]
            try:
                select.select(fds, [], [], self.TICK)
            except (OSError, ValueError):    # a program finished (its pidfd closed) meanwhile
                time.sleep(self.TICK)
            for p in progs:
                if p.ended():
                    with self.cond:
                        mine = self.programs.get(p.pid) is p and self.programs.pop(p.pid)
                    if mine:
                        self._clear(p)
                else:
                    p.note_descendants()
            self._reap()

    def _clear(self, prog: _Program) -> None:
        prog.close()
        try:
            os.killpg(prog.pid, signal.SIGKILL)
        except OSError:
            pass
        me, own_session = os.getpid(), os.getsid(0)
        guardian = _guardian.pid if _guardian is not None else 0
        lineage = {prog.pid}       # sessions and groups of what we kill: their orphans are the program's too
        for _ in range(50):        # a killed process's own orphans are adopted next: a few rounds
            if not self._kill_round(prog, lineage, me, own_session, guardian):
                break
            time.sleep(0.005)
            self._reap()

    def _kill_round(self, prog: _Program, lineage: set[int], me: int, own_session: int, guardian: int) -> bool:
        """Kill the orphans of `prog` among our children (and their descendants); whether any were.
        No program is being started meanwhile (_spawn_lock): each child is a registered program,
        the tool's own, or an orphan."""
        with _spawn_lock:
            with self.cond:
                others = set(self.programs)
            victims = []
            for c in _children(me):
                st = _stat(c)
                # (the program itself is its Popen's to reap: reaped here, its Popen would read status 0)
                if c == guardian or c == prog.pid or c in others or st is None or st[3] == own_session:
                    continue
                if prog.owns(c, st, lineage):
                    victims.append(c)
            for v in victims:
                for d in [v, *_subtree(v)]:
                    st = _stat(d)
                    if st is None:
                        continue
                    lineage.update((d, st[2], st[3]) if st[3] != own_session else (d,))
                    try:
                        os.kill(d, signal.SIGKILL)
                    except OSError:
                        continue
                    with self.cond:
                        self.killed[d] = (st[4], time.monotonic())
                        self.cond.notify()
            return bool(victims)

    def _reap(self) -> None:
        """Reap the processes we killed once they are our children (adopted), each checked by its
        start time: never a pid that now names another process, never a child of ours we did
        not kill (its Popen waits for it)."""
        me = os.getpid()
        with self.cond:
            killed = list(self.killed.items())
        for pid, (started, when) in killed:
            st = _stat(pid)
            done = st is None or st[4] != started or time.monotonic() - when > 30
            if not done and st[1] == me:
                try:
                    done = os.waitpid(pid, os.WNOHANG)[0] != 0
                except ChildProcessError:
                    done = True
            if done:
                with self.cond:
                    self.killed.pop(pid, None)


_leftovers: _Leftovers | None = None
_leftovers_pid = 0


def _monitor() -> _Leftovers:
    global _leftovers, _leftovers_pid
    with _lock:
        if _leftovers is None or _leftovers_pid != os.getpid():
            _leftovers, _leftovers_pid = _Leftovers(), os.getpid()
        return _leftovers


def _marked_groups(mark: str) -> set[int]:
    """Process groups of the processes whose environment bears mark."""
    needle = f"{MARK_VARIABLE}={mark}".encode()
    found: set[int] = set()
    try:
        pids = [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return found
    for pid in pids:
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if needle in f.read().split(b"\0"):
                    found.add(os.getpgid(pid))
        except OSError:
            pass
    return found


def _serve(mark: str) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)     # a Ctrl-C meant for the tool
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    groups: set[int] = set()
    dirs: set[str] = set()
    for raw in sys.stdin.buffer:
        op, _, arg = raw.decode(errors="replace").rstrip("\n").partition(" ")
        if op == "+g" and arg.isdigit():
            groups.add(int(arg))
        elif op == "-g" and arg.isdigit():
            groups.discard(int(arg))
        elif op == "+d":
            dirs.add(arg)
        elif op == "-d":
            dirs.discard(arg)
    if mark:
        groups |= _marked_groups(mark)
    groups.discard(os.getpgid(0))
    for g in groups:   # the tool is gone: so are its programs
        try:
            os.killpg(g, signal.SIGKILL)
        except OSError:
            pass
    for d in dirs:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    _serve(sys.argv[1] if len(sys.argv) > 1 else "")
