"""HTML: a summary page and one annotated source page per mutated file."""
from __future__ import annotations

import os
from collections import defaultdict

from ..html_page import badge, esc, listing, page
from ..report_files import shown
from .outcomes import MutationResult
from .results import by, counts

_CLS = {"killed": "ok", "timeout": "ok", "undecided": "warn", "survived": "no", "no-coverage": "na", "failed": "warn", "ignored": "na"}


def render(res: MutationResult, paths=None) -> dict[str, str]:
    show = shown(res.suite, paths)   # files relative to the root (--root), absolute outside it
    files = sorted({o.mutant.file for o in res.outcomes})
    names = {f: f"file{i}.html" for i, f in enumerate(files)}
    c = counts(res.outcomes)
    rows = "".join(f"<tr><td>{esc(k)}</td><td>{v['total']}</td><td>{v['killed'] + v['timeout']}</td>"
                   f"<td>{v['undecided']}</td><td>{v['survived']}</td><td>{v['no-coverage']}</td>"
                   f"<td>{'-' if v['score'] is None else v['score']}</td></tr>"
                   for k, v in by(res, "operator").items())
    links = "".join(f"<li><a href='{names[f]}'>{esc(show(f))}</a></li>" for f in files)
    index = page("cltc mutate", f"<h1>Mutation testing</h1><p>Suite {esc(show(res.suite))}, {res.backend} backend, "
                 f"{res.runs} runs per mutant and test. Score {c['score']}% of {c['total']} mutants.</p>"
                 "<table><tr><th>Operator</th><th>Mutants</th><th>Killed</th><th>Undecided</th><th>Survived</th>"
                 f"<th>Not reached</th><th>Score %</th></tr>{rows}</table><ul>{links}</ul>")
    out = {"index.html": index}
    for f in files:
        notes: dict[int, list] = defaultdict(list)
        worst: dict[int, str] = {}
        for o in res.outcomes:
            m = o.mutant
            if m.file != f:
                continue
            notes[m.line].append(badge(f"#{m.id} {m.description}: {o.status}", _CLS[o.status], o.reason))
            if o.status in ("survived", "undecided", "no-coverage"):
                worst[m.line] = "miss" if o.status != "undecided" else "part"
            worst.setdefault(m.line, "hit")
        body = (f"<p><a href='index.html'>back</a></p><h1>{esc(show(f))}</h1>"
                + listing(f, {ln: (worst[ln], bs) for ln, bs in notes.items()}))
        out[names[f]] = page(os.path.basename(f), body)
    return out
