"""The `indigo-bench` command line: argument parsing only; each command lives in its own module."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from instrument.cli_support import add_backend_option, add_progress_options, show_progress
from instrument.cli_app import App
from instrument.cli_support import positive_float, positive_int
from instrument.errors import EXIT_OK, UserError
from instrument.files import Output, check_outputs
from instrument.execution import add_options

from . import __version__


def _setup_sweep(p: argparse.ArgumentParser) -> None:
    from . import tools
    p.add_argument("--codes", type=Path, required=True, metavar="DIR", help="folder of codes (one .cu each, in pattern folders)")
    p.add_argument("--include", type=Path, action="append", default=[], metavar="DIR",
                   help="include directory holding indigo_cuda.h (repeatable)")
    p.add_argument("--graphs", type=Path, nargs="+", required=True, metavar="DIR|FILE",
                   help=".egr inputs, or folders of them")
    p.add_argument("--tools", default=",".join(tools.NAMES),
                   help=f"comma-separated, from {', '.join(tools.NAMES)} (default: all)")
    add_backend_option(p, what="the codes")
    p.add_argument("--tpb", type=positive_int, default=256, help="threads per block passed to every code (256)")
    p.add_argument("--blocks", type=positive_int, default=1024, help="blocks passed to every code (1024)")
    add_options(p, "runs at once on this machine, in worker processes (default 1; builds overlap, on the gpu "
                   "backend runs take turns)")
    p.add_argument("--share-gpu", type=positive_int, default=1, metavar="N",
                   help="on the gpu backend, let N runs use the device at once: faster for verdicts, but their "
                        "times are not clean (default 1: each run alone)")
    p.add_argument("--share-context", action="store_true",
                   help="run each worker's rows in one process that keeps its CUDA context, each code built as "
                        "a library loaded afresh for every row (fresh statics and __device__ variables): for "
                        "verdicts, many times faster on a GPU; racecheck rows still run apart")
    p.add_argument("--timeout", type=positive_float, default=300.0, help="seconds per run before it is killed (300)")
    p.add_argument("--format", dest="fmt", choices=("csv", "parquet"), default="csv",
                   help="results.csv is always kept as the journal; parquet also writes results.parquet")
    p.add_argument("--retry-errors", action="store_true", help="rerun rows that ended in an error")
    add_progress_options(p, verbose="also each row as it is done: code, graph, tool, verdict and time")
    p.add_argument("--out", type=Path, required=True, metavar="DIR", help="results folder (resumable)")


def _sweep(a: argparse.Namespace, _extra) -> int:
    from . import sweep
    names = [t.strip() for t in a.tools.split(",") if t.strip()]
    check_outputs([Output("--out", a.out, "into")], inputs=[a.codes, *a.include, *a.graphs])
    s = sweep.Settings(codes=a.codes, graphs=a.graphs, out=a.out, include=a.include, tools=names,
                       backend=a.backend, tpb=a.tpb, blocks=a.blocks, jobs=a.jobs, timeout=a.timeout, dask=a.dask,
                       share_gpu=a.share_gpu, share_context=a.share_context,
                       fmt=a.fmt, retry_errors=a.retry_errors, progress=show_progress(a), quiet=a.quiet,
                       verbose=a.verbose)
    res = sweep.run(s)
    if a.quiet:
        return EXIT_OK
    if res.stats is not None and res.stats.tasks:
        print(f"indigo-bench: {res.stats.summary(res.seconds, 'runs')}", file=sys.stderr)
    print(f"indigo-bench: {res.ran} rows run ({res.errors} errors), {res.skipped} already done, "
          f"in {res.seconds:.1f}s; results in {a.out}; tables and plots: indigo-bench report --out {a.out}",
          file=sys.stderr)
    return EXIT_OK


def _setup_report(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", type=Path, required=True, metavar="DIR", help="a sweep's results folder")
    p.add_argument("--no-plot", action="store_true", help="skip the slowdown plot")
    add_progress_options(p, progress=False, quiet="print the tables only, not where the files were written")


def _report(a: argparse.Namespace, _extra) -> int:
    from instrument.extras import require
    require("indigo-bench report", "report", "pandas", *(() if a.no_plot else ("matplotlib",)))
    from . import report
    check_outputs([Output("--out", a.out, "into")])
    text, written = report.write(a.out, plot=not a.no_plot)
    sys.stdout.write(text if a.quiet else text + written)
    return EXIT_OK


def _setup_graphs(p: argparse.ArgumentParser) -> None:
    from . import graphs
    p.add_argument("--small", action="store_true",
                   help="write the six small inputs of the HiRace evaluation into the folder -o names")
    p.add_argument("--kind", choices=graphs.KINDS, help="the kind of graph to generate (with --nodes)")
    p.add_argument("--nodes", type=positive_int, help="nodes of the generated graph")
    p.add_argument("--edges", type=positive_int, help="CSR entries (directed edges; even for symmetric kinds)")
    p.add_argument("--seed", type=int, default=1, help="seed of the generator: one seed, one graph (1)")
    p.add_argument("-o", "--output", type=Path, required=True, metavar="F.egr|DIR",
                   help="the .egr file to write, or with --small the folder for the six inputs")
    add_progress_options(p, progress=False, quiet="no line per graph written (its size and degrees)")


def _graphs(a: argparse.Namespace, _extra) -> int:
    from . import egr, graphs
    check_outputs([Output("-o", a.output, "into" if a.small else "file")])
    if a.small:
        if a.kind or a.nodes:
            raise UserError("--small makes the six standard inputs; leave out --kind and --nodes")
        a.output.mkdir(parents=True, exist_ok=True)
        for spec in graphs.SMALL:
            g = graphs.generate(spec)
            egr.write(a.output / spec.file_name(), g)
            if not a.quiet:
                print(f"{a.output / spec.file_name()}: {g.nodes} nodes, {g.edges} edges")
        return EXIT_OK
    if not a.kind or a.nodes is None:
        raise UserError("give --kind and --nodes (and --edges), or --small")
    if a.output.suffix != ".egr":
        raise UserError(f"-o {a.output}: the output file should end in .egr")
    g = graphs.generate(graphs.Spec(a.kind, a.nodes, a.edges, a.seed))
    egr.write(a.output, g)
    if a.quiet:
        return EXIT_OK
    deg = g.degrees()
    print(f"{a.output}: {g.nodes} nodes, {g.edges} edges, degree max {int(deg.max())} "
          f"mean {deg.mean():.2f}")
    return EXIT_OK


def build_app() -> App:
    app = App("indigo-bench", "Sweep race checkers over Indigo-style labelled CUDA codes and report found, "
              "missed and false alarms.", __version__)
    app.command("sweep", "run every code x graph under each tool; one result row each (resumable)",
                _setup_sweep, _sweep)
    app.command("report", "Table II (found / missed / false alarms), slowdown plot and breakdowns of a sweep",
                _setup_report, _report)
    app.command("graphs", "generate ECLgraph (.egr) inputs: the six small ones, or any kind and size",
                _setup_graphs, _graphs)
    return app


def main(argv: list[str] | None = None) -> int:
    return build_app().main(argv)


if __name__ == "__main__":
    sys.exit(main())
