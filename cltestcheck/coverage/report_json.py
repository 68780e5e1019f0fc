"""Coverage as JSON: totals, per function and file, every item, divergences, per-test contribution."""
from __future__ import annotations

import json
from dataclasses import asdict

from .results import CoverageResult, Tally, pct


def _tally(t: Tally) -> dict:
    return {"branches": {"covered": t.branches[0], "total": t.branches[1], "percent": pct(t.branches)},
            "loops": {c: {"covered": v[0], "total": v[1]} for c, v in t.loops.items()} |
            {"covered": t.loop_total[0], "total": t.loop_total[1], "percent": pct(t.loop_total)},
            "barriers": {"covered": t.barriers[0], "total": t.barriers[1], "percent": pct(t.barriers),
                         "divergent": t.divergent}}


def render(res: CoverageResult) -> str:
    doc = {
        "tool": "cltc coverage", "suite": res.suite, "backend": res.backend,
        **({"command": res.command} if res.command else {}),
        "total": _tally(res.total()),
        "functions": {n: _tally(t) for n, t in res.tally_by("function").items()},
        "files": {n: _tally(t) for n, t in res.tally_by("file").items()},
        "items": [asdict(i) for i in res.items()],
        "divergences": res.divergences(),
        "tests": res.contributions(),
        "warnings": res.warnings,
    }
    return json.dumps(doc, indent=1) + "\n"
