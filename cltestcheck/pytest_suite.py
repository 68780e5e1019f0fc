"""A pytest suite as a cltc suite: a directory with test_*.py files and no cltc.toml.

Kernel sources are the .cu files under the directory (and any given with --kernels);
each collected pytest node is one test. cltc builds the kernel sources once (a kernel
library, instrumented for the tool) and runs each test as `python -m pytest NODE` with
$CLTC_KERNELS naming the build; the plugin (cltestcheck/pytest_plugin.py) loads it and
writes the test's outcome and a digest of every array the kernels wrote."""
from __future__ import annotations

import json
import os
import sys
from importlib import metadata
from pathlib import Path

from instrument.backends import Backend, run_process
from instrument.errors import UserError

from .captured import Captured
from .observed import Observed
from .pytest_env import MANIFEST_ENV, RESULT_ENV
from instrument.reaper import temp_dir

SKIP_DIRS = {"__pycache__", "build", "node_modules", "venv"}
DEFAULT_TIMEOUT = 120.0


def looks_like_pytest_suite(root: Path) -> bool:
    """Test files in the directory (a cltc.toml that describes a program suite comes first)."""
    return any(root.rglob("test_*.py")) or any(root.rglob("*_test.py"))


def kernel_sources(root: Path, extra: list[Path] | None = None) -> list[Path]:
    found = sorted(p.resolve() for p in root.rglob("*.cu")
                   if not any(part.startswith(".") or part in SKIP_DIRS for part in p.relative_to(root).parts[:-1]))
    for e in extra or []:
        p = Path(e).resolve()
        if not p.is_file():
            raise UserError(f"{e}: --kernels names a file that does not exist")
        if p not in found:
            found.append(p)
    if not found:
        raise UserError(f"{root}: a pytest suite, but no .cu kernel files under it",
                        hint="put the kernels the tests load under the suite directory, or name them with --kernels")
    return found


def _plugin_args() -> list[str]:
    """Load our plugin explicitly only when no installed entry point does."""
    try:
        eps = metadata.entry_points(group="pytest11")
        if any(ep.value.startswith("cltestcheck.pytest_plugin") for ep in eps):
            return []
    except Exception:   # noqa: BLE001 - a broken metadata install: load it by name
        pass
    return ["-p", "cltestcheck.pytest_plugin"]


def pytest_command(root: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "pytest", f"--rootdir={root}", f"--confcutdir={root}", "-p", "no:cacheprovider",
            *_plugin_args(), *args]


def _env() -> dict:
    """The child finds this toolkit where this process found it (also when run from a checkout)."""
    here = str(Path(__file__).resolve().parent.parent)
    path = os.environ.get("PYTHONPATH", "")
    return {"PYTHONPATH": here + (os.pathsep + path if path else ""), "PYTHONDONTWRITEBYTECODE": "1"}


def require_pytest(root: Path) -> None:
    """A pytest suite runs under pytest: say how to get it when it is missing."""
    import importlib.util
    if importlib.util.find_spec("pytest") is None:
        raise UserError(f"{root} is a pytest suite (test_*.py files, no cltc.toml), but pytest is not installed "
                        f"in this Python ({sys.executable})",
                        hint="pip install pytest (or the project's test extra), or write a cltc.toml suite")


def collect(root: Path, timeout: float = 300) -> list[str]:
    """Node ids of every test pytest collects in root."""
    res = run_process(pytest_command(root, "--collect-only", "-q", str(root)), timeout=timeout,
                      cwd=root, env=_env())
    lines = res.stdout.splitlines()
    ids = [ln.strip() for ln in lines if "::" in ln and not ln.startswith(("=", " ", "<"))]
    if res.timed_out:
        raise UserError(f"{root}: collecting the pytest suite took more than {timeout:.0f}s")
    if res.returncode not in (0, 5) or (res.returncode == 0 and not ids):
        tail = "\n".join((res.stdout + res.stderr).strip().splitlines()[-15:])
        raise UserError(f"{root}: pytest could not collect the suite (exit status {res.returncode})",
                        hint=f"pytest said:\n{tail}")
    if not ids:
        raise UserError(f"{root}: pytest collected no tests", hint="name test files test_*.py and tests test_*")
    return ids


class PytestKind:
    """How a pytest suite is built (one kernel library) and run (one pytest node a test)."""
    name = "pytest"

    def where(self, suite) -> Path:
        return suite.root

    def build(self, suite, backend: Backend, work: Path, planners, name: str = "prog", opt: str = "-O2",
              cpu_planners=(), cache: bool = False):
        """The kernel sources as one kernel library instrumented by `planners`; (manifest, [], []) (kernel
        libraries keep a cache of their own: `cache` is the program builds')."""
        from instrument.kernel_lib.build import build_library   # the parser only when a build runs
        tools = sorted({getattr(p, "tool", "") for p in planners} - {""})
        extra = list(cpu_planners) if backend.needs_lowering else []
        manifest = build_library(suite.sources, backend, work / name, extra + list(planners), suite.include,
                                 suite.defines, suite.flags_for(backend), tools, opt=opt)
        return manifest, [], []

    def run(self, backend: Backend, exe: Path, suite, test, env: dict | None, timeout: float) -> Observed:
        return run_node(backend, exe, suite.root, test.name, env, timeout)


PYTEST = PytestKind()


def run_node(backend: Backend, manifest: Path, root: Path, node: str, env: dict | None,
             timeout: float) -> Observed:
    """Run one pytest node against the build in `manifest`; its outcome becomes stdout
    ('passed', 'failed: message') plus the outputs digest, so that runs compare as programs do."""
    with temp_dir(prefix="cltc-pytest-") as tmp:
        result = Path(tmp) / "result.json"
        full_env = {**_env(), **(env or {}), MANIFEST_ENV: str(manifest), RESULT_ENV: str(result)}
        res = run_process(pytest_command(root, "-q", "-x", "--no-header", "-p", "no:randomly", node),
                          timeout=timeout, cwd=root, env=full_env)
        data = json.loads(result.read_text()) if result.is_file() else None
    fault = backend.fault_detail(res)
    raw = (res.stdout + res.stderr).strip()
    if data is None:
        text = "(pytest ended without a result)" if not res.timed_out else "(hang: timed out)"
        return Observed(res.returncode, Captured.of_text(text), raw, res.wall_s, res.timed_out, fault)
    t = data["tests"].get(node) or next(iter(data["tests"].values()), None)
    if t is None:
        outcome = f"not run (pytest exit status {data['exitstatus']})"
    else:
        outcome = t["outcome"] + (f": {t['message']}" if t["message"] and t["outcome"] != "passed" else "")
    text = f"{outcome}\nkernel launches {data['launches']}, outputs {data['outputs'] or '-'}\n"
    return Observed(res.returncode, Captured.of_text(text), raw, res.wall_s, res.timed_out, fault,
                    launches=data["launches"])
