"""bench/hirace_overhead: kernel time plain, under hirace, and under Compute Sanitizer
racecheck, measured side by side in one run on one GPU, plus hirace's memory overhead.

    python bench/hirace_overhead/run.py [--backend gpu] [--repeat 3] [--out DIR]
                                        [--root samples=DIR --root rodinia=DIR]

Each program times one launch (after a warm-up launch) with CUDA events, so the
ratios exclude process and context start-up; hirace's own per-launch work
(range table, race-log copy) is inside the timed region. `launches` is 1,000 launches of a one-block
kernel while a 1 GB buffer is tracked: its ratio is the per-launch cost.

With --root, the real programs of real_programs.py (public code, from bench/realworld's spec) are
measured too: their summed kernel time by a CUPTI injection library, plain and under hirace.
"""
from __future__ import annotations

import argparse
import csv
import json
import math
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from hirace import runner  # noqa: E402
from hirace.config import Config  # noqa: E402
from instrument.backends import get_backend  # noqa: E402
from instrument import logs
from instrument.compile import pipeline  # noqa: E402
from instrument.protocol import HIRACE_LOG, Env  # noqa: E402

PROGRAMS = {"reduce": 1 << 24, "histogram": 1 << 24, "matmul": 1024, "stencil": 1 << 24, "spmv": 1 << 20,
            "launches": 1 << 28, "pipeline": 1 << 16}


def kernel_ms(text: str) -> float:
    m = re.search(r"kernel_ms ([0-9.]+)", text)
    if not m:
        raise RuntimeError(f"no kernel_ms in output: {text[-500:]}")
    return float(m.group(1))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--backend", default="gpu")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--scale", type=float, default=1.0, help="multiply problem sizes (cpu: use 1/64)")
    ap.add_argument("--out", type=Path, default=HERE.parents[0] / "results")
    ap.add_argument("--root", action="append", default=[], metavar="NAME=DIR",
                    help="where bench/realworld's programs live (samples=..., rodinia=...): measure them too")
    ap.add_argument("--only", nargs="*", default=[], help="only these programs")
    ap.add_argument("--no-racecheck", action="store_true", help="leave Compute Sanitizer's racecheck out")
    ap.add_argument("--gpu-streams", action="store_true",
                    help="build with the stream relation on the GPU (as hirace --gpu-streams): its cost")
    a = ap.parse_args()
    config = Config(gpu_streams=a.gpu_streams)
    be = get_backend(a.backend)
    sanitizer = shutil.which("compute-sanitizer") if be.name == "gpu" and not a.no_racecheck else None
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        chosen = [n for n in PROGRAMS if not a.only or n in a.only]

        def build(name):   # builds in parallel: nvcc is the slow part
            src = HERE / "programs" / f"{name}.cu"
            return (pipeline.build([src], be, tmp / f"{name}-plain").exe,
                    runner.build([src], be, tmp / f"{name}-hr", config).exe)
        with ThreadPoolExecutor(8) as ex:
            builds = dict(zip(chosen, ex.map(build, chosen)))
        for name in chosen:
            size = PROGRAMS[name]
            n = str(max(16, int(size * a.scale))) if name != "matmul" else str(max(64, int(size * math.sqrt(a.scale)) // 16 * 16))
            plain, inst = builds[name]
            t_plain, t_hr, t_np, t_rc, races, rc_hazards = [], [], [], [], 0, ""
            mem, mem_np = (0, 0), (0, 0)
            for _ in range(a.repeat):
                r = be.run(plain, [n], timeout=600)
                t_plain.append(kernel_ms(r.stdout))
                log = tmp / f"{name}.jsonl"
                # hirace as it runs by default (prior sites on), then without prior sites
                for prior, times in (("1", t_hr), ("0", t_np)):
                    r = be.run(inst, [n], env={Env.HIRACE_LOG: str(log), Env.HIRACE_PRIOR_SITES: prior}, timeout=600)
                    assert "PASS" in r.stdout, (name, r.stdout, r.stderr)
                    times.append(kernel_ms(r.stdout))
                    recs = logs.read(log, HIRACE_LOG, "hirace's log")
                    end = recs["end"][-1]
                    if prior == "1":
                        races = len(recs["race"])
                        mem = (end.user_bytes, end.tool_bytes)
                    else:
                        mem_np = (end.user_bytes, end.tool_bytes)
                if sanitizer:
                    r = subprocess.run([sanitizer, "--tool", "racecheck", str(plain), n], capture_output=True,
                                       text=True, timeout=1800)
                    t_rc.append(kernel_ms(r.stdout))
                    m = re.search(r"RACECHECK SUMMARY: (\d+) hazard", r.stdout + r.stderr)
                    rc_hazards = m.group(1) if m else "?"
            row = {"program": name, "size": n, "plain_ms": statistics.median(t_plain),
                   "hirace_ms": statistics.median(t_hr),
                   "hirace_slowdown": statistics.median(t_hr) / statistics.median(t_plain),
                   "hirace_races": races,
                   "hirace_memory_ratio": (mem[0] + mem[1]) / mem[0] if mem[0] else float("nan"),
                   "noprior_slowdown": statistics.median(t_np) / statistics.median(t_plain),
                   "noprior_memory_ratio": (mem_np[0] + mem_np[1]) / mem_np[0] if mem_np[0] else float("nan")}
            if t_rc:
                row.update({"racecheck_ms": statistics.median(t_rc),
                            "racecheck_slowdown": statistics.median(t_rc) / statistics.median(t_plain),
                            "racecheck_hazards": rc_hazards,
                            "hirace_vs_racecheck": statistics.median(t_hr) / statistics.median(t_rc)})
            rows.append(row)
            print(json.dumps(row), flush=True)
    if a.root:
        from bench.hirace_overhead import real_programs
        roots = {k: Path(v).resolve() for k, v in (r.split("=", 1) for r in a.root)}
        rows += real_programs.measure(roots, be, sanitizer, a.repeat, a.only, config)
    a.out.mkdir(parents=True, exist_ok=True)
    out = a.out / f"hirace_overhead_{be.name}.csv"
    with out.open("w", newline="") as fh:
        keys = list(dict.fromkeys(k for r in rows for k in r))
        w = csv.DictWriter(fh, fieldnames=keys)
        w.writeheader()
        w.writerows(rows)
    for key in ("hirace_slowdown", "noprior_slowdown", "racecheck_slowdown", "hirace_memory_ratio",
                "noprior_memory_ratio"):
        vals = [r[key] for r in rows if key in r]
        if vals:
            print(f"{key}: median {statistics.median(vals):.2f}x, mean {statistics.mean(vals):.2f}x")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
