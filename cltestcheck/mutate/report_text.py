"""The terminal report: scores, then the mutants the suite did not kill, as diffs."""
from __future__ import annotations

import shlex

from ..report_files import shown
from .outcomes import MutationResult
from .planner import selector
from .results import by, counts, diff_line


def _row(name: str, c: dict) -> tuple:
    score = "-" if c["score"] is None else f"{c['score']:.1f}%"
    return (name, str(c["total"]), str(c["killed"] + c["timeout"]), str(c["undecided"]), str(c["survived"]),
            str(c["no-coverage"]), score)


def _table(title: str, rows: list[tuple]) -> list[str]:
    head = (title, "mutants", "killed", "undecided", "survived", "not reached", "score")
    rows = [head] + rows
    w = [max(len(r[i]) for r in rows) for i in range(len(head))]
    return ["  ".join(c.ljust(x) if i == 0 else c.rjust(x) for i, (c, x) in enumerate(zip(r, w))) for r in rows]


def grade(score: float | None, thresholds: dict[str, float] | None) -> str:
    """Stryker's reading of a score against high and low: ' (good)', ' (fair)', ' (poor)'."""
    if score is None or not thresholds:
        return ""
    return " (good)" if score >= thresholds["high"] else " (fair)" if score >= thresholds["low"] else " (poor)"


def _scope_line(res: MutationResult, c: dict) -> list[str]:
    if not res.scope:
        return []
    return [f"scope: {res.scope}: {c['total']} of {c['total'] + res.out_of_scope} mutants judged, "
            f"{res.out_of_scope} left out (not judged, not counted)"]


def render(res: MutationResult, thresholds: dict[str, float] | None = None, quiet: bool = False,
           verbose: bool = False, paths=None) -> str:
    """The report; `quiet`: only the score line, the scope and the mutants that lower the score (the
    warnings counted); `verbose`: also each reference run, and every mutant the tests killed with why."""
    root = res.suite
    show = shown(root, paths)   # files relative to the root (--root), absolute outside it
    c = counts(res.outcomes)
    score = "-" if c["score"] is None else f"{c['score']:.1f}%{grade(c['score'], thresholds)}"
    if res.command:   # `cltc mutate -- COMMAND`: the project's build, judged by the command's exit status
        head = f"cltc mutate: {res.command} ({res.backend} backend), {c['total']} mutants, {res.runs} run(s) per mutant"
        build = (f"schemata: the project's build through cltc-cc ({len(res.not_compilable)} mutants dropped because "
                 f"they would not compile); the reference run took {res.build_s:.1f}s, judging {res.judge_s:.1f}s")
        who = "process"
    else:
        head = f"cltc mutate: {show(root)} ({res.backend} backend), {c['total']} mutants, " \
               f"{res.runs} runs per mutant and test"
        build = (f"schemata: 1 build for all mutants ({res.build_s:.1f}s), {res.separate_builds} needed separate "
                 f"builds; {len(res.not_compilable)} dropped because they would not compile; judging took "
                 f"{res.judge_s:.1f}s")
        who = "test"
    verdict = (f"mutation score {score}: {c['killed']} killed, {c['timeout']} killed by timeout, "
               f"{c['undecided']} undecided, {c['survived']} survived, {c['no-coverage']} not reached by any {who}"
               + (f", {c['failed']} failed (not counted)" if c["failed"] else "")
               + (f", {c['ignored']} suppressed (not counted)" if c["ignored"] else "")
               + (f"; {len(res.warnings)} warning(s) not shown (-q)" if quiet and res.warnings else ""))
    if res.scope and not res.outcomes and not res.references:   # (engine.py: nothing built or run)
        build = "nothing was built or run: the scope holds no mutant"
    if quiet:
        lines = [verdict, *_scope_line(res, c)]
    else:
        lines = [head, verdict, *_scope_line(res, c), build, ""]
        lines += _table("kernel/function", [_row(k, v) for k, v in by(res, "function").items()])
        lines.append("")
        lines += _table("operator", [_row(k, v) for k, v in by(res, "operator").items()])
    if verbose and res.references:
        lines += ["", "Processes (the reference run):" if res.command else "Tests (the reference runs):"]
        for r in res.references:
            lines.append(f"  {r.test.name}: reached {len(r.reached)} mutation site(s), {r.obs.wall_s:.2f}s"
                         + (f" [{r.note}]" if r.note else ""))
    sections = (("undecided", "Undecided (killed in some runs only: schedule-dependent behaviour)"),
                ("survived", "Survived (no test noticed)"),
                ("no-coverage", f"Not reached by any {who}"),
                ("failed", "Failed (could not be judged: the reason follows; a rerun with --results judges them again)"),
                ("ignored", "Suppressed (marked `cltc: ignore`: not judged, not counted)"))
    if verbose:
        sections = (("killed", "Killed"), ("timeout", "Killed by timeout"), *sections)
    for status, title in sections:
        if quiet and status == "ignored":
            continue
        group = [o for o in res.outcomes if o.status == status]
        if not group:
            continue
        lines += ["", f"{title}: {len(group)}"]
        for o in group:
            m = o.mutant
            before, after = diff_line(o)
            extra = ""
            if status == "undecided":
                extra = "  [" + "; ".join(f"{t}: killed {k}/{n}" for t, (k, n) in o.kills.items()) + "]"
            elif status in ("failed", "killed", "timeout"):
                extra = f"  [{o.reason}]"
            if res.command and status in ("survived", "undecided"):   # how to run it by hand
                extra += f"  [CLTC_MUTANT={shlex.quote(selector(m, root))}]"
            lines.append(f"  #{m.id} {show(m.file)}:{m.line}:{m.col} [{m.operator}] {m.description}{extra}")
            lines.append(f"      - {before}")
            lines.append(f"      + {after}")
    for w in [] if quiet else res.warnings:
        lines.append(f"warning: {w}")
    return "\n".join(lines) + "\n"
