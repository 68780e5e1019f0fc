"""`hirace run` and `hirace instrument`: argument handling only."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from instrument.backends import NAMES
from instrument.cli_support import exit_code, positive_float
from instrument.errors import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, UserError
from instrument.files import Output, check_outputs, check_sources
from instrument.output import atomic_write_text

from . import config as config_mod
from .results import unmatched_range

FORMATS = ("json", "sarif", "text")


def _renderer(fmt: str):
    # imported here so that `hirace --help` needs neither libclang nor the reporters
    from . import report_json, report_sarif, report_text
    return {"text": report_text.render, "json": report_json.render, "sarif": report_sarif.render}[fmt]


def _common(p: argparse.ArgumentParser, sources: str = "+") -> None:
    p.add_argument("--config", metavar="hirace.toml",
                   help="what to check (default: hirace.toml, or [tool.hirace] in pyproject.toml, in this "
                        "directory or the nearest one above)")
    p.add_argument("-I", dest="include", action="append", default=[], metavar="DIR")
    p.add_argument("-D", dest="define", action="append", default=[], metavar="NAME[=VALUE]")
    p.add_argument("-p", dest="build_db", type=Path, metavar="BUILD",
                   help="take each source's -I, -isystem and -D from BUILD/compile_commands.json (as clang tools "
                        "do); without sources, every CUDA unit it lists")
    p.add_argument("sources", nargs=sources, type=Path, metavar="prog.cu")


def setup_run(p: argparse.ArgumentParser) -> None:
    p.add_argument("--backend", choices=NAMES, default="auto")
    p.add_argument("--format", choices=FORMATS, default="text")
    p.add_argument("--output", metavar="FILE", help="write the report here instead of stderr")
    p.add_argument("--timeout", type=positive_float, default=config_mod.TIMEOUT,
                   help="seconds before the run is killed (default %(default)s)")
    p.add_argument("--error-exitcode", type=exit_code, default=EXIT_FINDINGS, metavar="N",
                   help="exit status when races or out-of-bounds accesses are found (default %(default)s)")
    # (no default of their own: hirace.toml's key, whose default is config.Config's, unless given)
    p.add_argument("--prior-sites", action=argparse.BooleanOptionalAction, default=None,
                   help="name the earlier access of each race too (--no-prior-sites saves 16 bytes per shadow "
                        "word, and the report then names one access; default: hirace.toml's prior_sites, "
                        f"{config_mod.default_text('prior_sites')} unless set)")
    p.add_argument("--quiet-reads", action=argparse.BooleanOptionalAction, default=None,
                   help="check only the bounds of accesses that cannot race: shared reads in write-free "
                        "__syncthreads intervals, each thread's own shared word, reads through read-only "
                        "kernel parameters (--no-quiet-reads checks every access whole; default: hirace.toml's "
                        f"quiet_reads, {config_mod.default_text('quiet_reads')} unless set)")
    p.add_argument("--sites-ran", action=argparse.BooleanOptionalAction, default=None,
                   help="on the gpu backend too, record which sites ran, so that the report names those that "
                        "never ran on this input (the cpu backend always does; on the GPU it costs a flag per "
                        f"access; default: hirace.toml's sites_ran, {config_mod.default_text('sites_ran')} unless set)")
    p.add_argument("--allow-unchecked", action="store_true",
                   help="with -- COMMAND: a command under which no instrumented kernel ran exits 0, not 2")
    _common(p, sources="*")
    p.epilog = ("hirace run [options] -- COMMAND ARGS...: run any command (a program built through hirace-cc, "
                "ctest, make run, a script) and report what every instrumented process it starts found")


def _verdict(res, error_exitcode: int) -> int:
    if res.races or res.memory_errors:
        return error_exitcode
    if res.program_exit != 0:
        return EXIT_ERROR   # a failing program is never a pass, even with no race
    return EXIT_OK


def _report(a: argparse.Namespace, res, status: int) -> None:
    if a.format == "sarif":
        from . import report_sarif
        text = report_sarif.render(res, status)
    else:
        text = _renderer(a.format)(res)
    if a.output:
        atomic_write_text(a.output, text)
        sup = f", {len(res.suppressed)} suppressed" if res.suppressed else ""
        print(f"hirace: {len(res.races)} race(s), {len(res.memory_errors)} out-of-bounds site(s){sup}; report "
              f"written to {a.output}", file=sys.stderr)
    else:
        sys.stderr.write(text)


def _report_failure(a: argparse.Namespace, exc: UserError) -> None:
    """A run with a report file that ended in an error (a build, the program, a timeout) still writes
    one, which says so: a CI step or script reading it never finds a stale or missing file."""
    if not a.output or a.format == "text":
        return
    if a.format == "sarif":
        from . import report_sarif
        atomic_write_text(a.output, report_sarif.render_failure(str(exc), EXIT_ERROR))
    elif a.format == "json":
        from . import report_json
        atomic_write_text(a.output, report_json.render_failure(str(exc), EXIT_ERROR))


def do_command(a: argparse.Namespace, command: list[str]) -> int:
    """hirace run -- COMMAND: the command as it is, its instrumented processes' reports merged."""
    from . import runner
    config = a.config or config_mod.discover(Path.cwd())
    check_outputs([Output("--output", a.output)], inputs=[config] if config else [])
    if a.include or a.define:
        raise UserError("-I and -D apply to sources hirace builds; a command's programs are built by their own "
                        "build (through hirace-cc)", hint="drop them, or give the sources: hirace run prog.cu -- ARGS")
    cfg = config_mod.load(config)
    if a.prior_sites is not None:
        cfg.prior_sites = a.prior_sites
    try:
        run = runner.run_command(command, cfg, a.timeout)
    except UserError as exc:
        _report_failure(a, exc)
        raise
    res = run.report
    if run.lost:
        res.warnings.append(f"{run.lost} process(es) began hirace's log and never finished it (killed or crashed "
                            f"while exiting): what they found is not in this report")
    status = _verdict(res, a.error_exitcode)
    unmatched = unmatched_range(res, cfg.blocks, cfg.threads)
    if unmatched:
        res.warnings.append(unmatched)
    unchecked = res.launches == 0
    if unchecked:
        what = ("no process it started was built through hirace-cc" if run.processes == 0 else
                f"{run.processes} instrumented process(es) ran and launched no kernel")
        res.warnings.append(f"nothing was checked: {what}")
    _report(a, res, status)
    if status == EXIT_ERROR:
        print(f"hirace: error: the command exited with status {res.program_exit} (no race was found in what "
              f"ran, but the command failed)", file=sys.stderr)
    elif unchecked and not a.allow_unchecked:
        print("hirace: error: no instrumented kernel ran under the command, so nothing was checked: build the "
              "program through hirace-cc (CMake: -DCMAKE_CUDA_COMPILER_LAUNCHER=hirace-cc; Make: "
              "NVCC=\"hirace-cc nvcc\"), or pass --allow-unchecked", file=sys.stderr)
        return EXIT_ERROR
    elif unmatched and status == EXIT_OK:
        return _nothing_checked(cfg)
    return status


def _from_database(a: argparse.Namespace) -> None:
    """-p BUILD: the sources (default: the database's CUDA units) with the flags it gives them,
    before those of the command line."""
    if a.build_db is None:
        return
    from instrument.compile import compile_db
    sources, dirs, defines = compile_db.flags_for(compile_db.read(a.build_db), a.sources, a.build_db)
    a.sources, a.include, a.define = sources, [*dirs, *a.include], [*defines, *a.define]


def do_run(a: argparse.Namespace, prog_args: list[str]) -> int:
    from . import runner
    _from_database(a)
    if not a.sources:
        if not prog_args:
            raise UserError("nothing to run", hint="hirace run prog.cu [-- ARGS], or hirace run -- COMMAND ARGS")
        return do_command(a, prog_args)
    check_sources(a.sources)
    config = a.config or config_mod.discover(Path.cwd())
    check_outputs([Output("--output", a.output)], inputs=[*a.sources, config])
    cfg = config_mod.load(config)
    try:
        if a.sites_ran is not None:
            cfg.sites_ran = a.sites_ran
        res = runner.run(a.sources, a.backend, cfg, prog_args, a.include, a.define, a.timeout,
                         prior_sites=a.prior_sites, quiet_reads=a.quiet_reads)
    except UserError as exc:
        _report_failure(a, exc)
        raise
    status = _verdict(res, a.error_exitcode)
    unmatched = unmatched_range(res, cfg.blocks, cfg.threads)
    if unmatched:
        res.warnings.append(unmatched)
    _report(a, res, status)
    if status == EXIT_ERROR:
        print(f"hirace: error: the program exited with status {res.program_exit} (no race was found in "
              f"what ran, but the run failed)", file=sys.stderr)
    elif unmatched and status == EXIT_OK:
        return _nothing_checked(cfg)
    return status


def _nothing_checked(cfg) -> int:
    where = cfg.source or "hirace.toml"
    print(f"hirace: error: the 'blocks'/'threads' range of {where} matched no thread of any launch, so nothing was "
          f"checked: widen it, or remove it to check every thread", file=sys.stderr)
    return EXIT_ERROR


def setup_instrument(p: argparse.ArgumentParser) -> None:
    p.add_argument("-o", "--out", type=Path, default=Path("hirace-out"),
                   help="directory for the instrumented sources (default hirace-out)")
    p.add_argument("--cpu", action="store_true", help="also lower for the cpu backend (g++)")
    _common(p, sources="*")


def sources_and_config(a: argparse.Namespace, command: str, outputs: list[Output]):
    """The sources of a command that reads them as `hirace instrument` does (given, or from -p BUILD),
    checked, with the outputs checked against every input, and the configuration loaded."""
    _from_database(a)
    if not a.sources:
        raise UserError(f"no source to {command}", hint=f"hirace {command} prog.cu, or -p BUILD for the CUDA units "
                                                        f"of BUILD/compile_commands.json")
    check_sources(a.sources)
    config = a.config or config_mod.discover(Path.cwd())
    check_outputs(outputs, inputs=[*a.sources, config, *a.include])
    return config_mod.load(config)


def do_instrument(a: argparse.Namespace, _extra) -> int:
    from runtime import include_dir

    from . import runner
    cfg = sources_and_config(a, "instrument", [Output("-o", a.out, "dir")])
    ins = runner.instrument(a.sources, a.out, cfg, a.include, a.define, lower_cpu=a.cpu)
    planner = ins.planner
    for w in ins.warnings:
        print(f"hirace: warning: {w}", file=sys.stderr)
    cannot = f"{planner.bounds_only} of them only bounds-checked where they cannot race; " \
        if planner.bounds_only else ""
    print(f"hirace: instrumented {len(planner.sites)} sites into {a.out} "
          f"({cannot}site table: {a.out / 'hirace_sites.json'}); build with -I {include_dir()} "
          + " ".join(f"-D{d}" for d in planner.defines()))
    return EXIT_OK
