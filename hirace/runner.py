"""hirace's pipeline: instrument -> build -> run -> collect."""
from __future__ import annotations

import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

from instrument.compile import pipeline
from instrument.backends import get_backend
from instrument.errors import UserError
from instrument.compile.pipeline import instrument_sources

from . import suppress
from .config import TIMEOUT, Config, check_names
from .planner import HiracePlanner
from .sites import Site
from .results import RaceReport, collect, merge, select, tally
from instrument.reaper import temp_dir
from instrument.logs import read as read_log
from instrument.protocol import HIRACE_LOG, Env, Exit


@dataclass
class Instrumented:
    """What `hirace instrument` wrote: the planner (sites, defines), the sources and include dirs."""
    planner: HiracePlanner
    sources: list[Path]
    include_dirs: list[Path]
    warnings: list[str]


def instrument(sources, out_dir: Path, config: Config, include_dirs=(), defines=(), lower_cpu=False) -> Instrumented:
    """Instrument `sources` into out_dir with its site table, without building."""
    planner = HiracePlanner(config, lower_cpu=lower_cpu)
    ins = instrument_sources(sources, out_dir, [planner], include_dirs, defines, lower_cpu=lower_cpu)
    check_names(config, ins.programs, config.source)
    planner.write_sites(Path(out_dir) / "hirace_sites.json")
    return Instrumented(planner, ins.sources, ins.include_dirs, ins.warnings)


@dataclass
class Built:
    """An instrumented program, built for one backend, with its site table; run it with
    `execute` (it pickles: a host's build cache keeps it, another process may run it)."""
    exe: Path
    backend: object
    sites: list[Site]
    warnings: list[str]
    cached: bool = False   # the program came from the build cache (nothing compiled)
    cache_note: str = ""   # why the build was not kept in the cache


def build(sources, backend, work: Path, config: Config, include_dirs=(), defines=(), flags=(),
          library: bool = False, cache: bool = False, opt: str = "-O2") -> Built:
    """Instrument `sources` into work/src and build work/prog (work/prog.so with `library`;
    `cache`: from the build cache when it holds this build, instrument/compile/build_cache.py;
    `opt`: the compiler's optimisation)."""
    work = Path(work)
    planner = HiracePlanner(config, lower_cpu=backend.needs_lowering)
    # the checks add registers: at most 64 a thread keeps every block size up to 1024 launchable
    # (a kernel with its own __launch_bounds__ keeps its own limit)
    regs = ["-maxrregcount=64"] if backend.real_device else []
    built = pipeline.build(sources, backend, work, [planner], include_dirs, defines, list(flags),
                           library=library, cache=cache, tool_flags=regs, opt=opt,
                           check=lambda programs: check_names(config, programs, config.source))   # (before compiling)
    planner.write_sites(work / "src" / "hirace_sites.json")
    return Built(built.exe, backend, list(planner.sites), built.warnings, built.cached, built.cache_note)


def _options_env(config: Config) -> dict:
    """The runtime options of a configuration, as the environment of the program (a build, or a command)."""
    return {Env.HIRACE_KERNELS: ",".join(config.kernels), Env.HIRACE_KERNELS_EXCLUDE: ",".join(config.kernels_exclude),
            Env.HIRACE_MAX_REPORTS: str(config.max_reports),
            Env.HIRACE_PRIOR_SITES: "1" if config.prior_sites else "0",
            Env.HIRACE_SITES_BUDGET: str(config.sites_budget),
            Env.HIRACE_BLOCKS: f"{config.blocks[0]}:{config.blocks[1]}" if config.blocks else "",
            Env.HIRACE_THREADS: f"{config.threads[0]}:{config.threads[1]}" if config.threads else ""}


def execute(built: Built, config: Config, args=(), timeout: float = TIMEOUT, passthrough: bool = False,
            cwd: Path | None = None, measure_memory: bool = False):
    """Run a built program once. Returns (process result, races or None when the run left no
    log: it crashed, timed out or was stopped)."""
    with temp_dir(prefix="hirace-log-") as tmp:
        log = Path(tmp) / "hirace.jsonl"
        env = {**_options_env(config), Env.HIRACE_LOG: str(log)}
        if passthrough:
            sys.stdout.flush()
        proc = built.backend.run(built.exe, args, env=env, timeout=timeout, passthrough=passthrough, cwd=cwd,
                                measure_memory=measure_memory)
        races = None
        if log.is_file() and not proc.timed_out:
            races = collect(log, built.sites)
            children = sorted(Path(tmp).glob("hirace-*.jsonl"))   # processes the program forked
            if children:
                races = merge([races, *(collect(c, built.sites) for c in children)])
            suppress.apply(races, config.suppress)
            select(races, config.kernels, config.kernels_exclude)
            tally(races)
            races.program_exit = proc.returncode
            races.warnings = built.warnings + races.warnings
            races.backend = built.backend.name
            races.prior_sites = config.prior_sites
        return proc, races


def _saying_commands(backend, say):
    """The backend, saying each compiler command as it runs it (hirace run -v)."""
    base = type(backend)

    class Saying(base):
        def _compile(self, cmd, req, timeout: float = 600):
            say("$ " + shlex.join(map(str, cmd)))
            return base._compile(self, cmd, req, timeout)

    saying = object.__new__(Saying)
    saying.__dict__.update(vars(backend))
    return saying


def run(sources, backend_name: str, config: Config, args=(), include_dirs=(), defines=(),
        timeout: float = TIMEOUT, prior_sites: bool | None = None, quiet_reads: bool | None = None,
        say=None, announce: bool = True, build_cache: bool = False) -> RaceReport:
    """Build `sources` and run the program once; `say`: a line of what is done (the backend, the build
    commands, whether the build came from the cache), None for silence; `announce`: the line saying
    which backend `auto` chose; `build_cache`: an unchanged build is not compiled again."""
    backend = get_backend(backend_name, announce=announce and say is None)
    if say is not None:
        say(f"backend: {backend.name}" + (" (chosen by auto)" if backend_name == "auto" else ""))
        backend = _saying_commands(backend, say)
    if prior_sites is not None:
        config.prior_sites = prior_sites
    if quiet_reads is not None:
        config.quiet_reads = quiet_reads
    with temp_dir(prefix="hirace-") as tmp:
        built = build(sources, backend, Path(tmp), config, include_dirs, defines, cache=build_cache)
        if say is not None and build_cache:
            say("build: cached" if built.cached else
                "build: compiled" + (f" (not kept in the build cache: {built.cache_note})" if built.cache_note else ""))
        res, out = execute(built, config, args, timeout, passthrough=True)
        if res.timed_out:
            raise UserError(f"the program timed out after {timeout:g}s under hirace",
                            hint="raise --timeout, or check the program for a hang")
        fault = backend.fault_of(res)
        if fault is not None:
            raise UserError(f"the cpu backend stopped the program: {fault} (see the cudaemu message above)")
        if res.returncode < 0:
            raise UserError(f"the program {res.describe_failure()} under hirace")
        if out is None:
            if res.returncode == Exit.RUNTIME_FAILURE:   # (a program may end with this status itself)
                raise UserError(f"the program ended with status {int(Exit.RUNTIME_FAILURE)} without writing hirace's "
                                f"log: hirace's runtime ends a program with this status when it fails, after a "
                                f"message starting 'hirace:' above; without one, the program chose this status "
                                f"itself before it returned from main")
            status = f" with status {res.returncode}" if res.returncode else ""
            raise UserError(f"the program ended{status} without writing hirace's log (it called exit "
                            f"from a signal handler, _exit or abort, or never returned from main)")
        return out


@dataclass
class CommandRun:
    """What `hirace run -- COMMAND` saw: the merged report of every instrumented process the
    command started, how many wrote a log, and the command's own exit status."""
    report: RaceReport
    processes: int
    lost: int          # logs begun and never finished (a process crashed or was killed at exit)
    exit_status: int


def run_command(command: list[str], config: Config, timeout: float = TIMEOUT) -> CommandRun:
    """Run any command (a program built by hirace-cc, ctest, make run, a script) with its output as
    it is; every instrumented process it starts writes a log of its own into a private directory,
    and their reports are merged."""
    from instrument.backends.process import run_process
    with temp_dir(prefix="hirace-logs-") as tmp:
        # (HIRACE_LOG empty: a value the user's environment holds would send every process to one file)
        env = {**_options_env(config), Env.HIRACE_LOG_DIR: tmp, Env.HIRACE_LOG: ""}
        sys.stdout.flush()
        try:
            proc = run_process(command, timeout=timeout, env=env, passthrough=True)
        except FileNotFoundError:
            raise UserError(f"{command[0]}: no such command", hint="give the command after --: hirace run -- ./app") from None
        except PermissionError:
            raise UserError(f"{command[0]}: not executable") from None
        if proc.timed_out:
            raise UserError(f"the command timed out after {timeout:g}s under hirace",
                            hint="raise --timeout, or check the command for a hang")
        logs = sorted(Path(tmp).glob("hirace-*.jsonl"))
        lost = len(list(Path(tmp).glob("hirace-*.jsonl.part")))
        reports, foreign = [], []
        for log in logs:
            records = read_log(log, HIRACE_LOG, "hirace's log")
            if not records["site"] and (records["race"] or records["memory_error"]):
                foreign.append(log.name)   # (built by `hirace instrument`: its site table is elsewhere)
                continue
            rep = collect(log, None)
            suppress.apply(rep, config.suppress)
            select(rep, config.kernels, config.kernels_exclude)
            tally(rep)
            reports.append(rep)
        report = merge(reports)
        if foreign:
            report.warnings.append(f"{len(foreign)} process(es) wrote a log without its site table (built by "
                                   f"`hirace instrument`, not hirace-cc): what they found is not in this report")
        report.program_exit = proc.returncode
        report.prior_sites = config.prior_sites
        return CommandRun(report, len(logs), lost, proc.returncode)

