"""Coverage as JSON: totals (each measure's, and the headline `percent` of every item), per function
and file, every item, divergences, per-test contribution, and `data`: what `cltc coverage combine`
merges (the item table, each test's flags, the sources' digests). Files are named as every report
names them: relative to the root (`root`), absolute outside it. The schema: docs/cltc.md."""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict

from .results import CoverageResult, Tally, pct

# the version of the `data` section: combine refuses a file of another
DATA_FORMAT = 1


def _tally(t: Tally) -> dict:
    return {"covered": t.items[0], "total": t.items[1], "percent": pct(t.items),
            "branches": {"covered": t.branches[0], "total": t.branches[1], "percent": pct(t.branches)},
            "loops": {c: {"covered": v[0], "total": v[1]} for c, v in t.loops.items()} |
            {"covered": t.loop_total[0], "total": t.loop_total[1], "percent": pct(t.loop_total)},
            "barriers": {"covered": t.barriers[0], "total": t.barriers[1], "percent": pct(t.barriers),
                         "divergent": t.divergent}}


def _digest(path: str) -> str | None:
    try:
        with open(path, "rb") as fh:
            return "sha256:" + hashlib.file_digest(fh, "sha256").hexdigest()
    except OSError:
        return None


def data(res: CoverageResult) -> dict:
    """What a merge needs, files named as the reports name them: the item table (ids as the tests'
    flags use them), each test's flags, counts and divergences, the suppressed lines, and each source's
    digest (combine refuses two runs of different versions of a file)."""
    show = res.show
    files = sorted({f.file for f in res.table.functions} | {b.file for b in res.table.branches}
                   | {lp.file for lp in res.table.loops} | {b.file for b in res.table.barriers})
    suppressed: dict[str, set[int]] = {}
    for it in res.items():
        if it.suppressed:
            suppressed.setdefault(show(it.file), set()).add(it.line)
    return {
        "format": DATA_FORMAT, "executions": res.executions,
        "sources": {show(f): _digest(f) for f in files},
        "suppressed": {f: sorted(lines) for f, lines in sorted(suppressed.items())},
        "table": res.table.with_files(show).to_json(),
        "tests": [{"name": t.name, "passed": t.verdict.passed, "reason": t.verdict.reason,
                   "collected": t.collected, "wall_s": round(t.wall_s, 4), "flags": sorted(t.flags),
                   "counts": {str(k): v for k, v in sorted(t.counts.items())},
                   "barrier_flags": sorted(t.barrier_flags),
                   "barrier_counts": {str(k): v for k, v in sorted(t.barrier_counts.items())},
                   "divergences": t.divergences, "divergence_total": t.divergence_total} for t in res.tests],
    }


def render(res: CoverageResult) -> str:
    show = res.show
    doc = {
        "tool": "cltc coverage", "suite": show(res.suite), "root": str(res.report_paths().root),
        "backend": res.backend,
        **({"command": res.command} if res.command else {}),
        **({"combined": res.combined} if res.combined else {}),
        "total": _tally(res.total()),
        "functions": {n: _tally(t) for n, t in res.tally_by("function").items()},
        "files": {show(n): _tally(t) for n, t in res.tally_by("file").items()},
        "items": [{**asdict(i), "file": show(i.file)} for i in res.items()],
        "divergences": [{**d, "file": show(d["file"])} for d in res.divergences()],
        "tests": res.contributions(),
        "warnings": res.warnings,
        "data": data(res),
    }
    return json.dumps(doc, indent=1) + "\n"
