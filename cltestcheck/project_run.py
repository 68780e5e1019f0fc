"""A project's own command (ctest, make test, a script) run once for a cltc command over a project built
through cltc-cc (`cltc coverage|mutate|amplify -- COMMAND`): in its own process group (killed whole
at the timeout), with every instrumented process it starts writing its log into a private directory
of the build mode's (the modes are cltestcheck/cc.py's: CLTC_MODE at build time). A probe run also
gives the other modes' directories, so that a command whose programs were built in another mode is
told apart from one that ran nothing built through cltc-cc."""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from instrument.backends.process import RunResult, run_process
from instrument.errors import UserError
from instrument.protocol import Env

from .cc import MODE_VARIABLE, MODES


@dataclass(frozen=True)
class _Logs:
    directory: Env      # where each process writes its own log (the runtime's option)
    single: Env         # one file for every process: emptied, so a value the user's environment holds
                        # cannot send every process's log to one file
    glob: str           # the runtime's names for a process's log
    what: str           # what a unit built in the mode carries


LOGS = {"coverage": _Logs(Env.CLTC_COV_LOG_DIR, Env.CLTC_COV_LOG, "cltc-cov-*.jsonl", "coverage counters"),
        "mutate": _Logs(Env.CLTC_MUT_LOG_DIR, Env.CLTC_MUT_REACH, "cltc-mut-*.jsonl", "mutants"),
        "amplify": _Logs(Env.CLTC_SCHED_LOG_DIR, Env.CLTC_SCHED_LOG, "cltc-sched-*.jsonl", "the schedule gate")}
assert set(LOGS) == set(MODES)


@dataclass
class CommandRun:
    """One run of the command: its result (output in `work/output` unless passed through), the complete
    logs of the mode's processes, how many processes began one and never finished it, and (a probe
    run) how many processes wrote the log of another mode, by mode."""
    result: RunResult
    logs: list[Path]
    lost: int
    others: dict[str, int] = field(default_factory=dict)


def run(command: list[str], mode: str, work: Path, timeout: float | None, env: dict | None = None,
        passthrough: bool = False, probe: bool = False) -> CommandRun:
    """Run the command with the mode's log directory under `work` (a fresh directory of the caller's);
    passthrough: its output and input are ours; else its output goes to work/output/{stdout,stderr}
    and its input is empty. `env` is added to ours (the active mutant, a block schedule)."""
    dirs = {m: work / m for m in (LOGS if probe else [mode])}
    full = {**{logs.single: "" for logs in LOGS.values()}, **(env or {})}
    for m, d in dirs.items():
        d.mkdir(parents=True)
        full[LOGS[m].directory] = str(d)
    out = None
    if not passthrough:
        out = work / "output"
        out.mkdir()
    sys.stdout.flush()
    try:
        res = run_process(command, timeout=timeout, env=full, passthrough=passthrough, output_dir=out)
    except FileNotFoundError:
        raise UserError(f"{command[0]}: no such command; give the test command after --: cltc {mode} [options] -- "
                        f"ctest --test-dir build") from None
    except PermissionError:
        raise UserError(f"{command[0]}: not executable") from None
    glob = LOGS[mode].glob
    others = {m: len(list(d.glob(LOGS[m].glob))) for m, d in dirs.items() if m != mode}
    return CommandRun(res, sorted(dirs[mode].glob(glob)), len(list(dirs[mode].glob(glob + ".part"))),
                      {m: n for m, n in others.items() if n})


def output_tail(work: Path, lines: int = 20) -> str:
    """The end of a run's output (stdout, then stderr), to show why a command failed."""
    text = ""
    for name in ("stdout", "stderr"):
        p = work / "output" / name
        if p.is_file():
            text += p.read_text(errors="replace")
    return "\n".join(text.rstrip("\n").splitlines()[-lines:])


def nothing_ran(mode: str, run: CommandRun, foreign: int = 0) -> str:
    """Why a command's run gave nothing to measure, and what to do, in one line."""
    status = f" (and it exited with status {run.result.returncode})" if run.result.returncode else ""
    how = (f"build the project through cltc-cc with {MODE_VARIABLE}={mode} in the build's environment (CMake: "
           f"-DCMAKE_CUDA_COMPILER_LAUNCHER=cltc-cc; Make: NVCC=\"cltc-cc nvcc\")")
    if run.others:
        built = ", ".join(f"{m} ({n} process{'es' if n > 1 else ''})" for m, n in sorted(run.others.items()))
        what = f"its processes ran units built by cltc-cc for another mode: {built}"
        how = (f"rebuild the project with {MODE_VARIABLE}={mode} in the build's environment, from clean or in a build "
               f"directory of its own (a build does not recompile when only the variable changes)")
    elif foreign:
        what = f"{foreign} process(es) wrote logs without their units' tables (built by cltc itself, not cltc-cc)"
    else:
        what = "no process it started was built through cltc-cc, or none launched a kernel"
    if run.lost:
        what += f"; {run.lost} process(es) began a log and never finished it (killed or crashed)"
    return f"no instrumented unit ran under the command{status}, so nothing was measured: {what}. To measure it, {how}"
