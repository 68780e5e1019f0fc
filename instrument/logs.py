"""Typed readers of the runtimes' logs: each JSON line becomes a record dataclass, checked
against its declaration in instrument/protocol.py (the same declaration the C++ writers are
generated from). A log a program damaged is a clear error naming the line, never a traceback."""
from __future__ import annotations

import functools
import json
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
    return kind == "int" or v >= 0


@functools.cache
def record_class(rec: LogRecord) -> type:
    """The dataclass of one record kind: its fields, in declaration order, typed."""
    py = {"str": str, "dim3": tuple, "uint": int, "int": int, "size": int, "u64": int}
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


DAMAGE_HINT = ("the program may have written over the tool's memory (an access out of bounds); "
                "run it with `python -m instrument.run` or compute-sanitizer's memcheck")
