"""The example kernels on both backends with the same inputs: are the results identical?"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from instrument.backends import get_backend  # noqa: E402
from instrument.kernel_lib.build import build_library  # noqa: E402
from instrument.kernel_lib.load import open_library  # noqa: E402

SUITE = ROOT / "examples" / "pytest_kernels"


def run_all(backend: str, work: Path) -> dict[str, np.ndarray]:
    lib = open_library(build_library([SUITE / "saxpy.cu", SUITE / "histogram.cu"], get_backend(backend),
                                     work / backend))
    rng = np.random.default_rng(7)
    out = {}
    x = rng.standard_normal(100_000).astype(np.float32)
    y = rng.standard_normal(100_000).astype(np.float32)
    lib.kernel(SUITE / "saxpy.cu", "saxpy")(391, 256, 100_000, 1.7, x, y)
    out["saxpy y"] = y
    keys = rng.integers(0, 1 << 31, 200_000).astype(np.uint32)
    bins = np.zeros(256, np.uint32)
    lib.kernel(SUITE / "histogram.cu", "histogram")(8, 256, keys, len(keys), bins, 256, shared_mem=1024)
    out["histogram bins"] = bins
    nz = np.full(256, -1, np.int32)
    count = np.zeros(1, np.int32)
    lib.kernel(SUITE / "histogram.cu", "nonzero_bins")(2, 128, bins, 256, nz, count)
    out["nonzero_bins count"] = count
    out["nonzero_bins sorted"] = np.sort(nz[:count[0]])
    lib.finish()
    return out


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        gpu, cpu = run_all("gpu", Path(tmp)), run_all("cpu", Path(tmp))
    same = True
    for name in gpu:
        g, c = gpu[name], cpu[name]
        eq = np.array_equal(g, c)
        same &= eq
        extra = ""
        if not eq and g.dtype.kind == "f":
            ulp = np.abs(g.view(np.int32).astype(np.int64) - c.view(np.int32).astype(np.int64))
            extra = f" (max {ulp.max()} ulp apart, {int((ulp > 0).sum())} of {ulp.size} differ: nvcc fuses a*x+y)"
        print(f"{name:22s} {'identical' if eq else 'DIFFERENT'}{extra}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
