"""Execution backends behind one interface: `gpu` (nvcc + device) and `cpu` (host compiler + fibers)."""
from __future__ import annotations

import sys

from ..errors import ToolchainMissing
from .base import Backend, BuildRequest, RunResult, run_process

NAMES = ("auto", "gpu", "cpu")


def get_backend(name: str = "auto", announce: bool = True) -> Backend:
    """The backend called `name`; 'auto' is gpu when a device is usable, else cpu."""
    from .cpu import CpuBackend
    from .gpu import GpuBackend

    if name not in NAMES:
        raise ToolchainMissing(f"unknown backend '{name}' (choose from {', '.join(NAMES)})")
    if name == "auto":
        gpu = GpuBackend()
        ok, why = gpu.available()
        chosen: Backend = gpu if ok else CpuBackend()
        if announce:
            reason = "a CUDA device is usable" if ok else why
            print(f"[backend: {chosen.name} ({reason})]", file=sys.stderr)
        return chosen
    backend = GpuBackend() if name == "gpu" else CpuBackend()
    ok, why = backend.available()
    if not ok:
        raise ToolchainMissing(f"the {name} backend is not usable here: {why}",
                               hint="use --backend auto to pick what this machine has")
    return backend


__all__ = ["Backend", "BuildRequest", "RunResult", "run_process", "get_backend", "NAMES"]
