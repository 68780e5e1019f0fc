"""bench/hirace_overhead, variants: kernel time of the synthetic programs plain and under several
builds of hirace side by side in one run, to see what a change (or a part of the check) costs.

    python bench/hirace_overhead/variants.py --out DIR [--repeat 3] [--only reduce matmul rodinia-srad_v2]
        [--root samples=DIR --root rodinia=DIR]
        --variant base= --variant stop1=-DHIRACE_BENCH_STOP_AFTER_ENABLED --variant noprior=prior=0
        [--profile reduce matmul]

Programs are the synthetic ones (their own kernel_ms) and, with --root, the real programs of
real_programs.py (all their kernels' GPU time, summed by the CUPTI timer).

A variant is NAME=ITEM,ITEM,...: `-DNAME[=V]` a define (the benchmark switches that cut a part of the
check, HIRACE_BENCH_*: runtime/include/hirace/bench_switches.h, docs/performance.md), `prior=0` hirace without prior sites,
`versions=0` without kernels' quiet versions (HIRACE_QUIET_VERSIONS=0), `open_loops=1` with quiet versions
also for kernels with sites in loops whose count the program decides (HIRACE_BENCH_OPEN_LOOP_VERSIONS=1), `quiet=0` with every shared read checked whole (hirace.toml's quiet_reads = false), any other item an nvcc flag (e.g. `-maxrregcount=128`, which overrides hirace's 64). Every build is
made first, in parallel; then each repeat runs the plain program and every variant once, in turn.
--profile runs Nsight Compute (ncu, where installed) on the plain program and on the first
variant and writes its details next to the CSV.
"""
from __future__ import annotations

import argparse
import csv
import shutil
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from bench.hirace_overhead.real_programs import SIZES, build_timer, kernel_ns  # noqa: E402
from bench.hirace_overhead.run import PROGRAMS, kernel_ms  # noqa: E402
from hirace import runner  # noqa: E402
from hirace.config import Config  # noqa: E402
from instrument.compile import pipeline  # noqa: E402
from instrument.backends import get_backend  # noqa: E402
from instrument.protocol import Env  # noqa: E402

KERNELS = {"reduce": "reduce", "histogram": "hist", "matmul": "matmul", "stencil": "stencil", "spmv": "spmv",
           "launches": "bump"}


def parse_variant(text: str):
    name, _, items = text.partition("=")
    defines, flags, env, config = [], [], {Env.HIRACE_PRIOR_SITES: "1"}, Config()
    for item in filter(None, items.split(",")):
        if item == "quiet=0":
            config.quiet_reads = False
        elif item.startswith("-D"):
            defines.append(item[2:])
        elif item.startswith("prior="):
            env[Env.HIRACE_PRIOR_SITES] = item.split("=", 1)[1]
        elif item.startswith("versions="):
            env[Env.HIRACE_QUIET_VERSIONS] = item.split("=", 1)[1]
        elif item == "open_loops=1":   # (as HIRACE_BENCH_OPEN_LOOP_VERSIONS=1 at instrument time, for this build)
            config.bench_open_loop_versions = True
        else:
            flags.append(item)
    return name, defines, flags, env, config


class Real:
    """The real programs of real_programs.py: their specs, builds and run directories."""

    def __init__(self, roots: dict[str, Path]):
        from bench.realworld.run import load_spec
        self.roots = roots
        self.spec = {p.name: p for p in load_spec(HERE.parents[0] / "realworld" / "programs.toml")}

    def build(self, name: str, variant, work: Path, be) -> Path:
        p = self.spec[name]
        base = self.roots[p.root]
        srcs, incs = [base / s for s in p.sources], [base / d for d in p.include]
        defs = p.defines + p.gpu_defines
        if variant is None:
            return pipeline.build(srcs, be, work, [], incs, defs).exe
        _, defines, flags, _, config = variant
        return runner.build(srcs, be, work, config, incs, defs + defines, flags).exe

    def prepare(self, name: str, run_dir: Path) -> Path:
        from bench.realworld import inputs
        p = self.spec[name]
        base = self.roots[p.root]
        run_dir.mkdir(parents=True, exist_ok=True)
        for f in p.files:
            (shutil.copytree if (base / f).is_dir() else shutil.copy)(base / f, run_dir / Path(f).name)
        gen = SIZES[name][1]
        for g in (gen if gen is not None else p.inputs):
            inputs.make(g, run_dir)
        return run_dir


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--backend", default="gpu")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--only", nargs="*", default=[])
    ap.add_argument("--root", action="append", default=[], metavar="NAME=DIR",
                    help="where the real programs' suites are (samples=..., rodinia=...)")
    ap.add_argument("--variant", action="append", default=[], required=True)
    ap.add_argument("--profile", nargs="*", default=[], help="programs to run under ncu (plain and first variant)")
    a = ap.parse_args()
    be = get_backend(a.backend)
    variants = [parse_variant(v) for v in a.variant]
    roots = {k: Path(v).resolve() for k, v in (r.split("=", 1) for r in a.root)}
    real = Real(roots) if roots else None
    chosen = [n for n in PROGRAMS if not a.only or n in a.only]
    chosen += [n for n in SIZES if real and n in a.only and real.spec[n].root in roots]
    a.out.mkdir(parents=True, exist_ok=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        timer = build_timer(tmp) if real else None

        def build(job):
            prog, v = job
            if prog in SIZES:
                return real.build(prog, v, tmp / f"{prog}-{v[0] if v else 'plain'}", be)
            src = HERE / "programs" / f"{prog}.cu"
            if v is None:
                return pipeline.build([src], be, tmp / f"{prog}-plain").exe
            name, defines, flags, _, config = v
            return runner.build([src], be, tmp / f"{prog}-{name}", config, defines=defines, flags=flags).exe
        jobs = [(p, v) for p in chosen for v in [None, *variants]]
        with ThreadPoolExecutor(16) as ex:
            exes = dict(zip([(p, v[0] if v else "plain") for p, v in jobs], ex.map(build, jobs)))
        for prog in [p for p in chosen if p in SIZES]:
            run_dir = real.prepare(prog, tmp / f"{prog}-run")
            times = {k: [] for k in ["plain", *[v[0] for v in variants]]}
            for _ in range(a.repeat):
                for name, venv in [("plain", {}), *[(v[0], v[3]) for v in variants]]:
                    out = tmp / "timer.txt"
                    out.unlink(missing_ok=True)
                    env = {"KERNEL_TIMER_OUT": str(out), Env.HIRACE_LOG: str(tmp / "log.jsonl"), **venv}
                    if timer:
                        env["CUDA_INJECTION64_PATH"] = str(timer)
                    r = be.run(exes[(prog, name)], SIZES[prog][0], env=env, cwd=run_dir, timeout=900)
                    if r.returncode:   # (a benchmark-only cut may stop a program: its time is nan)
                        print(prog, name, "exit", r.returncode, (r.stderr or r.stdout)[-200:].strip(), flush=True)
                    times[name].append(kernel_ns(out)[1] / 1e6 if r.returncode == 0 else float("nan"))
            plain = statistics.median(times["plain"]) or float("nan")   # (nan: no kernel timer here)
            for name, ts in times.items():
                rows.append({"program": prog, "variant": name, "ms": statistics.median(ts),
                             "ratio": statistics.median(ts) / plain})
            print(prog, " ".join(f"{k}={statistics.median(v) / plain:.2f}x" for k, v in times.items()), flush=True)
        for prog in [p for p in chosen if p not in SIZES]:
            size = PROGRAMS[prog]
            n = str(max(16, int(size * a.scale))) if prog != "matmul" else str(max(64, int(size * a.scale ** 0.5) // 16 * 16))
            times = {k: [] for k in ["plain", *[v[0] for v in variants]]}
            for _ in range(a.repeat):
                times["plain"].append(kernel_ms(be.run(exes[(prog, "plain")], [n], timeout=600).stdout))
                for name, _, _, venv, _ in variants:
                    r = be.run(exes[(prog, name)], [n], timeout=600, env={Env.HIRACE_LOG: str(tmp / "log.jsonl"), **venv})
                    assert "PASS" in r.stdout, (prog, name, r.stdout[-500:], r.stderr[-500:])
                    times[name].append(kernel_ms(r.stdout))
            plain = statistics.median(times["plain"])
            for name, ts in times.items():
                rows.append({"program": prog, "variant": name, "ms": statistics.median(ts),
                             "ratio": statistics.median(ts) / plain})
            print(prog, " ".join(f"{k}={statistics.median(v) / plain:.2f}x" for k, v in times.items()), flush=True)
        ncu = shutil.which("ncu")
        for prog in a.profile:
            if ncu is None:
                print("no ncu on this machine: --profile skipped")
                break
            for name in ("plain", variants[0][0]):
                out = a.out / f"ncu_{prog}_{name}.txt"
                r = subprocess.run([ncu, "--set", "full", "-k", f"regex:^{KERNELS[prog]}", "--launch-skip", "1",
                                    "--launch-count", "1", "--print-details", "all",
                                    str(exes[(prog, name)]), str(PROGRAMS[prog])],
                                   capture_output=True, text=True, timeout=300,
                                   env={**__import__("os").environ, Env.HIRACE_LOG: str(tmp / "ncu.jsonl")})
                out.write_text(r.stdout + r.stderr)
    with (a.out / "variants.csv").open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=["program", "variant", "ms", "ratio"])
        w.writeheader()
        w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
