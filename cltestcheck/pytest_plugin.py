"""pytest plugin (entry point `pytest11: cltc`): launch CUDA kernels from tests.

    def test_saxpy(cuda_kernel):
        saxpy = cuda_kernel("saxpy.cu", "saxpy")      # path relative to the test file
        saxpy(grid, block, n, 2.0, x, y)               # copies x, y in; y (non-const) back

On its own the fixture builds the file for the backend `--cuda-backend` names (auto:
gpu through cuda-python or pycuda when a device and a binding are usable, else cpu through ctypes).
Under `cltc coverage|mutate|amplify --suite DIR`, cltc has built every kernel file
once, instrumented, and says where in $CLTC_KERNELS; the fixture loads that build, and
the session writes its outcome to $CLTC_PYTEST_RESULT. Without cltc, no hook does
anything and nothing heavy is imported until a test asks for a kernel."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from .pytest_env import MANIFEST_ENV, RESULT_ENV  # noqa: F401 - part of the plugin's interface

# pytest captures fd 2 while a test runs; an emulator fault ends the process before the
# capture is shown, so its message also goes to the stderr this plugin found at import
try:
    _STDERR = os.dup(2)
except OSError:
    _STDERR = None


def pytest_addoption(parser):
    group = parser.getgroup("cltc", "CUDA kernels (cuda_kernel fixture)")
    group.addoption("--cuda-backend", choices=("auto", "gpu", "cpu"), default=None,
                    help="where cuda_kernel runs kernels: gpu (cuda-python or pycuda), cpu (emulation) or auto (default)")
    parser.addini("cuda_backend", "default for --cuda-backend", default="auto")


class Kernels:
    """The session's kernel libraries: cltc's build, or builds made on demand."""

    def __init__(self, config, base_temp: Path):
        self.config = config
        self.base_temp = base_temp
        self.manifest = os.environ.get(MANIFEST_ENV)
        self.libraries: dict = {}
        self.shared = None           # under cltc: the one library of the whole build

    def backend_name(self) -> str:
        return self.config.getoption("--cuda-backend") or self.config.getini("cuda_backend") or "auto"

    def load(self, path: Path, name: str):
        if self.manifest:
            if self.shared is None:
                from instrument.kernel_lib.load import open_library
                self.shared = open_library(self.manifest, _STDERR)
                tools = self.shared.manifest.tools
                if self.shared.backend == "gpu" and tools:
                    from .gpu_host import ToolHost
                    self.shared.hooks.append(ToolHost(tools))
            if self.shared.manifest.source(path) is None:
                raise pytest.UsageError(
                    f"{path}: cltc did not build this kernel file (it instruments the .cu files under the "
                    f"suite directory and those given with --kernels)")
            return self.shared.kernel(path, name)
        return self._on_demand(path).kernel(path, name)

    def _on_demand(self, path: Path):
        from instrument.backends import get_backend
        from instrument.kernel_lib.cache import cached_library
        from instrument.kernel_lib.load import open_library

        key = str(path)
        lib = self.libraries.get(key)
        if lib is None:
            if not path.is_file():
                raise FileNotFoundError(f"{path}: no such kernel file")
            want = self.backend_name()
            if want == "auto":
                want = "gpu" if _gpu_ok() else "cpu"
            backend = get_backend(want, announce=False)
            out = self.base_temp / f"{len(self.libraries)}_{path.stem}"
            lib = open_library(cached_library(path, backend, out), _STDERR)
            self.libraries[key] = lib
        return lib

    def finish(self) -> None:
        for lib in [self.shared, *self.libraries.values()]:
            if lib is not None:
                lib.finish()


def _gpu_ok() -> bool:
    from instrument.kernel_lib.drivers import binding_importable
    from instrument.compile.toolchain import gpu_usable
    return gpu_usable() and binding_importable()


@pytest.fixture(scope="session")
def _cltc_kernels(request, tmp_path_factory):
    k = Kernels(request.config, tmp_path_factory.mktemp("cuda_kernels"))
    request.config._cltc_kernels = k
    yield k
    k.finish()


@pytest.fixture
def cuda_kernel(request, _cltc_kernels):
    """cuda_kernel(path, name) -> a callable kernel: k(grid, block, *args, shared_mem=0)."""
    base = Path(request.path).parent

    def load(path, name: str):
        p = Path(path)
        return _cltc_kernels.load((p if p.is_absolute() else base / p).resolve(), name)

    return load


class _Outcome:
    """Under cltc: what the session's tests did, written to $CLTC_PYTEST_RESULT at the end."""

    def __init__(self, path: str):
        self.path = path
        self.tests: dict[str, dict] = {}

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report):
        t = self.tests.setdefault(report.nodeid, {"outcome": "passed", "message": ""})
        if report.failed and t["outcome"] != "failed":
            t["outcome"] = "failed" if report.when == "call" else "error"
            t["message"] = _message(report)
        elif report.skipped and t["outcome"] == "passed":
            t["outcome"] = "skipped"
            t["message"] = _message(report)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session, exitstatus):
        kernels = getattr(session.config, "_cltc_kernels", None)
        lib = kernels.shared if kernels else None
        if kernels:
            kernels.finish()
        data = {"exitstatus": int(exitstatus), "tests": self.tests,
                "launches": lib.launches if lib else 0,
                "outputs": lib.outputs_digest() if lib else ""}
        tmp = self.path + ".part"
        Path(tmp).write_text(json.dumps(data) + "\n")
        os.replace(tmp, self.path)


def _message(report) -> str:
    crash = getattr(getattr(report, "longrepr", None), "reprcrash", None)
    if crash is not None:
        return crash.message.strip().splitlines()[0][:300] if crash.message.strip() else ""
    if isinstance(report.longrepr, tuple) and len(report.longrepr) == 3:   # skip: (file, line, reason)
        return str(report.longrepr[2])[:300]
    text = str(report.longrepr or "").strip().splitlines()
    return text[-1][:300] if text else ""


def pytest_configure(config):
    path = os.environ.get(RESULT_ENV)
    if path:
        config.pluginmanager.register(_Outcome(path), "cltc-outcome")
