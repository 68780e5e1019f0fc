"""indigo-bench sweep: every code x graph x tool, built once per code, rows journaled as they finish.

Each row still to do is one task of the execution layer (instrument/execution): it needs the
code's plain program (sequential, racecheck) or its hirace-instrumented one (hirace), built once
per host and shared by every task there, then runs one graph under one tool with
`input.egr tpb blocks`. A build that fails becomes an error row for the tools that needed it (the
note says why), so a code hirace cannot instrument is visible in every table. Locally `jobs`
tasks run at once in worker processes (instrumentation is Python work: threads would share one core);
on the gpu backend the runs take turns on the device, so that timings are not disturbed, while builds
overlap, or `share_gpu` of them run on it at once when only verdicts count; with `share_context`
each worker runs its rows in one row host (instrument/compile/row_host.py: the code built as a library,
loaded afresh for each row in a process that keeps one CUDA context), since a process per row is
bound by how fast the driver makes contexts; with `dask` they run on a Dask cluster, one task per
GPU worker.
Rows reach the journal in the order they finish, wherever they ran.
"""
from __future__ import annotations

import contextlib
import json
import platform
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from instrument.backends import get_backend
from instrument.errors import UserError
from instrument.execution.journal import campaign_lock
from instrument.extras import require
from instrument.output import atomic_write_text
from instrument.execution import BuildOutcome, Campaign, HostBuild, Task, open_executor
from instrument.progress import Progress

from . import egr, tools
from .codes import Code, discover
from .results import JOURNAL, Journal, Row, load, write_parquet
from instrument.reaper import temp_dir

META = "sweep.json"


@dataclass
class Settings:
    codes: Path
    graphs: list[Path]
    out: Path
    include: list[Path] = field(default_factory=list)
    tools: list[str] = field(default_factory=lambda: list(tools.NAMES))
    backend: str = "auto"
    tpb: int = 256
    blocks: int = 1024
    jobs: int = 1
    timeout: float = 300.0
    fmt: str = "csv"
    retry_errors: bool = False
    progress: bool = True
    quiet: bool = False      # no informational lines (warnings stay)
    verbose: bool = False    # also a line per row as it is done
    dask: str | None = None
    share_gpu: int = 1       # runs on the device at once (1: each alone, for timings)
    share_context: bool = False   # rows run in a row host (instrument/compile/row_host.py), programs built as libraries


@dataclass
class Summary:
    ran: int = 0
    skipped: int = 0
    errors: int = 0
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    stats: object = None      # instrument.execution.Stats: where the time went


def graph_files(args: list[Path]) -> list[Path]:
    """Each argument is an .egr file or a directory of them; every graph is validated first."""
    found: list[Path] = []
    for a in args:
        a = Path(a)
        if a.is_dir():
            inside = sorted(a.glob("*.egr"))
            if not inside:
                raise UserError(f"--graphs {a}: no .egr files in this directory",
                                hint="make some with `indigo-bench graphs --small -o DIR`")
            found += inside
        elif a.exists():
            found.append(a)      # egr.read refuses what is not a regular file, by name
        else:
            raise UserError(f"--graphs {a}: no such file or directory")
    names: dict[str, Path] = {}
    for g in found:
        if g.name in names and names[g.name].resolve() != g.resolve():
            raise UserError(f"two graphs are named {g.name}: {names[g.name]} and {g}",
                            hint="results are keyed by graph file name; rename one")
        names[g.name] = g
        egr.read(g)   # raises naming the file when it is malformed
    return [p.resolve() for p in names.values()]


def _device_name(backend) -> str:
    if not backend.real_device:
        return f"cpu backend on {platform.machine()} ({platform.processor() or platform.node()})"
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20)
        return out.stdout.strip().splitlines()[0]
    except (OSError, subprocess.TimeoutExpired, IndexError):
        return "gpu"


def run(s: Settings) -> Summary:
    """The sweep. Once its inputs are checked, it holds its folder's journal locked: a second sweep
    into the same folder refuses."""
    with contextlib.ExitStack() as stack:
        return _run(s, stack)


def _check_same_setup(s: Settings, backend_name: str) -> None:
    """One folder, one setup: rows of another --tpb, --blocks or backend would mix into one table."""
    for r in load(s.out):
        if (str(r.tpb), str(r.blocks), r.backend) != (str(s.tpb), str(s.blocks), backend_name):
            raise UserError(f"--out {s.out}: this folder holds a sweep with --tpb {r.tpb} --blocks {r.blocks} on "
                            f"the {r.backend} backend; this one is --tpb {s.tpb} --blocks {s.blocks} on the "
                            f"{backend_name} backend",
                            hint="give each setup its own --out folder, or rerun with the folder's settings")


def _run(s: Settings, stack: contextlib.ExitStack) -> Summary:
    t0 = time.monotonic()
    for t in s.tools:
        if t not in tools.NAMES:
            raise UserError(f"unknown tool '{t}' (choose from {', '.join(tools.NAMES)})")
    if s.tpb < 1 or s.tpb > 1024 or s.blocks < 1:
        raise UserError("--tpb must be 1..1024 and --blocks at least 1")
    if s.fmt == "parquet":
        require("indigo-bench sweep --format parquet", "parquet", "pandas", "pyarrow")
    codes, warnings = discover(s.codes)
    graphs = graph_files(s.graphs)
    backend = get_backend(s.backend)
    stack.enter_context(campaign_lock(Path(s.out) / JOURNAL, "indigo-bench sweep"))
    _check_same_setup(s, backend.name)
    summary = Summary()
    for w in warnings:
        print(f"indigo-bench: warning: {w}", file=sys.stderr)
    active = []
    for t in s.tools:
        why = tools.unavailable(t, backend)
        if why:
            summary.notes.append(why)
            print(f"indigo-bench: note: {why}", file=sys.stderr)
        else:
            active.append(t)
    finished = {r.key() for r in load(s.out) if not (s.retry_errors and r.verdict == tools.Verdict.ERROR)}
    tasks: list[Task] = []
    # codes vary fastest, so that the workers start by building different codes side by side
    # rather than waiting on one another for the same build
    for t in active:
        for g in graphs:
            for c in codes:
                if (c.name, g.name, t, backend.name, s.tpb, s.blocks) in finished:
                    summary.skipped += 1
                else:
                    tasks.append(_task(c, g, t, s, backend))
    executor = open_executor(s.dask, s.jobs, backend.name, processes=True)
    if not s.quiet:
        print(f"indigo-bench: {len(codes)} codes x {len(graphs)} graphs x {len(active)} tools on the "
              f"{backend.name} backend: {len(tasks)} runs to do, {summary.skipped} already in {s.out}; "
              f"running on {executor.description}", file=sys.stderr)
    journal = Journal(s.out)
    bar = Progress(len(tasks), "indigo-bench sweep", enabled=s.progress, unit="runs")
    by_key = {t.key: t for t in tasks}
    try:
        with Campaign(executor, "sweep") as campaign:
            for done in campaign.run(tasks, bar):
                row = done.value if done.ok else _failed_row(by_key[done.key], done.error, backend.name, s)
                journal.add(row)
                if s.verbose:
                    print(f"indigo-bench: {row.code} x {row.graph} x {row.tool}: {row.verdict} ({row.wall_s:.1f}s)"
                          + (f": {row.note}" if row.verdict == tools.Verdict.ERROR and row.note else ""),
                          file=sys.stderr, flush=True)
                summary.ran += 1
                summary.errors += row.verdict == tools.Verdict.ERROR
            summary.stats = campaign.stats
    finally:
        bar.close()
        journal.close()
        executor.close()
    summary.seconds = time.monotonic() - t0
    meta = {"codes": str(Path(s.codes).resolve()), "graphs": [str(g) for g in graphs], "tools": s.tools,
            "backend": backend.name, "device": _device_name(backend), "tpb": s.tpb, "blocks": s.blocks,
            "share_gpu": s.share_gpu, "share_context": s.share_context,
            "timeout_s": s.timeout, "notes": summary.notes, "rows_run": summary.ran,
            "rows_skipped": summary.skipped, "seconds": round(summary.seconds, 1),
            "execution": summary.stats.as_dict() if summary.stats else None}
    atomic_write_text(Path(s.out) / META, json.dumps(meta, indent=1) + "\n")
    if s.fmt == "parquet":
        write_parquet(s.out, load(s.out))
    return summary


@dataclass(frozen=True)
class RowSpec:
    """What one row runs: a code on a graph under a tool, with the sweep's launch shape."""
    code: Code
    graph: Path
    tool: str
    backend: object
    tpb: int
    blocks: int
    timeout: float


def _task(code: Code, graph: Path, tool: str, s: Settings, backend) -> Task:
    """One row: build (shared by every row of the code on the worker's host), then run."""
    t = tools.TOOLS[tool]
    library = s.share_context and t.in_row_host
    build = HostBuild(f"{_safe(code.name)}.{t.build_name}{'.lib' if library else ''}", t.build,
                      (code.path, backend, tuple(s.include), library))
    spec = RowSpec(code, graph, tool, backend, s.tpb, s.blocks, s.timeout)
    return Task(f"{code.name}|{graph.name}|{tool}", _run_row, (spec,), build, device=backend.real_device,
                device_slots=s.share_gpu)


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)


def _row(code: Code, graph: Path, tool: str, backend_name: str, tpb: int, blocks: int, out) -> Row:
    return Row(code.name, code.pattern, "+".join(code.tags), code.label, graph.name, tool, backend_name, tpb,
               blocks, out.verdict, "" if out.races is None else str(out.races), out.serial_check,
               out.exit_status, out.wall_s, "" if out.peak_mem_mib is None else str(out.peak_mem_mib), out.note)


def _failed_row(task: Task, why: str, backend_name: str, s: Settings) -> Row:
    spec: RowSpec = task.args[0]
    return _row(spec.code, spec.graph, spec.tool, backend_name, s.tpb, s.blocks,
                tools.Outcome(tools.Verdict.ERROR, None, "", -1, 0.0, None, why))


def _run_row(built: BuildOutcome, spec: RowSpec) -> Row:
    """Run one graph under one tool with the host's build; a failed build is an error row saying why."""
    if built.error is not None:
        out = tools.Outcome(tools.Verdict.ERROR, None, "", -1, 0.0, None, built.error)
    else:
        with temp_dir(prefix="indigo-bench-") as tmp:
            args = [str(spec.graph), str(spec.tpb), str(spec.blocks)]
            out = tools.TOOLS[spec.tool].run(spec.backend, built.value, args, spec.timeout, Path(tmp))
    return _row(spec.code, spec.graph, spec.tool, spec.backend.name, spec.tpb, spec.blocks, out)
