"""Our mutation JSON: every mutant with its status (undecided kept apart), scores, references."""
from __future__ import annotations

import json
from dataclasses import asdict

from ..report_files import paths_of
from .outcomes import MutationResult
from .planner import selector
from .results import by, counts


def render(res: MutationResult, paths=None) -> str:
    """`paths`: the root (--root): files relative to it, absolute outside it."""
    paths = paths_of(res.suite, paths)
    doc = {
        "tool": "cltc mutate", "suite": paths.show(res.suite), "root": str(paths.root), **({"command": res.command} if res.command else {}),
        "backend": res.backend, "runs": res.runs,
        "operators": res.operators, "summary": counts(res.outcomes),
        "scope": {"options": res.scope, "left_out": res.out_of_scope},
        "by_function": by(res, "function"), "by_operator": by(res, "operator"),
        "schemata": {"builds": 1, "separate_builds": res.separate_builds,
                     "not_compilable": [{**asdict(m), "file": paths.show(m.file)} for m in res.not_compilable],
                     "build_s": round(res.build_s, 3), "judge_s": round(res.judge_s, 3)},
        "mutants": [{**asdict(o.mutant), "file": paths.show(o.mutant.file), **({"selector": selector(o.mutant)} if res.command else {}), "status": o.status, "reason": o.reason, "killed_by": o.killed_by,
                     "covered_by": o.covered_by, "kills": o.kills} for o in res.outcomes],
        "tests": [{"name": r.test.name, "reached_sites": len(r.reached), "wall_s": round(r.obs.wall_s, 4),
                   "note": r.note} for r in res.references],
        "warnings": res.warnings,
        "execution": res.execution.as_dict() if res.execution is not None else None,
    }
    return json.dumps(doc, indent=1) + "\n"
