"""The mutation-testing-report-schema JSON (Stryker's), so existing HTML viewers render it.
Undecided mutants are `Survived` with a statusReason that says undecided."""
from __future__ import annotations

import json
from collections import OrderedDict

from .. import __version__
from ..report_files import paths_of
from ..gates import HIGH, LOW
from .outcomes import MutationResult
from .operators import STRYKER_NAME

STATUS = {"killed": "Killed", "timeout": "Timeout", "survived": "Survived", "undecided": "Survived",
          "no-coverage": "NoCoverage", "failed": "RuntimeError", "ignored": "Ignored"}


def render(res: MutationResult, thresholds: dict[str, float] | None = None, paths=None) -> str:
    """`paths`: the root (--root), `projectRoot`; the files' keys relative to it (absolute outside it)."""
    thresholds = thresholds or {"high": HIGH, "low": LOW}
    files: OrderedDict[str, dict] = OrderedDict()
    paths = paths_of(res.suite, paths)
    root = str(paths.root)
    for o in res.outcomes:
        m = o.mutant
        name = paths.show(m.file)
        if name not in files:
            try:
                source = open(m.file, encoding="utf-8", errors="replace").read()
            except OSError:
                source = ""
            files[name] = {"language": "cpp", "source": source, "mutants": []}
        reason = o.reason
        if o.status == "undecided":
            reason = "undecided (killed in some runs only; schedule-dependent): " + reason
        entry = {
            "id": str(m.id), "mutatorName": STRYKER_NAME[m.operator], "replacement": m.replacement,
            "description": m.description,
            "location": {"start": {"line": m.line, "column": m.col}, "end": {"line": m.end_line, "column": m.end_col}},
            "status": STATUS[o.status], "statusReason": reason,
            "coveredBy": o.covered_by, "killedBy": o.killed_by,
            "testsCompleted": sum(n for _, n in o.kills.values()),
        }
        files[name]["mutants"].append(entry)
    doc = {"$schema": "https://git.io/mutation-testing-schema", "schemaVersion": "2",
           "thresholds": {"high": thresholds["high"], "low": thresholds["low"]}, "projectRoot": root, "files": files,
           "framework": {"name": "cltc", "version": __version__}}
    if "break" in thresholds:   # the schema's thresholds hold high and low; the free-form config the rest
        doc["config"] = {"thresholds": dict(thresholds)}
    return json.dumps(doc, indent=1) + "\n"
