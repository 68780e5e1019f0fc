"""GitHub Actions output of the three cltc commands (when GITHUB_ACTIONS=true, unless --no-github or
`github = false`): workflow commands printed to stderr with the gate lines (the runner reads both
streams) and a Markdown summary appended to $GITHUB_STEP_SUMMARY; the commands, their escaping and
the workspace-relative paths are every tool's (instrument/github.py).

- coverage: a summary (the headline total and each measure, the files) and a `::warning` for each
  measure under --fail-under;
- mutate: a `::warning file=..,line=..,col=..` on every surviving (and undecided) mutant, and a summary;
- amplify: a `::warning` for every schedule-dependent (or hanging) test, and a summary."""
from __future__ import annotations

import os
import sys

from instrument import github

# at most this many rows of findings in a step summary (the annotations and the reports carry all)
SUMMARY_ROWS = 50


def _emit(lines: list[str], summary: str, environ) -> None:
    for line in lines:
        print(line, file=sys.stderr)
    github.append_summary(summary, environ)


def _pct(pair) -> str:
    return f"{100.0 * pair[0] / pair[1]:.1f}%" if pair[1] else "-"


def coverage(res, shortfalls: list[str], status: int, environ=os.environ) -> None:
    from .coverage.report_text import total_line
    tot = res.total()
    covered, items = tot.items
    head = f"### cltc coverage: {_pct(tot.items)} of {items} items covered (exit {status})"
    rows = [[m, str(p[0]), str(p[1]), _pct(p)] for m, p in (
        ("branches", tot.branches), ("loop cases", tot.loop_total), ("barriers", tot.barriers),
        ("**total**", tot.items))]
    lines = [head, "", f"`{total_line(tot)}`", "", *github.table(["measure", "covered", "items", "%"], rows), ""]
    files = [[f"`{github.path(f, environ)}`", _pct(t.branches), _pct(t.loop_total), _pct(t.barriers), _pct(t.items)]
             for f, t in res.tally_by("file").items()]
    if files:
        lines += [*github.table(["file", "branches", "loop cases", "barriers", "total"], files[:SUMMARY_ROWS]), ""]
        if len(files) > SUMMARY_ROWS:
            lines += [f"... and {len(files) - SUMMARY_ROWS} more files", ""]
    lines += [f"- {s}" for s in shortfalls] + ([""] if shortfalls else [])
    _emit([github.command("warning", s, "cltc coverage: under --fail-under") for s in shortfalls],
          "\n".join(lines) + "\n", environ)


def mutate(res, thresholds: dict[str, float], shortfall: str | None, status: int, environ=os.environ) -> None:
    from .mutate.report_text import grade
    from .mutate.results import counts, diff_line
    c = counts(res.outcomes)
    score = "-" if c["score"] is None else f"{c['score']:.1f}%{grade(c['score'], thresholds)}"
    left = [o for o in res.outcomes if o.status in ("survived", "undecided")]
    notes = []
    rows = []
    for o in left:
        m = o.mutant
        before, after = diff_line(o)
        what = "no test noticed it" if o.status == "survived" else "killed in some runs only (schedule-dependent)"
        notes.append(github.command("warning", f"{m.description}: {what}\n- {before}\n+ {after}",
                                    f"cltc mutate: {o.status} mutant ({m.operator})", m.file, m.line, m.col, environ))
        rows.append([f"`{github.path(m.file, environ)}:{m.line}:{m.col}`", m.operator, m.description, o.status])
    if shortfall:
        notes.append(github.command("warning", shortfall, "cltc mutate: under --break"))
    lines = [f"### cltc mutate: mutation score {score} (exit {status})", "",
             *github.table(["mutants", "killed", "timeout", "undecided", "survived", "not reached"],
                           [[str(c["total"]), str(c["killed"]), str(c["timeout"]), str(c["undecided"]),
                             str(c["survived"]), str(c["no-coverage"])]]), ""]
    if rows:
        lines += [*github.table(["where", "operator", "mutant", "status"], rows[:SUMMARY_ROWS]), ""]
        if len(rows) > SUMMARY_ROWS:
            lines += [f"... and {len(rows) - SUMMARY_ROWS} more", ""]
    if shortfall:
        lines += [f"- {shortfall}", ""]
    _emit(notes, "\n".join(lines) + "\n", environ)


def amplify(res, status: int, environ=os.environ) -> None:
    notes, rows = [], []
    for t in res.tests:
        changed = [s.schedule for s in t.schedules if s.hangs or set(s.outputs) - {0}]
        if t.verdict != "stable":
            shown = ", ".join(changed[:5]) + (f" and {len(changed) - 5} more" if len(changed) > 5 else "")
            notes.append(github.command("warning", f"{t.name}: {t.verdict}: its outcome changed under {shown}",
                                        f"cltc amplify: {t.verdict} test"))
        rows.append([t.name, t.verdict, str(len(t.schedules)), ", ".join(changed[:5]) or "-"])
    bad = res.unstable
    lines = [f"### cltc amplify: {len(bad)} of {len(res.tests)} test(s) depend on the block schedule (exit {status})",
             "", *github.table(["test", "verdict", "schedules", "changed under"], rows[:SUMMARY_ROWS]), ""]
    _emit(notes, "\n".join(lines) + "\n", environ)


def search(res, paths, status: int, environ=os.environ) -> None:
    """cltc search: an `::error` at each race's site naming the input that shows it, a `::warning`
    for each NaN/Inf a kept input shows (in its output, an output file, an array a kernel wrote), and a summary (items reached, inputs kept, findings, what
    stays unreached)."""
    from .search.report import _race, _total
    from .search.suite_out import special_text
    reached, total, by_tests = _total(res)
    cmds = []
    for r in res.races:
        file, line, col = r["site"].rsplit(":", 2)
        cmds.append(github.command("error", f"{_race(r, paths)}; shown by {r['input']} (written to {res.out})",
                                   "cltc search: race", file=file, line=int(line), col=int(col), environ=environ))
    for f in res.specials:
        cmds.append(github.command("warning", f"{f['input']}: {special_text(f['kind'], f.get('where', ''))} "
                                   f"(test '{f['seed']}' showed none)", "cltc search: NaN/Inf"))
    unreached = res.unreached()
    lines = [f"### cltc search: reached {reached}/{total} items (the tests: {by_tests}), "
             f"kept {len(res.kept)} inputs (exit {status})", "",
             *github.table(["finding", "count"], [["races", str(len(res.races)) if res.checked_races else "not checked"],
                                                  ["NaN/Inf", str(len(res.specials))],
                                                  ["not reached", str(len(unreached))]]), ""]
    rows = [[f"`{github.path(g.file, environ)}:{g.line}`", github.cell(f"[{g.function}] {g.label}")]
            for g in unreached[:SUMMARY_ROWS]]
    if rows:
        lines += [*github.table(["not reached", "item"], rows), ""]
    _emit(cmds, "\n".join(lines) + "\n", environ)
