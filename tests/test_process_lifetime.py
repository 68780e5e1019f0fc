"""Nothing a tool starts outlives it, and no input hangs it (instrument/reaper.py,
instrument/execution/local.py, indigo_bench/inputs.py): worker processes die with the tool,
a program's daemon dies with the program (and never holds the tool's pipe open), compilers keep
their temporaries in the tool's scratch, and a FIFO given as an input is refused by name.

Every wait polls with a generous deadline (a loaded 2-core machine), never a fixed sleep."""
from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from conftest import ROOT
from instrument.errors import UserError

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and prctl are Linux's")

DEADLINE = 60.0


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for whoever adopted it to reap it has ended)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _until(cond, deadline: float = DEADLINE) -> bool:
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.05)
    return cond()


def _kill(pids) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def _tool(script: str, tmp_path: Path, env: dict | None = None) -> subprocess.Popen:
    """A tool process running `script` with the project importable; its stdout is ours to read."""
    path = tmp_path / "tool.py"
    path.write_text(textwrap.dedent(script))
    e = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH", "")])),
             **(env or {}))
    return subprocess.Popen([sys.executable, str(path)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True, cwd=tmp_path, env=e)


def _returns(fn, deadline: float = 30.0, check: bool = True) -> dict:
    """fn() in a thread: {"value": what it returned} or {"error": what it raised}; a failure
    where it hangs ({} with check=False)."""
    out: dict = {}

    def call():
        try:
            out["value"] = fn()
        except BaseException as e:     # noqa: BLE001  (handed to the test)
            out["error"] = e
    t = threading.Thread(target=call, daemon=True)
    t.start()
    t.join(deadline)
    assert not (check and t.is_alive()), f"{fn} hangs"
    return out


# ---------------------------------------------------------------- 1. worker processes die with the tool

WORKERS = """
    import os, time
    from instrument.execution import Task
    from instrument.execution.local import LocalExecutor

    def slow(_built, i):
        os.write(1, f"worker {os.getpid()}\\n".encode())   # one write: the two workers' lines never mix
        time.sleep(600)

    if __name__ == "__main__":
        for _ in LocalExecutor(2, processes=True).run([Task(f"t{i}", slow, (i,)) for i in range(2)], "lifetime"):
            pass
"""


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_worker_processes_die_with_the_tool(tmp_path, sig):
    """indigo-bench sweep -j N runs its rows in these worker processes (LocalExecutor with
    processes): killed, the tool runs no cleanup, and the workers must not live on."""
    tool = _tool(WORKERS, tmp_path)
    workers = []
    try:
        for _ in range(2):
            line = tool.stdout.readline()
            assert line.startswith("worker"), line
            workers.append(int(line.split()[1]))
        assert all(_alive(w) for w in workers)
        tool.send_signal(sig)
        tool.wait(timeout=DEADLINE)
        assert _until(lambda: not any(_alive(w) for w in workers)), "a worker outlived the tool"
    finally:
        tool.kill()
        tool.wait()
        _kill(workers)


# ---------------------------------------------------------------- 2. a program's daemon dies with it

DAEMON = """
    import os, sys
    r, w = os.pipe()
    if os.fork() == 0:               # a daemon: forks twice, leaves the session, drops its environment
        os.setsid()
        if os.fork() == 0:
            os.close(r)
            os.write(w, str(os.getpid()).encode())
            os.close(w)
            os.execve("/bin/sleep", ["sleep", "1000"], {})   # still holding our stdout and stderr
        os._exit(0)
    os.close(w)
    pid = os.read(r, 64).decode()
    with open(sys.argv[1], "w") as f:
        f.write(pid)
    os.wait()
    print("daemon", pid, flush=True)
"""


def _run_daemon(tmp_path: Path):
    """Run DAEMON through run_process: (its result, or None where the call hangs; the daemon's pid)."""
    from instrument.backends.process import run_process
    script, pidfile = tmp_path / "daemon.py", tmp_path / "daemon.pid"
    script.write_text(textwrap.dedent(DAEMON))
    got = _returns(lambda: run_process([sys.executable, str(script), str(pidfile)], timeout=20), 40.0, check=False)
    return got.get("value"), int(pidfile.read_text())


def test_a_daemon_holding_the_output_pipe_dies_with_the_program(tmp_path):
    """The tool reads the program's output to its end: a daemon holding the pipe must not make it
    wait (before: until the timeout, then forever), nor live on."""
    t0 = time.monotonic()
    res, daemon = None, None
    try:
        res, daemon = _run_daemon(tmp_path)
        waited = time.monotonic() - t0
        assert res is not None, "run_process hangs on the pipe the daemon holds"
        assert not res.timed_out and res.returncode == 0, res
        assert waited < 15, f"run_process waited {waited:.1f} s for the daemon's end of its pipe"
        assert _until(lambda: not _alive(daemon)), "the daemon outlived the program"
    finally:
        if (tmp_path / "daemon.pid").is_file():
            _kill([int((tmp_path / "daemon.pid").read_text())])


def test_what_a_program_leaves_in_its_session_dies_with_it(tmp_path):
    """A child that left the program's process group (setpgid) but not its session, its output
    elsewhere: killed when the program ends, before the tool reads on."""
    from instrument.backends.process import run_process
    (tmp_path / "group.py").write_text(textwrap.dedent("""
        import os, subprocess
        p = subprocess.Popen(["sleep", "1000"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             process_group=0)
        print("child", p.pid, flush=True)
    """))
    res = run_process([sys.executable, str(tmp_path / "group.py")], timeout=60)
    child = int(res.stdout.split()[1])
    try:
        assert res.returncode == 0, res
        assert _until(lambda: not _alive(child)), "the program's child outlived it"
    finally:
        _kill([child])


def test_a_child_the_tool_started_itself_is_never_taken(tmp_path):
    """The tool adopts orphans (it is a subreaper) but kills and reaps only those a program left:
    a process it started itself, in a session of its own, keeps running and its Popen its status."""
    mine = subprocess.Popen(["sleep", "1000"], start_new_session=True)
    try:
        _res, daemon = _run_daemon(tmp_path)
        _kill([daemon])
        assert _until(lambda: not _alive(daemon))
        assert mine.poll() is None
    finally:
        mine.kill()
    assert mine.wait(timeout=DEADLINE) == -signal.SIGKILL




def test_programs_started_at_once_from_threads_keep_their_status_and_output():
    """A program forked while another's leftovers are looked for holds, until it execs, copies of
    the tool's descriptors (the pipes of the program that ended): it was taken for that program's
    leftover, killed and reaped, and its Popen read status 0 and no output (a mutant judged killed
    by a test that passed: the CI failure). Before the fix about 1 run in 100 here went wrong."""
    from concurrent.futures import ThreadPoolExecutor
    from instrument.backends.process import run_process

    def one(_):
        r = run_process(["sh", "-c", "echo x; exit 3"], timeout=DEADLINE)
        return r.returncode, r.stdout
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(one, range(600)))
    assert [r for r in results if r != (3, "x\n")] == []


# ---------------------------------------------------------------- 3. compilers' temporaries: in our scratch

FAKE_COMPILER = """#!/bin/sh
# a compiler that leaves a temporary in $TMPDIR, then says where (in that order: the test reads the
# record as the sign the temporary exists), then waits to be killed mid-build
: > "$TMPDIR/ccFAKE.s"
echo "$TMPDIR" > "$1.tmp" && mv "$1.tmp" "$1"
exec sleep 1000
"""


def test_a_killed_build_leaves_nothing_in_the_shared_temporary_directory(tmp_path):
    shared = tmp_path / "shared-tmp"
    shared.mkdir()
    compiler = tmp_path / "fake-cc"
    compiler.write_text(FAKE_COMPILER)
    compiler.chmod(0o755)
    record = tmp_path / "tmpdir-seen"
    tool = _tool(f"""
        from pathlib import Path
        from types import SimpleNamespace
        from instrument.backends.cpu import CpuBackend
        CpuBackend()._compile([{str(compiler)!r}, {str(record)!r}], SimpleNamespace(output=Path({str(tmp_path / "o" / "x")!r}), depfile=None))
    """, tmp_path, env={"TMPDIR": str(shared)})
    try:
        assert _until(lambda: record.is_file()), "the fake compiler never ran"
        seen = Path(record.read_text().strip())
        assert seen != shared and seen.parent == shared and stat.S_IMODE(seen.stat().st_mode) == 0o700, seen
        assert (seen / "ccFAKE.s").is_file()
        tool.kill()
        tool.wait()
        assert _until(lambda: not any(shared.iterdir())), sorted(p.name for p in shared.iterdir())
    finally:
        tool.kill()
        tool.wait()


def test_compilers_get_the_scratch_and_programs_keep_the_users_temporary_directory(tmp_path):
    from instrument import reaper
    env = reaper.scratch_env()
    assert env["TMPDIR"] == env["TMP"] == env["TEMP"] == reaper.scratch_dir()
    assert os.path.isdir(env["TMPDIR"]) and env["TMPDIR"] != os.environ.get("TMPDIR")
    chosen = reaper.scratch_env({**os.environ, "TMPDIR": str(tmp_path)})
    assert chosen["TMPDIR"] == str(tmp_path) and chosen["TMP"] == reaper.scratch_dir()
    # a program under a tool computes what it computes without one: its temporary directory is the user's
    assert reaper.program_env(None).get("TMPDIR") == os.environ.get("TMPDIR")


# ---------------------------------------------------------------- 4. a FIFO is no input

def test_a_fifo_given_as_a_graph_or_code_is_refused_by_name(tmp_path):
    from indigo_bench import egr
    from indigo_bench.codes import discover
    from indigo_bench.results import load
    from indigo_bench.sweep import graph_files

    graphs = tmp_path / "graphs"
    graphs.mkdir()
    fifo = graphs / "g.egr"
    os.mkfifo(fifo)
    codes = tmp_path / "codes" / "bfs"
    codes.mkdir(parents=True)
    os.mkfifo(codes / "bfs_raceBug.cu")
    out = tmp_path / "out"
    out.mkdir()
    os.mkfifo(out / "results.csv")
    for fn, path in ((lambda: egr.read(fifo), fifo), (lambda: graph_files([fifo]), fifo),
                     (lambda: graph_files([graphs]), fifo),
                     (lambda: discover(tmp_path / "codes"), codes / "bfs_raceBug.cu"),
                     (lambda: load(out), out / "results.csv")):
        got = _returns(fn)
        err = got.get("error")
        assert isinstance(err, UserError), got
        assert str(path) in err.message and "is a FIFO, not a regular file" in err.message, err.message
