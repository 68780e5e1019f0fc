"""indigo-bench sweep: every code x graph x tool, built once per code, rows journaled as they finish.

For each code with rows still to do: build the plain program (sequential, racecheck) and the
hirace-instrumented one (hirace) in a scratch directory, then run each graph under each tool
with `input.egr tpb blocks`. A build that fails becomes an error row for the tools that needed
it (the note says why), so a code hirace cannot instrument is visible in every table.
Codes are processed `jobs` at a time; on the gpu backend the runs themselves take turns (one
process on the device at a time) so that the timings are not disturbed, while builds overlap.
"""
from __future__ import annotations

import contextlib
import json
import platform
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from instrument.backends import get_backend
from instrument.errors import UserError
from instrument.output import atomic_write_text
from instrument.parallel import parallel_map
from instrument.pipeline import build as build_plain
from instrument.progress import Progress

from . import egr, tools
from .codes import Code, discover
from .results import Journal, Row, load, write_parquet

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


@dataclass
class Summary:
    ran: int = 0
    skipped: int = 0
    errors: int = 0
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0


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
        elif a.is_file():
            found.append(a)
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
    if backend.name != "gpu":
        return f"cpu backend on {platform.machine()} ({platform.processor() or platform.node()})"
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20)
        return out.stdout.strip().splitlines()[0]
    except (OSError, subprocess.TimeoutExpired, IndexError):
        return "gpu"


def run(s: Settings) -> Summary:
    t0 = time.monotonic()
    for t in s.tools:
        if t not in tools.NAMES:
            raise UserError(f"unknown tool '{t}' (choose from {', '.join(tools.NAMES)})")
    if s.tpb < 1 or s.tpb > 1024 or s.blocks < 1:
        raise UserError("--tpb must be 1..1024 and --blocks at least 1")
    if s.fmt == "parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise UserError("--format parquet needs pyarrow", hint="pip install pyarrow, or use --format csv") from None
    codes, warnings = discover(s.codes)
    graphs = graph_files(s.graphs)
    backend = get_backend(s.backend)
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
    finished = {r.key() for r in load(s.out) if not (s.retry_errors and r.verdict == "error")}
    work: list[tuple[Code, list[tuple[Path, str]]]] = []
    for c in codes:
        todo = [(g, t) for g in graphs for t in active
                if (c.name, g.name, t, backend.name, s.tpb, s.blocks) not in finished]
        summary.skipped += len(graphs) * len(active) - len(todo)
        if todo:
            work.append((c, todo))
    total = sum(len(todo) for _, todo in work)
    print(f"indigo-bench: {len(codes)} codes x {len(graphs)} graphs x {len(active)} tools on the "
          f"{backend.name} backend: {total} runs to do, {summary.skipped} already in {s.out}", file=sys.stderr)
    journal = Journal(s.out)
    bar = Progress(total, "runs", enabled=s.progress)
    device_turn = threading.Lock() if backend.name == "gpu" else contextlib.nullcontext()
    counts_lock = threading.Lock()

    def one_code(item) -> None:
        code, todo = item
        rows = _sweep_code(code, todo, s, backend, device_turn)
        for row in rows:
            journal.add(row)
            with counts_lock:
                summary.ran += 1
                summary.errors += row.verdict == "error"
            bar.step()
            bar.note(code.name)

    try:
        parallel_map(one_code, work, s.jobs)
    finally:
        bar.close()
        journal.close()
    summary.seconds = time.monotonic() - t0
    meta = {"codes": str(Path(s.codes).resolve()), "graphs": [str(g) for g in graphs], "tools": s.tools,
            "backend": backend.name, "device": _device_name(backend), "tpb": s.tpb, "blocks": s.blocks,
            "timeout_s": s.timeout, "notes": summary.notes, "rows_run": summary.ran,
            "rows_skipped": summary.skipped, "seconds": round(summary.seconds, 1)}
    atomic_write_text(Path(s.out) / META, json.dumps(meta, indent=1) + "\n")
    if s.fmt == "parquet":
        write_parquet(s.out, load(s.out))
    return summary


def _sweep_code(code: Code, todo, s: Settings, backend, device_turn) -> list[Row]:
    """Build what `todo` needs for this code, then run it; rows in `todo` order."""
    from hirace import runner
    from hirace.config import Config

    needs = {t for _, t in todo}
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="indigo-bench-") as tmp:
        work = Path(tmp)
        plain = hirace_built = None
        build_error: dict[str, str] = {}
        if needs & {"sequential", "racecheck"}:
            try:
                plain = build_plain([code.path], backend, work / "plain", include_dirs=s.include).exe
            except UserError as e:
                build_error["plain"] = f"build failed: {e.message}"
        config = Config()
        if "hirace" in needs:
            try:
                hirace_built = runner.build([code.path], backend, work / "hirace", config, s.include)
            except UserError as e:
                build_error["hirace"] = f"hirace could not instrument or build the code: {e.message}"
        for graph, tool in todo:
            args = [str(graph), str(s.tpb), str(s.blocks)]
            which = "hirace" if tool == "hirace" else "plain"
            if which in build_error:
                out = tools.Outcome("error", None, "", -1, 0.0, None, build_error[which])
            else:
                with device_turn:
                    out = _run_tool(tool, backend, plain, hirace_built, config, args, s.timeout, work)
            rows.append(Row(code.name, code.pattern, "+".join(code.tags), code.label, graph.name, tool,
                            backend.name, s.tpb, s.blocks, out.verdict,
                            "" if out.races is None else str(out.races), out.serial_check, out.exit_status,
                            out.wall_s, "" if out.peak_mem_mib is None else str(out.peak_mem_mib), out.note))
    return rows


def _run_tool(tool, backend, plain, hirace_built, config, args, timeout, cwd):
    from hirace import runner

    if tool == "hirace":
        res, races = runner.execute(hirace_built, config, args, timeout, cwd=cwd, measure_memory=True)
        return tools.hirace(res, races, backend)
    if tool == "racecheck":
        from instrument.backends import run_process
        res = run_process(tools.racecheck_command(plain) + args, timeout=timeout, cwd=cwd, measure_memory=True)
        return tools.racecheck(res, backend)
    res = backend.run(plain, args, timeout=timeout, cwd=cwd, measure_memory=True)
    return tools.sequential(res, backend)
