"""bench/cpu_backend: fiber context switches per second and the run time of a
256-block x 1024-thread kernel with 16 barriers on the cpu backend, and threads per
second of a 16M-thread kernel without barriers.

    python bench/cpu_backend/run.py [--repeat 3] [--out bench/results/cpu_backend.json]
"""
from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from instrument.compile import pipeline  # noqa: E402
from instrument.backends.cpu import CpuBackend  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", type=Path, default=HERE.parents[0] / "results" / "cpu_backend.json")
    a = ap.parse_args()
    be = CpuBackend()
    with tempfile.TemporaryDirectory() as tmp:
        built = pipeline.build([HERE / "barriers.cu"], be, Path(tmp))
        runs = []
        for _ in range(a.repeat):
            res = be.run(built.exe, timeout=600)
            if res.returncode != 0:
                print(res.stderr, file=sys.stderr)
                return 2
            runs.append(json.loads(res.stdout))
    best = min(runs, key=lambda r: r["kernel_s"])
    summary = {
        "machine": platform.processor() or platform.machine(),
        "runs": runs,
        "median_kernel_s": statistics.median(r["kernel_s"] for r in runs),
        "best_switches_per_s": best["switches_per_s"],
        "median_switches_per_s": statistics.median(r["switches_per_s"] for r in runs),
        "median_flat_threads_per_s": statistics.median(r["flat_threads_per_s"] for r in runs),
    }
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(summary, indent=1) + "\n")
    print(f"256x1024 threads, 16 barriers: median {summary['median_kernel_s']:.3f} s; "
          f"{summary['median_switches_per_s'] / 1e6:.1f} M switches/s; a kernel without barriers: "
          f"{summary['median_flat_threads_per_s'] / 1e6:.1f} M threads/s (medians of {a.repeat}, one core)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
