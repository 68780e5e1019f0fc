"""`hirace selftest`: generate race-free programs, check the oracles on this machine's compiler and
backend, print a pass/fail table; failing programs are saved with their seeds."""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from instrument.cli_support import add_backend_option, add_progress_options, show_progress
from instrument.backends import get_backend
from instrument.errors import EXIT_FINDINGS, EXIT_OK, UserError
from instrument.execution import Campaign, Task, add_options, open_executor
from instrument.output import atomic_write_text
from instrument.cli_support import positive_float, positive_int
from instrument.files import Output, check_outputs
from instrument.progress import Progress
from instrument.reaper import temp_dir


def setup(p: argparse.ArgumentParser) -> None:
    p.add_argument("--programs", type=positive_int, default=20, help="how many programs to generate (20)")
    p.add_argument("--seed", type=int, default=1, help="seed of the first program; program i has seed+i (1)")
    add_backend_option(p, what="the generated programs")
    p.add_argument("--batch", type=positive_int, default=10, help="programs built together as one translation unit (10)")
    add_options(p, "batches checked at once on this machine (default 1)")
    p.add_argument("--kernels", type=positive_int, default=2, help="kernels per program (2)")
    p.add_argument("--statements", type=positive_int, default=10, help="top-level statements per kernel (10)")
    p.add_argument("--blocks", type=positive_int, default=4, help="blocks per launch (4)")
    p.add_argument("--threads", type=positive_int, default=64, help="threads per block: a power of two >= 32 (64)")
    p.add_argument("--no-barrier", action="store_true", help="no shared-memory phases")
    p.add_argument("--no-warp", action="store_true", help="no warp phases")
    p.add_argument("--no-tiles", action="store_true", help="no warp phases within tiles of a warp (__syncwarp(mask))")
    p.add_argument("--no-atomic", action="store_true", help="no atomic sections")
    p.add_argument("--timeout", type=positive_float, default=120.0, help="seconds per run (120)")
    p.add_argument("--save", type=Path, default=Path("hirace-selftest-failures"),
                   help="where failing programs are saved (only when something fails)")
    p.add_argument("--json", type=Path, metavar="FILE", help="also write the results as JSON")
    add_progress_options(p, verbose="also the campaign's statistics and every failure (by default the first 20)")


def run(a: argparse.Namespace, _extra) -> int:
    from .generate import Options
    from .oracles import DESCRIPTIONS, ORACLES, Checker, program_files

    if a.programs < 1 or a.batch < 1:
        raise UserError("--programs and --batch must be at least 1")
    if a.threads < 32 or a.threads & (a.threads - 1) or a.threads > 1024:
        raise UserError("--threads must be a power of two from 32 to 1024")
    opts = Options(kernels=a.kernels, blocks=a.blocks, threads=a.threads, statements=a.statements,
                   barrier=not a.no_barrier, warp=not a.no_warp, atomic=not a.no_atomic,
                   tiles=not a.no_tiles)
    check_outputs([Output("--json", a.json), Output("--save", a.save, "into")])
    backend = get_backend(a.backend)
    checker = Checker(backend, opts, timeout=a.timeout)
    seeds = list(range(a.seed, a.seed + a.programs))
    batches = [seeds[i:i + a.batch] for i in range(0, len(seeds), a.batch)]
    bar = Progress(len(seeds), "hirace selftest", enabled=show_progress(a), unit="programs")
    t0 = time.monotonic()
    # local processes, not threads: parsing and planning are Python work that a thread pool
    # would serialise on the interpreter lock
    executor = open_executor(a.dask, a.jobs, backend.name, processes=True)
    results = []
    try:
        with Campaign(executor, "selftest") as campaign:
            tasks = [Task(str(i), _check_batch, (checker, batch)) for i, batch in enumerate(batches)]
            for d in campaign.run(tasks):
                if not d.ok:
                    raise UserError(f"checking seeds {batches[int(d.key)][0]}..{batches[int(d.key)][-1]} "
                                    f"failed: {d.error}")
                results.append(d.value)
                bar.step(len(batches[int(d.key)]))
            stats = campaign.stats
    finally:
        bar.close()
        executor.close()
    seconds = time.monotonic() - t0
    if a.dask or a.jobs > 1 or a.verbose:
        if not a.quiet:
            print(f"hirace selftest: {stats.summary(seconds, 'batches')}", file=sys.stderr)
    merged: dict[str, dict[int, str]] = {o: {} for o in ORACLES}
    for r in results:
        for oracle, per in r.outcome.items():
            merged[oracle].update(per)
    failures = {(o, s): why for o, per in merged.items() for s, why in per.items() if why not in ("", "n/a")}
    print(_table(merged, DESCRIPTIONS, ORACLES, seeds, backend.name, seconds))
    if failures:
        files: dict[str, str] = {}
        lines = []
        for (oracle, seed), why in sorted(failures.items(), key=lambda x: (x[0][1], x[0][0])):
            files.update(program_files(seed, opts))
            lines.append(f"seed {seed}: {oracle}: {why}")
        repro = (f"reproduce one: hirace selftest --programs 1 --seed SEED --backend {backend.name} --kernels "
                 f"{a.kernels} --statements {a.statements} --blocks {a.blocks} --threads {a.threads}"
                 + (" --no-barrier" if a.no_barrier else "") + (" --no-warp" if a.no_warp else "")
                 + (" --no-atomic" if a.no_atomic else ""))
        files["failures.txt"] = "\n".join(lines + ["", repro]) + "\n"
        from instrument.output import write_report_dir
        write_report_dir(a.save, files)
        for ln in lines if a.verbose else lines[:20]:
            print(f"FAIL {ln}")
        print(f"{len(failures)} failure(s); the programs are saved in {a.save}/ ({repro})")
    if a.json:
        data = {"backend": backend.name, "seeds": [seeds[0], seeds[-1]], "seconds": round(seconds, 1),
                "oracles": {o: {str(s): why for s, why in sorted(per.items())} for o, per in merged.items()}}
        atomic_write_text(a.json, json.dumps(data, indent=1) + "\n")
    return EXIT_FINDINGS if failures else EXIT_OK


def _check_batch(_built, checker, batch: list[int]):
    with temp_dir(prefix="hirace-selftest-") as tmp:
        return checker.check(batch, Path(tmp) / "batch")


def _table(merged, descriptions, oracles, seeds, backend: str, seconds: float) -> str:
    lines = [f"hirace selftest: {len(seeds)} generated programs (seeds {seeds[0]}..{seeds[-1]}) on the "
             f"{backend} backend, {seconds:.0f}s",
             f"{'oracle':<14} {'what must hold':<52} {'checked':>7} {'passed':>6} {'failed':>6} {'n/a':>4}"]
    for o in oracles:
        per = merged.get(o, {})
        na = sum(1 for w in per.values() if w == "n/a")
        passed = sum(1 for w in per.values() if w == "")
        failed = len(per) - na - passed
        lines.append(f"{o:<14} {descriptions[o]:<52} {len(per) - na:>7} {passed:>6} {failed:>6} {na:>4}")
    return "\n".join(lines)
