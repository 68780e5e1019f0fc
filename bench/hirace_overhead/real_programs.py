"""bench/hirace_overhead, real programs: the GPU time of every kernel a public program runs, plain
and under hirace, summed by a CUPTI injection library (kernel_timer.cpp), plus each process's wall
time plain, under hirace and under Compute Sanitizer racecheck.

The programs come from bench/realworld/programs.toml (their sources, options and generated inputs)
with the larger arguments below; their code stays in the --root directories, never here.
"""
from __future__ import annotations

import re
import shutil
import statistics
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
RACECHECK_LIMIT = 30

# program name in bench/realworld/programs.toml -> (arguments, generated inputs replacing the spec's)
SIZES = {
    "matrixMul": (["-wA=512", "-hA=512", "-wB=512", "-hB=512"], None),
    "transpose": (["dimX=1024", "dimY=1024"], None),
    "reduction": (["--n=16777216"], None),
    "fastWalshTransform": ([], None),
    "convolutionSeparable": ([], None),
    "sortingNetworks": ([], None),
    "histogram": ([], None),
    "rodinia-pathfinder": (["100000", "100", "20"], None),
    "rodinia-hotspot": (["512", "2", "20", "temp_512", "power_512", "output.out"],
                        [{"kind": "floats", "file": "temp_512", "count": 262144, "lo": 320.0, "hi": 340.0, "seed": 1},
                         {"kind": "floats", "file": "power_512", "count": 262144, "lo": 0.0, "hi": 0.01, "seed": 2}]),
    "rodinia-srad_v2": (["1024", "1024", "0", "127", "0", "127", "0.5", "2"], None),
    "rodinia-bfs": (["graph65536.txt"], [{"kind": "bfs", "file": "graph65536.txt", "nodes": 65536, "degree": 4,
                                          "seed": 3}]),
    "rodinia-nw": (["2048", "10"], None),
    "rodinia-lud": (["-s", "1024"], None),
}


def build_timer(out: Path) -> Path | None:
    """libkernel_timer.so for this machine's CUPTI, or None (with why on stdout) where it cannot be built."""
    cuda = Path(shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc").resolve().parents[1]
    places = [cuda / "extras" / "CUPTI", cuda, *sorted((cuda / "targets").glob("*"))]
    cupti = next((d for d in places if (d / "include" / "cupti.h").is_file()), None)
    if cupti is None:
        print("kernel timer: no cupti.h under", cuda)
        return None
    text = "".join((cupti / "include" / h).read_text(errors="replace") for h in ("cupti_activity.h",)
                   if (cupti / "include" / h).is_file())
    versions = sorted({int(v) for v in re.findall(r"\bCUpti_ActivityKernel(\d+)\b", text)})
    if not versions:
        print("kernel timer: no CUpti_ActivityKernelN in cupti_activity.h")
        return None
    lib = out / "libkernel_timer.so"
    libdir = next((d for d in (cupti / "lib64", cupti / "lib", cuda / "lib64") if (d / "libcupti.so").exists()),
                  cupti / "lib64")
    r = subprocess.run(["g++", "-std=c++17", "-O2", "-shared", "-fPIC", f"-DKERNEL_RECORD=CUpti_ActivityKernel{versions[-1]}",
                        "-I", str(cupti / "include"), "-I", str(cuda / "include"), str(HERE / "kernel_timer.cpp"),
                        "-o", str(lib), "-L", str(libdir), "-lcupti", f"-Wl,-rpath,{libdir}"],
                       capture_output=True, text=True)
    if r.returncode:
        print("kernel timer: build failed:", r.stderr[-800:])
        return None
    return lib


def kernel_ns(path: Path) -> tuple[int, int]:
    """(kernels, total ns) the timer wrote, or (0, 0) when it wrote nothing."""
    if not path.is_file():
        return 0, 0
    vals = dict(line.split()[:2] for line in path.read_text().splitlines() if line.strip())
    return int(vals.get("kernels", 0)), int(vals.get("kernel_ns", 0))


def kernel_split(path: Path) -> dict[str, float]:
    """Milliseconds by kernel name (its identifier read out of the mangled name; a quiet version keeps
    its `__hirace_q` suffix) that the timer wrote."""
    out: dict[str, float] = {}
    if not path.is_file():
        return out
    for line in path.read_text().splitlines():
        parts = line.split(maxsplit=3)
        if len(parts) == 4 and parts[0] == "kernel":
            m = re.match(r"_Z(?:L)?(\d+)", parts[3])
            name = parts[3][m.end():m.end() + int(m.group(1))] if m else parts[3]
            out[name] = out.get(name, 0.0) + int(parts[1]) / 1e6
    return out


def top_kernels(plain: dict[str, float], hirace: dict[str, float], n: int = 4) -> str:
    """The n kernels of the most time under hirace: `name hirace_ms/plain_ms`, a quiet version's time
    with its kernel's."""
    merged: dict[str, list[float]] = {}
    for name, ms in hirace.items():
        base = name.removesuffix("__hirace_q")
        merged.setdefault(base, [0.0, 0.0])[0 if base == name else 1] += ms
    top = sorted(merged.items(), key=lambda kv: -sum(kv[1]))[:n]
    return "; ".join(f"{k} {c:.2f}+{q:.2f}q/{plain.get(k, 0.0):.2f}" for k, (c, q) in top)


def measure(roots: dict[str, Path], be, sanitizer: str | None, repeat: int, only=(), config=None) -> list[dict]:
    from bench.realworld import inputs
    from bench.realworld.run import load_spec
    from hirace import runner
    from hirace.config import Config
    from instrument import logs
    from instrument.compile import pipeline
    from instrument.protocol import HIRACE_LOG, Env

    rows = []
    spec = {p.name: p for p in load_spec(HERE.parents[0] / "realworld" / "programs.toml")}
    with tempfile.TemporaryDirectory(prefix="hirace-real-") as tmp:
        tmp = Path(tmp)
        timer = build_timer(tmp)
        chosen = [n for n in SIZES if (not only or n in only) and spec[n].root in roots]

        def build(name):
            p, base, work = spec[name], roots[spec[name].root], tmp / name
            srcs = [base / s for s in p.sources]
            incs = [base / d for d in p.include]
            defs = p.defines + p.gpu_defines
            try:
                return (pipeline.build(srcs, be, work / "plain", [], incs, defs).exe,
                        runner.build(srcs, be, work / "hr", config or Config(), incs, defs).exe)
            except Exception as exc:   # a program that does not build here is a row that says so
                return f"build: {str(exc).splitlines()[0][:200]}"
        with ThreadPoolExecutor(8) as ex:
            builds = dict(zip(chosen, ex.map(build, chosen)))
        for name in chosen:
            args, gen = SIZES[name]
            p = spec[name]
            base = roots[p.root]
            work = tmp / name
            run_dir = work / "run"
            run_dir.mkdir(parents=True, exist_ok=True)
            for f in p.files:
                (shutil.copytree if (base / f).is_dir() else shutil.copy)(base / f, run_dir / Path(f).name)
            for g in (gen if gen is not None else p.inputs):
                inputs.make(g, run_dir)
            row = {"program": name, "args": " ".join(args)}
            if isinstance(builds[name], str):
                row["error"] = builds[name]
                rows.append(row)
                print(row, flush=True)
                continue
            plain, hr = builds[name]
            ts = {"plain": [], "hirace": []}
            split: dict[str, dict[str, float]] = {}
            walls = {"plain": [], "hirace": [], "racecheck": []}
            for _ in range(repeat):
                for which, exe in (("plain", plain), ("hirace", hr)):
                    out = work / f"{which}.timer"
                    out.unlink(missing_ok=True)
                    env = {"KERNEL_TIMER_OUT": str(out)}
                    if timer:
                        env["CUDA_INJECTION64_PATH"] = str(timer)
                    if which == "hirace":
                        env[Env.HIRACE_LOG] = str(work / "hirace.jsonl")
                    r = be.run(exe, args, env=env, cwd=run_dir, timeout=900)
                    if r.returncode not in (0,):
                        row["error"] = f"{which} exit {r.returncode}: {(r.stderr or r.stdout)[-200:]}"
                    walls[which].append(r.wall_s)
                    k, ns = kernel_ns(out)
                    row[f"{which}_kernels"] = k
                    split[which] = kernel_split(out)
                    ts[which].append(ns / 1e6)
            if sanitizer:   # once, and at most RACECHECK_LIMIT seconds (it takes minutes on some)
                r = be.run(Path(sanitizer), ["--tool", "racecheck", str(plain), *args], cwd=run_dir,
                           timeout=RACECHECK_LIMIT)
                walls["racecheck"].append(r.wall_s if not r.timed_out else float("inf"))
            if ts["plain"] and statistics.median(ts["plain"]) > 0:
                row.update(plain_ms=statistics.median(ts["plain"]), hirace_ms=statistics.median(ts["hirace"]),
                           hirace_slowdown=statistics.median(ts["hirace"]) / statistics.median(ts["plain"]))
            if split.get("hirace"):   # (the last round's: checked + quiet version / plain ms, by kernel)
                row["top_kernels"] = top_kernels(split.get("plain", {}), split["hirace"])
            row["plain_wall_s"] = statistics.median(walls["plain"])
            row["hirace_wall_ratio"] = statistics.median(walls["hirace"]) / row["plain_wall_s"]
            if walls["racecheck"]:
                row["racecheck_wall_ratio"] = statistics.median(walls["racecheck"]) / row["plain_wall_s"]
            log = work / "hirace.jsonl"
            if log.is_file():
                recs = logs.read(log, HIRACE_LOG, "hirace's log")
                row["hirace_races"] = len(recs["race"])
                end = recs["end"][-1]
                if end.user_bytes:
                    row["hirace_memory_ratio"] = (end.user_bytes + end.tool_bytes) / end.user_bytes
            rows.append(row)
            print(row, flush=True)
    return rows
