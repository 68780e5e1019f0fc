"""Fixtures: paths to our CUDA sources, building and running programs on the cpu backend."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]   # tests of the cltc pytest plugin run pytest through pytester

from instrument.compile import pipeline
from instrument.backends.cpu import CpuBackend
from instrument.frontend.parse import parse_file
from instrument.frontend.query import query

TESTS = Path(__file__).resolve().parent
CUDA = TESTS / "cuda"
# The corpora's programs (races, litmus, streams) are built at -Og: a verdict does not depend on the host
# compiler's optimisation, and -Og builds one in about half the time of -O2 (the suite builds some 250 of
# them); every other end-to-end test builds at the cpu backend's -O2, as users do.
CORPUS_OPT = "-Og"
ROOT = TESTS.parent

# hirace run's build cache (instrument/compile/build_cache.py) stays out of the suite: each test
# compiles what it runs, whichever tests ran before it; tests/test_build_cache.py gives it a folder,
# and so does the fixture below, to a test of its own
os.environ["CCTK_BUILD_CACHE"] = "off"


@pytest.fixture
def own_build_cache(tmp_path_factory, monkeypatch):
    """A build cache of this test alone (the commands it starts inherit it; a folder outside its
    tmp_path): a test that runs one program several times under hirace run (options of the run, not
    of the build) compiles it once, whichever tests ran before it."""
    cache = tmp_path_factory.mktemp("own-build-cache")
    monkeypatch.setenv("CCTK_BUILD_CACHE", str(cache))
    return cache


@pytest.fixture(scope="module")
def module_build_cache(tmp_path_factory):
    """A build cache of this module's tests alone, for a module whose tests run one program under
    different options of the run: the first of them to run compiles it."""
    old = os.environ.get("CCTK_BUILD_CACHE")
    cache = tmp_path_factory.mktemp("build-cache")
    os.environ["CCTK_BUILD_CACHE"] = str(cache)
    yield cache
    os.environ["CCTK_BUILD_CACHE"] = old if old is not None else "off"


@pytest.fixture
def cuda_dir() -> Path:
    return CUDA


@pytest.fixture
def program():
    """program('engine/mixed.cu') -> the query layer's Program for that file."""
    def load(rel: str, **kw):
        return query(parse_file(CUDA / rel, **kw))
    return load


@pytest.fixture
def cpu_build(tmp_path):
    """cpu_build(['corpus/x.cu'], planners=[...]) -> BuiltProgram on the cpu backend."""
    def build(rels, planners=(), **kw):
        srcs = [CUDA / r for r in ([rels] if isinstance(rels, str) else rels)]
        return pipeline.build(srcs, CpuBackend(), tmp_path / "build", planners=list(planners), **kw)
    return build


@pytest.fixture(scope="session")
def plain_corpus(tmp_path_factory):
    """plain_corpus(path) -> the program of a corpus source as written (lowered for the cpu backend: cltc's
    build_plain), built once per session: test_cpu_backend runs it against its reference, test_cltc_coverage
    compares its output with the instrumented program's."""
    from cltestcheck import suite as suite_mod
    from cltestcheck.build import build_plain
    root, built = tmp_path_factory.mktemp("plain-corpus"), {}

    def build(path: Path) -> Path:
        if path not in built:
            suite = suite_mod.Suite(path.parent, [path], tests=[suite_mod.TestCase("t")])
            built[path] = build_plain(suite, CpuBackend(), root / path.stem)
        return built[path]
    return build


@pytest.fixture
def run_cli():
    """run_cli('instrument.run', args...) -> CompletedProcess of `python -m MODULE args`."""
    def run(module: str, *args, timeout=300, env=None, cwd=None):
        import os
        e = dict(os.environ, **(env or {}))
        if cwd is not None:   # the project on the path, as from its root
            e["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), e.get("PYTHONPATH", "")]))
        return subprocess.run([sys.executable, "-m", module, *map(str, args)], capture_output=True,
                              text=True, timeout=timeout, cwd=cwd or ROOT, env=e)
    return run


# every test a cltc tool runs of a pytest suite is its own pytest process: keep the plugins that are
# slow to import and that our suites do not use out of them (hypothesis's costs about a second a process)
QUIET_PLUGINS = "-p no:hypothesispytest -p no:xdist"


@pytest.fixture
def quiet_pytest_children(monkeypatch):
    """The pytest processes the test starts run without the slow plugins (QUIET_PLUGINS)."""
    monkeypatch.setenv("PYTEST_ADDOPTS", QUIET_PLUGINS)


@pytest.fixture
def nvcc():
    """The path of nvcc; the test is skipped where no CUDA toolkit is installed."""
    from instrument.compile.toolchain import nvcc_path
    if nvcc_path() is None:
        pytest.skip("nvcc not found: the CUDA toolkit is needed to check that instrumented code compiles")
    return nvcc_path()


# -- projects built through a tool's compiler launcher (tests/projects/: test_projects.py, test_cltc_projects.py)
PROJECTS = TESTS / "projects"
BIN = Path(sys.executable).parent   # the tools' scripts (hirace-cc, cltc-cc ...) of this environment

needs_project_tools = pytest.mark.skipif(
    not all(shutil.which(t) for t in ("cmake", "ninja", "make", "nvcc")),
    reason="cmake, ninja, make and nvcc (CMake's CUDA language asks nvcc who it is) are on every machine "
           "the project builds on; this one lacks one of them")


def project_env(clear: tuple[str, ...], **more) -> dict:
    """The environment a project's build and tests run in: this environment's tools first on PATH,
    no tool variable (`clear`: their prefixes) but `more`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(clear)}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env.update(more)
    return env


def run_in(cmd, cwd, env, timeout=300) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def run_tool(module: str, *args, cwd, clear: tuple[str, ...], env=None, timeout=300) -> subprocess.CompletedProcess:
    """`python -m MODULE args` in `cwd` with this project on the path, none of the variables whose
    prefixes are in `clear` (GITHUB_, the tool's own) but `env`."""
    e = {k: v for k, v in os.environ.items() if not k.startswith(clear)}
    e["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), e.get("PYTHONPATH", "")]))
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", module, *map(str, args)], cwd=cwd, env=e,
                          capture_output=True, text=True, timeout=timeout)


def build_cmake_app(build: Path, launcher: Path, env: dict, extra=()) -> Path:
    """tests/projects/cmake_app configured with `launcher` as CMake's compiler and linker launcher and
    built with ninja into `build`."""
    src = PROJECTS / "cmake_app"
    conf = run_in(["cmake", "-S", src, "-B", build, "-G", "Ninja", f"-DCMAKE_CUDA_COMPILER_LAUNCHER={launcher}",
                   f"-DCMAKE_CXX_COMPILER_LAUNCHER={launcher}", f"-DCMAKE_CXX_LINKER_LAUNCHER={launcher}", *extra],
                  src, env)
    assert conf.returncode == 0, conf.stdout + conf.stderr
    made = run_in(["ninja", "-C", build], build, env)
    assert made.returncode == 0, made.stdout + made.stderr
    return build


def build_make_app(work: Path, launcher: str, env: dict) -> Path:
    """tests/projects/make_app copied to `work` and built with make NVCC="LAUNCHER nvcc"."""
    shutil.copytree(PROJECTS / "make_app", work)
    made = run_in(["make", f"NVCC={launcher} nvcc"], work, env)
    assert made.returncode == 0, made.stdout + made.stderr
    return work


def have(tool: str) -> bool:
    return shutil.which(tool) is not None


# ---------------------------------------------------------------- campaigns: a worker killed mid-run

def _dask_worker(p) -> bool:
    """A Dask worker process: started by multiprocessing's spawn (as a local pool's workers are
    too) and listening on a TCP port (they are not)."""
    import psutil
    return "spawn_main" in " ".join(p.cmdline()) and any(
        c.status == psutil.CONN_LISTEN for c in p.net_connections(kind="tcp"))


def _kill_a_busy_worker(rows_file: Path, after_rows: int, stop: threading.Event, killed: list):
    """Once `rows_file` holds `after_rows` rows, SIGKILL one Dask worker process of the cluster
    started since (not a worker of a cluster that was already there, such as a module fixture's
    idle ones: killing one interrupted nothing, the CI failure). Our LocalCluster
    gives a worker only the task it runs (worker-saturation 1.0), so while tasks remain a worker
    is inside one; its child processes (a build, a run) live too briefly to be the sign (a mutant's
    runs take milliseconds, so a killer waiting to see one missed every time on a loaded machine)."""
    import psutil
    me = psutil.Process()
    before = {p.pid for p in me.children()}   # (another cluster's workers, a module fixture's: not the campaign's)
    while not stop.is_set():
        n = len(rows_file.read_text().splitlines()) - 1 if rows_file.is_file() else 0
        if n >= after_rows:
            for p in me.children():
                try:
                    if p.pid not in before and _dask_worker(p):
                        p.send_signal(signal.SIGKILL)
                        killed.append(p.pid)
                        return
                except psutil.Error:
                    pass
        time.sleep(0.005)


def _with_killer(rows_file: Path, after_rows: int, fn):
    stop, killed = threading.Event(), []
    t = threading.Thread(target=_kill_a_busy_worker, args=(rows_file, after_rows, stop, killed), daemon=True)
    t.start()
    try:
        return fn(), killed
    finally:
        stop.set()
        t.join()


def _tidy(rows, drop=("wall_s", "peak_mem_mib")):
    """Rows as comparable tuples, in a fixed order, without the columns that vary run to run."""
    return sorted(tuple((k, v) for k, v in r.items() if k not in drop) for r in rows)


@pytest.fixture
def with_killer():
    """with_killer(rows_file, after_rows, fn) -> (fn(), pids killed): SIGKILLs a busy Dask worker
    once the campaign's journal holds after_rows rows."""
    return _with_killer


@pytest.fixture
def tidy():
    """tidy(rows, drop) -> rows as sorted tuples without the columns that vary run to run."""
    return _tidy
