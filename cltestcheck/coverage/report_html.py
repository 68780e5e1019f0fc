"""HTML: a summary page and one annotated source page per file (arms, loop cases, barriers)."""
from __future__ import annotations

import os
from collections import defaultdict

from ..html_page import badge, esc, listing, page
from .report_text import total_line
from .results import CoverageResult, _frac_text
from .sites import LOOP_CASES, LOOP_LABELS

_SHORT = {"zero": "0", "one": "1", "many": ">1", "boundary": "end"}


def _notes(res: CoverageResult, file: str) -> dict[int, tuple[str, list[str]]]:
    badges: dict[int, list[str]] = defaultdict(list)
    state: dict[int, list[bool]] = defaultdict(list)

    def covered(attr, flag):
        return [t.name for t in res.tests if flag in getattr(t, attr)]

    for b in res.table.branches:
        if b.file != file:
            continue
        for a in b.arms:
            who = covered("flags", a.flag)
            line = b.line if b.kind == "condition" else a.line
            label = f"`{b.text}` {a.label}" if b.kind == "condition" else f"{b.kind} {a.label}"
            badges[line].append(badge(label + (" ✓" if who else " ✗"), "ok" if who else "no",
                                      "tests: " + ", ".join(who) if who else "no test took this arm"))
            state[line].append(bool(who))
    for lp in res.table.loops:
        if lp.file != file:
            continue
        for c in LOOP_CASES:
            if c not in lp.cases:
                badges[lp.line].append(badge(_SHORT[c] + " n/a", "na", LOOP_LABELS[c] + ": cannot happen"))
                continue
            who = covered("flags", lp.flag(c))
            badges[lp.line].append(badge(f"loop {_SHORT[c]}" + (" ✓" if who else " ✗"), "ok" if who else "no",
                                         LOOP_LABELS[c]))
            state[lp.line].append(bool(who))
    div = {(d["file"], d["line"]): d for d in res.divergences()}
    for bar in res.table.barriers:
        if bar.file != file:
            continue
        who = covered("barrier_flags", 2 * bar.index + 1)
        badges[bar.line].append(badge("whole block ✓" if who else "whole block ✗", "ok" if who else "no"))
        state[bar.line].append(bool(who))
        d = div.get((file, bar.line))
        if d:
            b = ",".join(map(str, d["block"]))
            badges[bar.line].append(badge(f"divergent: block ({b}) {d['arrived'] % d['threads']}/{d['threads']}",
                                          "warn", "tests: " + ", ".join(d["tests"])))
            state[bar.line].append(False)
    out = {}
    for line, bs in badges.items():
        s = state[line]
        cls = "hit" if s and all(s) else "miss" if not any(s) else "part"
        if res.suppressed(file, line):   # shown, not judged
            cls, bs = "", [badge("suppressed", "na", "marked `cltc: ignore`: not counted"), *bs]
        out[line] = (cls, bs)
    return out


def render(res: CoverageResult) -> dict[str, str]:
    files = sorted({f.file for f in res.table.functions} | {b.file for b in res.table.branches})
    names = {f: f"file{i}.html" for i, f in enumerate(files)}
    tally = res.tally_by("file")
    rows = ["<tr><th>File</th><th>Branches</th><th>Loop cases</th><th>Barriers</th></tr>"]
    for f in files:
        t = tally.get(f)
        if t is None:
            continue
        rows.append(f"<tr><td><a href='{names[f]}'>{esc(res.show(f))}</a></td>"
                    f"<td>{_frac_text(t.branches)}</td><td>{_frac_text(t.loop_total)}</td>"
                    f"<td>{_frac_text(t.barriers)}{' (' + str(t.divergent) + ' divergent)' if t.divergent else ''}</td></tr>")
    tot = res.total()
    rows.append(f"<tr><th>Total</th><th>{_frac_text(tot.branches)}</th><th>{_frac_text(tot.loop_total)}</th>"
                f"<th>{_frac_text(tot.barriers)}</th></tr>")
    ftab = ["<tr><th>Function</th><th>Branches</th><th>Loop cases</th><th>Barriers</th></tr>"]
    for n, t in res.tally_by("function").items():
        ftab.append(f"<tr><td>{esc(n)}</td><td>{_frac_text(t.branches)}</td><td>{_frac_text(t.loop_total)}</td>"
                    f"<td>{_frac_text(t.barriers)}</td></tr>")
    tests = "".join(f"<li>{esc(c['test'])}: {'passed' if c['passed'] else 'FAILED: ' + esc(c['reason'])}, "
                    f"covered {c['covered']}, only this test {c['unique']}</li>" for c in res.contributions())
    index = page("cltc coverage", f"<h1>Kernel coverage</h1><p>{'Reports ' + esc(', '.join(res.combined)) if res.combined else 'Suite ' + esc(res.show(res.suite))}, {esc(res.backend)} backend, "
                 f"{len(res.tests)} tests.</p><p><b>{esc(total_line(tot))}</b></p><table>{''.join(rows)}</table><h2>Functions</h2>"
                 f"<table>{''.join(ftab)}</table><h2>Tests</h2><ul>{tests}</ul>")
    out = {"index.html": index}
    for f in files:
        body = (f"<p><a href='index.html'>back</a></p><h1>{esc(res.show(f))}</h1>"
                + listing(f, _notes(res, f)))
        out[names[f]] = page(os.path.basename(f), body)
    return out

