"""Typed readers of the runtimes' logs: each JSON line becomes a record dataclass, checked
against its declaration in instrument/protocol.py (the same declaration the C++ writers are
generated from). A log a program damaged is a clear error naming the line, never a traceback."""
from __future__ import annotations

import functools
import json
import os
from dataclasses import make_dataclass
from pathlib import Path

from .errors import UserError
from .protocol import LogRecord


class LogError(UserError):
    """A runtime log that does not read as its declaration says."""


def _ok(kind: str, v) -> bool:
    if kind == "str":
        return isinstance(v, str)
    if kind == "dim3":
        return isinstance(v, list) and len(v) == 3 and all(_ok("uint", x) for x in v)
    if isinstance(v, bool) or not isinstance(v, int):
        return False
    return kind in ("int", "i64") or v >= 0


@functools.cache
def record_class(rec: LogRecord) -> type:
    """The dataclass of one record kind: its fields, in declaration order, typed."""
    py = {"str": str, "dim3": tuple, "uint": int, "int": int, "size": int, "u64": int, "i64": int}
    name = "".join(w.capitalize() for w in rec.tag.split("_")) + "Record"
    return make_dataclass(name, [(f.name, py[f.kind]) for f in rec.fields], frozen=True)


def read(path: Path, records: tuple[LogRecord, ...], what: str) -> dict[str, list]:
    """The records of the log at path, by tag, in file order. `what` names the log in errors."""
    by_tag = {r.tag: r for r in records}
    out: dict[str, list] = {r.tag: [] for r in records}
    try:
        text = Path(path).read_text(errors="replace")
    except OSError as exc:
        raise LogError(f"{path}: cannot read {what}: {exc.strerror or exc}") from None
    for n, line in enumerate(text.splitlines(), 1):
        try:
            row = json.loads(line)
        except ValueError:
            raise LogError(f"{what} is damaged: line {n} is not a JSON record",
                           hint=DAMAGE_HINT) from None
        rec = by_tag.get(row.get("record")) if isinstance(row, dict) else None
        if rec is None:
            raise LogError(f"{what} is damaged: line {n} is not a record it declares", hint=DAMAGE_HINT)
        bad = [f.name for f in rec.fields if not _ok(f.kind, row.get(f.name))]
        if bad:
            raise LogError(f"{what} is damaged: line {n} ({rec.tag}) has bad or missing {', '.join(bad)}",
                           hint=DAMAGE_HINT)
        values = [tuple(row[f.name]) if f.kind == "dim3" else row[f.name] for f in rec.fields]
        out[rec.tag].append(record_class(rec)(*values))
    return out


def read_complete(path: Path, records: tuple[LogRecord, ...], what: str) -> dict[str, list]:
    """read(), and the log must end with its `end` record (a log cut short is an error, not a
    smaller result)."""
    log = read(path, records, what)
    if len(log.get("end", ())) != 1:
        raise LogError(f"{what} is incomplete: it has no end record, or several",
                       hint="the program ended in a way that skipped the tool's exit hook (_exit, abort, "
                            "a signal), or wrote over the tool's memory")
    return log


def write(path: Path, records: tuple[LogRecord, ...], rows: list[tuple[str, dict]]) -> None:
    """Write a log as a runtime does (for hosts written in Python): each (tag, fields) a JSON line,
    checked against its declaration; the file appears whole or not at all."""
    by_tag = {r.tag: r for r in records}
    lines = []
    for tag, fields in rows:
        rec = by_tag[tag]
        if [f.name for f in rec.fields] != list(fields) or not all(_ok(f.kind, fields[f.name]) for f in rec.fields):
            raise ValueError(f"a {tag} record does not match its declaration: {fields}")
        lines.append(json.dumps({"record": tag, **fields}))
    part = Path(f"{path}.part")
    part.write_text("".join(line + "\n" for line in lines))
    os.replace(part, path)


DAMAGE_HINT = ("the program may have written over the tool's memory (an access out of bounds); "
                "run it with `python -m instrument.run` or compute-sanitizer's memcheck")
