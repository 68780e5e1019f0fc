"""`cltc mutate --results FILE`: one tidy CSV row per judged mutant, appended as it finishes.

A rerun with the same file judges only the mutants it does not hold yet (rows whose status is
`failed`, i.e. the infrastructure could not judge them, are judged again). Every row carries the
campaign's fingerprint (sources, tests, operators, runs, backend, the mutant list); a file from
another campaign is refused rather than mixed in."""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from pathlib import Path

from instrument.errors import UserError
from instrument.execution.journal import CsvJournal, read_rows

from .outcomes import MutantOutcome, Status

COLUMNS = ["campaign", "id", "operator", "file", "line", "col", "replacement", "status", "reason",
           "killed_by", "covered_by", "kills"]


def fingerprint(suite, backend: str, operators, runs: int, mutants) -> str:
    h = hashlib.sha256()
    h.update(json.dumps({"backend": backend, "runs": runs, "operators": list(operators),
                         "tests": [asdict(t) for t in suite.tests], "defines": suite.defines,
                         "flags": suite.flags}, sort_keys=True, default=str).encode())
    for m in mutants:
        h.update(f"{m.id}:{m.file}:{m.start}:{m.end}:{m.operator}:{m.replacement}\n".encode())
    files = sorted({str(p) for p in suite.sources} | {m.file for m in mutants}
                   | {str(p) for t in suite.tests for p in t.output_files.values()})
    for f in files:
        try:
            h.update(f.encode() + b"\0" + Path(f).read_bytes())
        except OSError:
            h.update(f.encode() + b"\0missing")
    return h.hexdigest()[:16]


class MutantJournal:
    def __init__(self, path: Path, campaign: str):
        self.path = Path(path)
        self.campaign = campaign
        self.rows = read_rows(self.path, COLUMNS)
        other = [r for r in self.rows if r["campaign"] != campaign]
        if other:
            raise UserError(f"{self.path} holds results of another mutation campaign (other sources, tests, "
                            "operators, --runs or backend)",
                            hint="give --results a new file, or delete this one to start over")
        self._journal = CsvJournal(self.path, COLUMNS)

    def finished(self, mutants) -> dict:
        """Mutant id -> MutantOutcome for the mutants this file already holds (last row wins)."""
        by_id = {m.id: m for m in mutants}
        out = {}
        for r in self.rows:
            m = by_id.get(int(r["id"]))
            if m is None or (r["operator"], r["replacement"]) != (m.operator, m.replacement):
                continue
            try:
                status = Status(r["status"])
            except ValueError:   # not a status: the mutant is judged again
                status = Status.FAILED
            if status is Status.FAILED:
                out.pop(m.id, None)
                continue
            out[m.id] = MutantOutcome(m, status, r["reason"], json.loads(r["killed_by"]),
                                      json.loads(r["covered_by"]), json.loads(r["kills"]))
        return out

    def add(self, o) -> None:
        m = o.mutant
        self._journal.add({"campaign": self.campaign, "id": m.id, "operator": m.operator, "file": m.file,
                           "line": m.line, "col": m.col, "replacement": m.replacement, "status": o.status,
                           "reason": o.reason, "killed_by": json.dumps(o.killed_by),
                           "covered_by": json.dumps(o.covered_by), "kills": json.dumps(o.kills)})

    def close(self) -> None:
        self._journal.close()
