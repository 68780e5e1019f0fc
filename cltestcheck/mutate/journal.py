"""`cltc mutate --results FILE`: one tidy CSV row per judged mutant, appended as it finishes.

A rerun with the same file judges only the mutants it does not hold yet: an interrupted campaign
resumes, and after an edit only the mutants whose function (or a device function it calls)
changed, and new ones, are judged (rows whose status is `failed`, i.e. the infrastructure could
not judge them, are judged again). A row is matched by the mutant's key (code_keys.py), not by its
id or line. Every row carries the campaign's fingerprint (tests and their expected outputs, runs,
backend, defines, flags, and the program's host code as tokens); a file from another campaign is
refused rather than mixed in.

The file is read strictly (read_journal): a last row cut short by a crash mid-write is dropped with a
note (its mutant is judged again); any other row that does not parse, or two rows that give one
mutant different verdicts, stop the campaign with the file and line, since either means the file
was damaged or edited and its verdicts cannot be trusted."""
from __future__ import annotations

import csv
import hashlib
import io
import json
import sys
from dataclasses import asdict
from pathlib import Path

from instrument.errors import UserError
from instrument.execution.journal import CsvJournal

from .outcomes import MutantOutcome, Status

COLUMNS = ["campaign", "key", "id", "operator", "file", "line", "col", "replacement", "status", "reason",
           "killed_by", "covered_by", "kills"]


def fingerprint(suite, backend: str, runs: int, host_key: str) -> str:
    h = hashlib.sha256()
    h.update(json.dumps({"backend": backend, "runs": runs, "host": host_key,
                         "tests": [asdict(t) for t in suite.tests], "defines": suite.defines,
                         "flags": suite.flags,
                         # (each backend's own only where there are some: a suite without keeps its campaigns)
                         **({"gpu_flags": suite.gpu_flags, "cpu_flags": suite.cpu_flags}
                            if suite.gpu_flags or suite.cpu_flags else {})}, sort_keys=True, default=str).encode())
    for f in sorted({str(p) for t in suite.tests for p in t.output_files.values()}):
        try:
            h.update(f.encode() + b"\0" + Path(f).read_bytes())
        except OSError:
            h.update(f.encode() + b"\0missing")
    return h.hexdigest()[:16]


def command_fingerprint(command: list[str], cwd: Path, backend: str, runs: int, host_key: str) -> str:
    """`cltc mutate -- COMMAND`'s campaign: the command and where it runs, the backend, runs, and the
    host code of the units built for mutation (code the build compiled without cltc, host sources and
    the tests, is not seen: delete the file after editing it)."""
    doc = {"command": command, "cwd": str(cwd), "backend": backend, "runs": runs, "host": host_key}
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()[:16]


class MutantJournal:
    def __init__(self, path: Path, campaign: str):
        self.path = Path(path)
        self.campaign = campaign
        numbered = read_journal(self.path)
        other = [r for r in numbered if r[1]["campaign"] != campaign]
        if other:
            raise UserError(f"{self.path} holds results of another mutation campaign (other tests or expected "
                            "outputs, another command, host code, defines, flags, --runs or backend)",
                            hint="give --results a new file, or delete this one to start over")
        _refuse_conflicts(self.path, numbered)
        self.rows = [row for _, row in numbered]
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


_JSON_FIELDS = {"killed_by": "a JSON list of test names", "covered_by": "a JSON list of test names",
                "kills": "a JSON table of test name = [runs that killed, runs]"}


def read_journal(path: Path) -> list[tuple[int, dict]]:
    """(line number, row) for every row of the journal at `path`, in file order; [] when there is
    none. A last row that a crash cut short is dropped with a note on stderr; any other damage is a
    UserError naming the file and line."""
    path = Path(path)
    if not path.is_file():
        return []
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _damaged(path, data.count(b"\n", 0, exc.start) + 1, "is not UTF-8 text") from None
    whole = text[:text.rfind("\n") + 1]   # a crash mid-write leaves a last line without its newline
    records, torn_line = _records(path, whole, torn=whole != text)
    if whole != text and torn_line is None:
        torn_line = whole.count("\n") + 1
    if records and records[0][1] != COLUMNS:
        raise UserError(f"{path}: not a cltc mutate results file of this version (columns {records[0][1]})",
                        hint="give --results a new file, or delete this one to start over")
    if torn_line is not None and records:
        print(f"cltc: note: {path}: line {torn_line}: dropped the last row, which was cut short (a campaign "
              f"stopped while writing it); its mutant is judged again", file=sys.stderr)
    return [(line, _row(path, line, fields)) for line, fields in records[1:]]


def _records(path: Path, text: str, torn: bool) -> tuple[list[tuple[int, list[str]]], int | None]:
    """(first line, fields) of every CSV record of `text` (a record can span lines: quoted
    newlines), and where a torn file's last record begins when it is still open at the end."""
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    out, line = [], 1
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            return out, None
        except csv.Error as exc:
            if torn and reader.line_num >= text.count("\n"):   # the torn record began on an earlier line
                return out, line
            raise _damaged(path, line, f"is not a CSV row ({exc})") from None
        out.append((line, fields))
        line = reader.line_num + 1


def _row(path: Path, line: int, fields: list[str]) -> dict:
    """The row's columns, each checked to be what `add` writes."""
    if len(fields) != len(COLUMNS):
        raise _damaged(path, line, f"has {len(fields)} fields, not the {len(COLUMNS)} columns {', '.join(COLUMNS)}")
    row = dict(zip(COLUMNS, fields))
    for key in ("id", "line", "col"):
        if not row[key].lstrip("-").isdigit():
            raise _damaged(path, line, f"'{key}' is {row[key][:40]!r}, not an integer")
    for key, what in _JSON_FIELDS.items():
        try:
            value = json.loads(row[key])
        except ValueError:
            value = None
        if not _json_ok(key, value):
            raise _damaged(path, line, f"'{key}' is {row[key][:60]!r}, not {what}")
    return row


def _json_ok(key: str, value) -> bool:
    if key == "kills":
        return isinstance(value, dict) and all(
            isinstance(v, list) and len(v) == 2 and all(isinstance(n, int) and not isinstance(n, bool) for n in v)
            for v in value.values())
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _refuse_conflicts(path: Path, numbered: list[tuple[int, dict]]) -> None:
    """Two judged rows for one mutant (same key, operator and replacement) must agree: otherwise
    which verdict holds is unknown (a row edited by hand, or journals of two runs mixed)."""
    seen: dict[tuple, tuple[int, dict]] = {}
    for line, row in numbered:
        if row["status"] not in _JUDGED:
            continue   # failed (or not a status): judged again, whatever it says
        mutant = (row["key"], row["operator"], row["replacement"])
        first = seen.setdefault(mutant, (line, row))
        if _verdict(first[1]) != _verdict(row):
            raise UserError(f"{path}:{line}: this row gives mutant {row['id']} ({row['operator']} at "
                            f"{row['file']}:{row['line']}) the verdict '{row['status']}', but line {first[0]} "
                            f"gives it '{first[1]['status']}'",
                            hint="the file was edited or two campaigns' rows were mixed: delete one of the two "
                                 "rows (or both, to judge that mutant again), or delete the file to start over")


_JUDGED = {s.value for s in Status if s is not Status.FAILED}


def _verdict(row: dict) -> str:
    return row["status"]


def _damaged(path: Path, line: int, what: str) -> UserError:
    return UserError(f"{path}:{line}: this row {what}",
                     hint="the file is damaged: delete this row to judge its mutant again, or delete the file "
                          "to start the campaign over")
