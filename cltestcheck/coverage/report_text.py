"""The terminal report: a table per kernel and device function, then what to test next; its last line
the headline total, `TOTAL covered/items items (branches, loop cases, barriers) NN.N%`, for a CI's
coverage regex. Files are named relative to the root (--root), absolute outside it."""
from __future__ import annotations

from .results import CoverageResult, Tally, pct
from .sites import LOOP_CASES


def _frac(pair: list[int]) -> str:
    if pair[1] == 0:
        return "-"
    return f"{pair[0]}/{pair[1]} {pct(pair):5.1f}%"


def _loops(t: Tally) -> str:
    if t.loop_total[1] == 0:
        return "-"
    cells = " ".join(f"{t.loops[c][0]}/{t.loops[c][1]}" if t.loops[c][1] else "-"
                     for c in LOOP_CASES)
    return f"{cells}  {pct(t.loop_total):5.1f}%"


def total_line(t: Tally) -> str:
    """The headline: every branch arm, loop case and barrier, one percentage (the last number of the line)."""
    covered, items = t.items
    figure = f"{pct(t.items):.1f}%" if items else "- (nothing to cover)"
    return f"TOTAL  {covered}/{items} items (branches, loop cases, barriers)  {figure}"


def render(res: CoverageResult, quiet: bool = False, verbose: bool = False) -> str:
    """The report; `quiet` (-q): only what is left to cover, barrier divergence and the total (the
    warnings counted); `verbose` (-v): under each test, the items only it covered."""
    show = res.show
    passed = sum(t.verdict.passed for t in res.tests)
    if res.combined:
        lines = [f"cltc coverage: {len(res.combined)} report{'s' if len(res.combined) != 1 else ''} combined "
                 f"({', '.join(res.combined)}; {res.backend} backend), {len(res.tests)} tests, {passed} passed", ""]
    elif res.command:
        lines = [f"cltc coverage: {res.command} ({res.backend} backend), {len(res.tests)} instrumented "
                 f"process{'es' if len(res.tests) != 1 else ''}", ""]
    else:
        lines = [f"cltc coverage: {show(res.suite)} ({res.backend} backend), {len(res.tests)} tests, "
                 f"{passed} passed", ""]
    funcs = {f.name: f for f in res.table.functions}
    rows = [("Function", "Where", "Branches", "Loops 0/1/>1/boundary", "Barriers")]
    for name, t in res.tally_by("function").items():
        f = funcs[name]
        bars = _frac(t.barriers) + (f"  ({t.divergent} divergent)" if t.divergent else "")
        rows.append((("__global__ " if f.kind == "global" else "") + name, f"{show(f.file)}:{f.line}",
                     _frac(t.branches), _loops(t), bars))
    tot = res.total()
    rows.append(("all", "", _frac(tot.branches), _loops(tot),
                 _frac(tot.barriers) + (f"  ({tot.divergent} divergent)" if tot.divergent else "")))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    for i, r in enumerate(rows):
        if i == len(rows) - 1:
            lines.append("  ".join("-" * w for w in widths))
        lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    items = res.items()
    unc = [i for i in items if not i.covered and not i.suppressed]
    if quiet:   # (no header naming the backend, no table)
        lines = []
    else:
        lines.append("")
    if unc:
        lines.append(f"Not covered ({len(unc)}): write a test that reaches these")
        for it in unc:
            lines.append(f"  {show(it.file)}:{it.line}: [{it.function}] {it.label}")
    else:
        lines.append("Everything measured was covered.")
    sup = [i for i in items if i.suppressed]
    if sup and not quiet:
        lines += ["", f"Suppressed ({len(sup)}): marked `cltc: ignore`, not counted"]
        lines += [f"  {show(i.file)}:{i.line}: [{i.function}] {i.label}"
                  f"{'' if i.covered else ' (not covered)'}" for i in sup]
    div = res.divergences()
    if div:
        lines.append("")
        lines.append(f"Barrier divergence ({len(div)}): reached by only part of a block")
        for d in div:
            b = ",".join(map(str, d["block"]))
            others = d["blocks_seen"] - 1
            more = f" (and {others} more block{'s' if others > 1 else ''})" if others else ""
            lines.append(f"  {show(d['file'])}:{d['line']}: {d['barrier']}() in {d['function']}: block ({b}): "
                         f"{d['arrived'] % d['threads']} of {d['threads']} threads arrived{more}; "
                         f"tests: {', '.join(d['tests'])}")
    if quiet:
        if res.warnings:
            lines += ["", f"cltc coverage: {len(res.warnings)} warning(s) not shown (-q)"]
        return "\n".join([*lines, "", total_line(tot)]) + "\n"

    def only(test: str) -> list[str]:   # (-v) the items no other test covered
        return [f"      {show(i.file)}:{i.line}: [{i.function}] {i.label}" for i in items
                if verbose and i.tests == [test] and i.category != "function" and not i.suppressed]
    lines.append("")
    lines.append("Processes:" if res.command else "Tests:")
    for c in res.contributions():
        if res.command:   # (a process's own status is the command's to judge)
            lines.append(f"  {c['test']}: covered {c['covered']}, only this process {c['unique']}")
            lines += only(c["test"])
            continue
        state = "passed" if c["passed"] else f"FAILED ({c['reason']})"
        extra = "" if c["collected"] else \
            "  [no coverage: the run left no coverage log (killed, or its flags unreadable)]"
        lines.append(f"  {c['test']}: {state}; covered {c['covered']}, only this test {c['unique']}; "
                     f"{c['wall_s']:.2f}s{extra}")
        lines += only(c["test"])
    for w in res.warnings:
        lines.append(f"warning: {w}")
    lines += ["", total_line(tot)]
    return "\n".join(lines) + "\n"
