"""`cltc mutate --results FILE`: one tidy CSV row per judged mutant, appended as it finishes.

A rerun with the same file judges only the mutants it does not hold yet: an interrupted campaign
resumes, and after an edit only the mutants whose function (or a device function it calls)
changed, and new ones, are judged (rows whose status is `failed`, i.e. the infrastructure could
not judge them, are judged again). A row is matched by the mutant's key (code_keys.py), not by its
id or line. Every row carries the campaign's fingerprint (tests and their expected outputs, runs,
backend, defines, flags, and the program's host code as tokens); a file from another campaign is
refused rather than mixed in."""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from pathlib import Path

from instrument.errors import UserError
from instrument.execution.journal import CsvJournal, read_rows

from .outcomes import MutantOutcome, Status

COLUMNS = ["campaign", "key", "id", "operator", "file", "line", "col", "replacement", "status", "reason",
           "killed_by", "covered_by", "kills"]


def fingerprint(suite, backend: str, runs: int, host_key: str) -> str:
    h = hashlib.sha256()
    h.update(json.dumps({"backend": backend, "runs": runs, "host": host_key,
                         "tests": [asdict(t) for t in suite.tests], "defines": suite.defines,
                         "flags": suite.flags}, sort_keys=True, default=str).encode())
    for f in sorted({str(p) for t in suite.tests for p in t.output_files.values()}):
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
            raise UserError(f"{self.path} holds results of another mutation campaign (other tests or expected "
                            "outputs, host code, defines, flags, --runs or backend)",
                            hint="give --results a new file, or delete this one to start over")
        self._journal = CsvJournal(self.path, COLUMNS)

    def finished(self, mutants) -> dict:
        """Mutant id -> MutantOutcome for the mutants this file already holds, matched by key
        (last row wins)."""
        by_key = {m.key: m for m in mutants if m.key}
        out = {}
        for r in self.rows:
            m = by_key.get(r["key"])
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
        self._journal.add({"campaign": self.campaign, "key": m.key, "id": m.id, "operator": m.operator, "file": m.file,
                           "line": m.line, "col": m.col, "replacement": m.replacement, "status": o.status,
                           "reason": o.reason, "killed_by": json.dumps(o.killed_by),
                           "covered_by": json.dumps(o.covered_by), "kills": json.dumps(o.kills)})

    def close(self) -> None:
        self._journal.close()
