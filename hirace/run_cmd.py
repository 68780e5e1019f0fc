"""`hirace run` and `hirace instrument`: argument handling only (what a run writes: run_outputs.py;
what it was given, checked: run_inputs.py)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from instrument.cli_support import (add_backend_option, add_progress_options, add_verbosity_options, count, exit_code,
                                    name_list, positive_float)
from instrument.errors import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, UserError
from instrument.files import Output, check_outputs, check_sources

from . import config as config_mod
from .results import unmatched_range

FORMATS = ("json", "sarif", "text")
BACKEND_VARIABLE = "HIRACE_BACKEND"   # (hirace/cc.py's: the backend hirace-cc builds for)


def _common(p: argparse.ArgumentParser, sources: str = "+") -> None:
    p.add_argument("--config", metavar="hirace.toml",
                   help="what to check (default: hirace.toml, or [tool.hirace] in pyproject.toml, in this "
                        "directory or the nearest one above)")
    p.add_argument("-I", dest="include", action="append", default=[], metavar="DIR",
                   help="a directory of the program's headers (as the compiler's -I; each must exist)")
    p.add_argument("-D", dest="define", action="append", default=[], metavar="NAME[=VALUE]",
                   help="a macro the program is built with (as the compiler's -D)")
    p.add_argument("-p", dest="build_db", type=Path, metavar="BUILD",
                   help="take each source's -I, -isystem and -D from BUILD/compile_commands.json (as clang tools "
                        "do); without sources, every CUDA unit it lists")
    p.add_argument("sources", nargs=sources, type=Path, metavar="prog.cu",
                   help="the program's sources (.cu, and the .cpp files of its host code)")


def setup_run(p: argparse.ArgumentParser) -> None:
    add_backend_option(p, None, f"${BACKEND_VARIABLE}, else auto", "the sources")
    p.add_argument("--format", choices=FORMATS, default="text", help="the report's format (default %(default)s)")
    p.add_argument("--output", metavar="FILE", help="write the report here instead of stderr")
    p.add_argument("--junit", metavar="FILE",
                   help="also write a JUnit XML file: a test case per kernel, a failure per race or out-of-bounds "
                        "site (CI test reporters: GitLab, Jenkins, GitHub's test-report actions)")
    p.add_argument("--github", action=argparse.BooleanOptionalAction, default=None,
                   help="under GitHub Actions (GITHUB_ACTIONS=true), print an ::error annotation for each finding "
                        "and append a summary to $GITHUB_STEP_SUMMARY (default: hirace.toml's github, "
                        f"{config_mod.default_text('github')} unless set; --no-github: neither)")
    p.add_argument("--timeout", type=positive_float, default=config_mod.TIMEOUT, metavar="S",
                   help="seconds before the run is killed (default %(default)s)")
    p.add_argument("--error-exitcode", type=exit_code, default=EXIT_FINDINGS, metavar="N",
                   help="exit status when races or out-of-bounds accesses are found (default %(default)s; 0: report "
                        "only, as compute-sanitizer's default; a failure of the tool, the build or the program is "
                        "still 2)")
    p.add_argument("--kernel-name", type=name_list, action="extend", default=None, metavar="NAME[,NAME]",
                   help="check only launches of these kernels (default: hirace.toml's kernels, every kernel "
                        "unless set)")
    p.add_argument("--kernel-name-exclude", type=name_list, action="extend", default=None, metavar="NAME[,NAME]",
                   help="never check launches of these kernels, even those --kernel-name names (default: "
                        "hirace.toml's kernels_exclude)")
    p.add_argument("--print-limit", type=count, default=None, metavar="N",
                   help="print at most N findings in the text report and count the rest (JSON, SARIF and JUnit "
                        "hold every finding; default: hirace.toml's print_limit, 0: all, unless set)")
    # (no default of their own: hirace.toml's key, whose default is config.Config's, unless given)
    p.add_argument("--prior-sites", action=argparse.BooleanOptionalAction, default=None,
                   help="name the earlier access of each race too (--no-prior-sites saves 16 bytes per shadow "
                        "word, and the report then names one access; default: hirace.toml's prior_sites, "
                        f"{config_mod.default_text('prior_sites')} unless set)")
    p.add_argument("--sites-budget", type=count, default=None, metavar="N",
                   help="keep a buffer's prior sites only while hirace's device memory stays within N times the "
                        "program's (or the prior sites within 1 MiB); a buffer a race was found in gets them anyway, "
                        "so the next launch that races there names both accesses (0: no limit; default: hirace.toml's "
                        f"sites_budget, {config_mod.default_text('sites_budget')} unless set)")
    p.add_argument("--quiet-reads", action=argparse.BooleanOptionalAction, default=None,
                   help="check only the bounds of accesses that cannot race: shared reads in write-free "
                        "__syncthreads intervals, each thread's own shared word, reads through read-only "
                        "kernel parameters (--no-quiet-reads checks every access whole; default: hirace.toml's "
                        f"quiet_reads, {config_mod.default_text('quiet_reads')} unless set)")
    p.add_argument("--sites-ran", action=argparse.BooleanOptionalAction, default=None,
                   help="on the gpu backend too, record which sites ran, so that the report names those that "
                        "never ran on this input (the cpu backend always does; on the GPU it costs a flag per "
                        f"access; default: hirace.toml's sites_ran, {config_mod.default_text('sites_ran')} unless set)")
    p.add_argument("--gpu-streams", action=argparse.BooleanOptionalAction, default=None,
                   help="on the gpu backend too, check races between operations the host does not order (streams, "
                        "events, asynchronous copies): every launch of such a program is waited for and its footprint "
                        "read back, which costs much more than the checks inside kernels (the cpu backend always "
                        f"checks them; default: hirace.toml's gpu_streams, {config_mod.default_text('gpu_streams')} unless set)")
    p.add_argument("--granularity", type=int, choices=(0, 1, 2, 4, 8), default=None, metavar="BYTES",
                   help="bytes covered by one shadow word, for every buffer: 1, 2, 4 or 8 (8 takes half the shadow "
                        "memory of 4; 0: per buffer, the narrowest access that reaches it; default: hirace.toml's granularity, "
                        f"{config_mod.default_text('granularity')} unless set; sources hirace builds only)")
    p.add_argument("--root", metavar="DIR",
                   help="every report (text, JSON, SARIF, JUnit, the annotations' text) names files relative to DIR, "
                        "and those outside it by their absolute paths (default: hirace.toml's root, else the git work "
                        "tree holding the first source, with -- COMMAND the current directory's; else the current "
                        "directory)")
    p.add_argument("--no-build-cache", dest="build_cache", action="store_false",
                   help="compile the instrumented program even when the build cache holds it (the cache: "
                        "$CCTK_BUILD_CACHE, else $XDG_CACHE_HOME/cuda-correctness-toolkit/builds; "
                        "CCTK_BUILD_CACHE=off: never used)")
    p.add_argument("--allow-unchecked", action="store_true",
                   help="with -- COMMAND: a command under which no instrumented kernel ran exits 0, not 2")
    add_verbosity_options(p, quiet="print only the findings, the verdict line and errors",
                          verbose="also print the backend, the build commands and each launch's counts")
    _common(p, sources="*")
    p.epilog = ("hirace run [options] prog.cu [more.cu ...] [-- ARGS...]: build the sources and run the program "
                "with ARGS; hirace run [options] -- COMMAND ARGS...: run any command (a program built through "
                "hirace-cc, ctest, make run, a script) and report what every instrumented process it starts found")


# the command line's options that set hirace.toml's keys (the command line wins)
_KEYS = {"kernel_name": ("kernels", "--kernel-name"), "kernel_name_exclude": ("kernels_exclude", "--kernel-name-exclude"),
         "print_limit": ("print_limit", "--print-limit"), "github": ("github", "--github"),
         "prior_sites": ("prior_sites", "--prior-sites"),
         "sites_budget": ("sites_budget", "--sites-budget"), "quiet_reads": ("quiet_reads", "--quiet-reads"),
         "sites_ran": ("sites_ran", "--sites-ran"), "granularity": ("granularity", "--granularity"),
         "gpu_streams": ("gpu_streams", "--gpu-streams"),
         "root": ("root", "--root")}


def _configuration(a: argparse.Namespace, config):
    cfg = config_mod.load(config)
    for dest, (key, option) in _KEYS.items():
        config_mod.override(cfg, key, getattr(a, dest), option)
    return cfg


def _outputs(a: argparse.Namespace, cfg, program: str, measured: Path):
    """What the run writes; its reports name files from --root (or the `root` key), by default the git
    work tree holding `measured` (the first source, or the current directory for a command)."""
    from instrument.report_paths import report_paths

    from . import report_github
    from .run_outputs import Outputs
    paths = report_paths(cfg.root, measured, cfg.given.get("root") or f"{cfg.source or 'hirace.toml'}: 'root'")
    return Outputs(a.format, a.output, a.junit, cfg.github and report_github.active(), cfg.print_limit,
                   a.quiet, a.verbose, Path(program).stem or Path(program).name, paths)


def _verdict(res, error_exitcode: int) -> int:
    if res.findings():
        # report only (0) never hides a failing program
        return EXIT_ERROR if error_exitcode == EXIT_OK and res.program_exit != 0 else error_exitcode
    if res.program_exit != 0:
        return EXIT_ERROR   # a failing program is never a pass, even with no race
    return EXIT_OK


def _failure(res, status: int, what: str) -> str | None:
    """Why a run that ran is still exit 2: its program failed."""
    if status != EXIT_ERROR or res.program_exit == 0:
        return None
    found = "no race was found in what ran, but" if not res.findings() else "besides what was found,"
    return f"the {what} exited with status {res.program_exit} ({found} the {'run' if what == 'program' else what} failed)"


def _finish(out, res, cfg, status: int, error: str | None) -> int:
    """Write every output of a run that produced a report, and say why it failed where it did."""
    unmatched = unmatched_range(res, cfg.blocks, cfg.threads)
    if unmatched:
        res.warnings.append(unmatched)
        if status == EXIT_OK and error is None:
            where = cfg.source or "hirace.toml"
            error = (f"the 'blocks'/'threads' range of {where} matched no thread of any launch, so nothing was "
                     f"checked: widen it, or remove it to check every thread")
    if error is not None:
        status = EXIT_ERROR
    out.finished(res, status, error)
    if error is not None:
        print(f"hirace: error: {error}", file=sys.stderr)
    return status


def do_command(a: argparse.Namespace, command: list[str]) -> int:
    """hirace run -- COMMAND: the command as it is, its instrumented processes' reports merged."""
    from . import runner
    config = a.config or config_mod.discover(Path.cwd())
    check_outputs([Output("--output", a.output), Output("--junit", a.junit)], inputs=[config] if config else [])
    if a.include or a.define or a.granularity is not None:
        given = ("-I and -D apply", "") if a.include or a.define else \
            ("--granularity applies", ", which reads hirace.toml's granularity")
        raise UserError(f"{given[0]} to sources hirace builds; a command's programs are built by their own "
                        f"build (through hirace-cc{given[1]})",
                        hint="drop them, or give the sources: hirace run prog.cu -- ARGS")
    cfg = _configuration(a, config)
    out = _outputs(a, cfg, command[0], Path.cwd())
    out.say(f"running {' '.join(command)} (every process built through hirace-cc writes its log)")
    try:
        run = runner.run_command(command, cfg, a.timeout)
    except UserError as exc:
        out.failed(str(exc), EXIT_ERROR)
        raise
    res = run.report
    out.say(f"{run.processes} instrumented process(es) wrote a log" +
            (f" (backend: {res.backend})" if res.backend else ""))
    if run.lost:
        res.warnings.append(f"{run.lost} process(es) began hirace's log and never finished it (killed or crashed "
                            f"while exiting): what they found is not in this report")
    status = _verdict(res, a.error_exitcode)
    error = _failure(res, status, "command")
    if res.launches == 0:
        what = ("no process it started was built through hirace-cc" if run.processes == 0 else
                "every launch was of a kernel not selected (--kernel-name, --kernel-name-exclude)" if res.unselected
                else f"{run.processes} instrumented process(es) ran and launched no kernel")
        res.warnings.append(f"nothing was checked: {what}")
        if error is None and not a.allow_unchecked:
            error = ("no instrumented kernel ran under the command, so nothing was checked: build the program "
                     "through hirace-cc (CMake: -DCMAKE_CUDA_COMPILER_LAUNCHER=hirace-cc; Make: "
                     "NVCC=\"hirace-cc nvcc\"), or pass --allow-unchecked")
    return _finish(out, res, cfg, status, error)


def _from_database(a: argparse.Namespace) -> None:
    """-p BUILD: the sources (default: the database's CUDA units) with the flags it gives them,
    before those of the command line."""
    if a.build_db is None:
        return
    from instrument.compile import compile_db
    sources, dirs, defines = compile_db.flags_for(compile_db.read(a.build_db), a.sources, a.build_db)
    a.sources, a.include, a.define = sources, [*dirs, *a.include], [*defines, *a.define]


def do_run(a: argparse.Namespace, prog_args: list[str]) -> int:
    from . import run_inputs, runner
    run_inputs.check_sources(a.sources)
    run_inputs.check_include_dirs(a.include)
    _from_database(a)
    if not a.sources:
        if not prog_args:
            raise UserError("nothing to run", hint="hirace run prog.cu [-- ARGS], or hirace run -- COMMAND ARGS")
        return do_command(a, prog_args)
    check_sources(a.sources)
    backend = run_inputs.backend_name(a.backend, BACKEND_VARIABLE)
    config = a.config or config_mod.discover(Path.cwd())
    check_outputs([Output("--output", a.output), Output("--junit", a.junit)], inputs=[*a.sources, config])
    cfg = _configuration(a, config)
    out = _outputs(a, cfg, str(a.sources[0]), a.sources[0])
    try:
        res = runner.run(a.sources, backend, cfg, prog_args, a.include, a.define, a.timeout,
                         say=out.say if a.verbose else None, announce=not a.quiet, build_cache=a.build_cache)
    except UserError as exc:
        exc = run_inputs.explain_build_failure(exc, a.sources)
        out.failed(str(exc), EXIT_ERROR)
        raise exc from None
    status = _verdict(res, a.error_exitcode)
    return _finish(out, res, cfg, status, _failure(res, status, "program"))


def setup_instrument(p: argparse.ArgumentParser) -> None:
    p.add_argument("-o", "--out", type=Path, default=Path("hirace-out"),
                   help="directory for the instrumented sources (default hirace-out)")
    p.add_argument("--cpu", action="store_true", help="also lower for the cpu backend (g++)")
    add_progress_options(p, progress=False,
                         quiet="no line saying what was written and how to build it: only warnings and errors",
                         verbose="also how many sites each file has")
    _common(p, sources="*")


def sources_and_config(a: argparse.Namespace, command: str, outputs: list[Output]):
    """The sources of a command that reads them as `hirace instrument` does (given, or from -p BUILD),
    checked, with the outputs checked against every input, and the configuration loaded."""
    from . import run_inputs
    run_inputs.check_sources(a.sources, runs=False)
    run_inputs.check_include_dirs(a.include)
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
    if a.quiet:
        return EXIT_OK
    if a.verbose:   # (files named as the reports name them: instrument/report_paths.py)
        from collections import Counter

        from instrument.report_paths import report_paths
        show = report_paths(None, a.sources[0]).show
        for file, n in sorted(Counter(s.file for s in planner.sites).items()):
            print(f"hirace: {show(file)}: {n} site{'s' if n != 1 else ''}")
    cannot = f"{planner.bounds_only} of them only bounds-checked where they cannot race; " \
        if planner.bounds_only else ""
    print(f"hirace: instrumented {len(planner.sites)} sites into {a.out} "
          f"({cannot}site table: {a.out / 'hirace_sites.json'}); build with -I {include_dir()} "
          + " ".join(f"-D{d}" for d in planner.defines()))
    return EXIT_OK
