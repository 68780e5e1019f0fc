"""bench/host_access: the cost of watching the host's accesses of managed memory (hirace/host_access.h):
host_access.cu built twice by hirace, with the watch and without it (HIRACE_HOST_ACCESS=0, everything else
the same), run alternately; each phase's median time and the ratio, side by side. On the cpu backend, or on
a GPU (`--backend gpu`: the stream relation asked for, as `--gpu-streams` does).

    python bench/host_access/run.py [--backend cpu|gpu] [--repeat 5] [--out bench/results/host_access_<backend>.json]
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

from hirace import runner  # noqa: E402
from hirace.config import Config  # noqa: E402
from instrument.backends.cpu import CpuBackend  # noqa: E402
from instrument.backends.gpu import GpuBackend  # noqa: E402
from instrument.protocol import Macro, define  # noqa: E402

PHASES = ("ordered_s", "disjoint_s", "same_page_s", "racy_s")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--backend", choices=("cpu", "gpu"), default="cpu")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", type=Path)
    a = ap.parse_args()
    out = a.out or HERE.parents[0] / "results" / f"host_access_{a.backend}.json"
    config = Config(gpu_streams=a.backend == "gpu")
    backend = GpuBackend() if a.backend == "gpu" else CpuBackend()
    src = HERE / "host_access.cu"
    runs: dict[str, list[dict]] = {"watched": [], "unwatched": []}
    races = {}
    with tempfile.TemporaryDirectory() as tmp:
        built = {"watched": runner.build([src], backend, Path(tmp) / "w", config),
                 "unwatched": runner.build([src], backend, Path(tmp) / "u", config,
                                           defines=[define(Macro.HIRACE_HOST_ACCESS, 0)])}
        for _ in range(a.repeat):
            for name, b in built.items():   # (alternately: the machine's load falls on both alike)
                proc, res = runner.execute(b, config, timeout=600)
                if res is None or res.program_exit != 0:
                    print(proc.stderr[-2000:], file=sys.stderr)
                    return 2
                runs[name].append(json.loads(proc.stdout.strip().splitlines()[-1]))
                races[name] = len(res.stream_races)
    med = {name: {p: statistics.median(r[p] for r in rs) for p in PHASES} for name, rs in runs.items()}
    summary = {"machine": platform.processor() or platform.machine(), "backend": a.backend, "repeat": a.repeat,
               "median": med,
               "ratio": {p: med["watched"][p] / med["unwatched"][p] for p in PHASES},
               "host_access_races": races, "runs": runs}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(summary, indent=1) + "\n")
    print(f"{'phase':<12} {'unwatched s':>12} {'watched s':>10} {'ratio':>7}")
    for p in PHASES:
        print(f"{p[:-2]:<12} {med['unwatched'][p]:>12.4f} {med['watched'][p]:>10.4f} {summary['ratio'][p]:>7.2f}")
    print(f"races between an operation and a host access reported: watched {races['watched']}, "
          f"unwatched {races['unwatched']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
