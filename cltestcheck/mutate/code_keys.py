"""What a mutant's outcome depends on, as hashes of tokens (comments and layout do not count), so
a campaign's results survive edits elsewhere (Stryker's incremental mode):

- a mutant's key: its file's name, its function's tokens and those of every device function it
  calls (transitively), where in those tokens the mutated text sits, the operator and the
  replacement. An edit to that function or a callee makes a new key: the mutant is judged again.
- the host key: every token of the program outside device code (host code decides the inputs and
  the launches, so an edit there judges every mutant again; journal.py puts it in the campaign).
"""
from __future__ import annotations

import bisect
import hashlib
import os

from instrument.frontend.parse import Span
from instrument.frontend.query import Function, Program


def _digest(*parts) -> str:
    return hashlib.sha256("\x1f".join(map(str, parts)).encode()).hexdigest()[:24]


class CodeKeys:
    def __init__(self) -> None:
        self._fn: dict[tuple, str] = {}      # (file, start) of a definition -> its tokens' digest
        self._host = hashlib.sha256()

    def _definition(self, prog: Program, span: Span, name: str) -> Function | None:
        for d in prog.definitions:
            if d.name == name and d.span.file == span.file and d.span.start <= span.start < d.span.end:
                return d
        return None

    def _tokens(self, prog: Program, d: Function) -> list[str]:
        return [t.spelling for t in prog.unit.source(d.span.file).tokens_in(d.span.start, d.span.end)]

    def _closure(self, prog: Program, name: str) -> str:
        """The digest of a function's definitions and every function it calls, by name."""
        seen, todo, parts = {name}, [name], []
        while todo:
            n = todo.pop()
            for d in prog.definitions:
                if d.name == n:
                    k = (d.span.file, d.span.start)
                    if k not in self._fn:
                        self._fn[k] = _digest(*self._tokens(prog, d))
                    parts.append(f"{n}={self._fn[k]}")
            for callee in sorted(prog.calls.get(n, ())):
                if callee not in seen:
                    seen.add(callee)
                    todo.append(callee)
        return _digest(*sorted(parts))

    def place(self, prog: Program, span: Span, fn: str) -> str:
        """Where a mutated span sits, independent of lines: '' when its function is not found."""
        d = self._definition(prog, span, fn)
        if d is None:
            return ""
        toks = prog.unit.source(d.span.file).tokens_in(d.span.start, d.span.end)
        offsets = [t.offset for t in toks]
        first = bisect.bisect_left(offsets, span.start)
        count = bisect.bisect_left(offsets, span.end) - first
        return _digest(os.path.basename(span.file), fn, self._closure(prog, fn), first, count)

    @staticmethod
    def mutant(place: str, operator: str, replacement: str) -> str:
        return _digest(place, operator, replacement) if place else ""

    def add_host(self, prog: Program) -> None:
        """Add the program's tokens outside device code to the host key."""
        device = prog.device_reachable()   # a __host__ __device__ function stays host code too
        spans = sorted((d.span.file, d.span.start, d.span.end) for d in prog.definitions
                       if d.name in device and d.kind != "host_device")
        for path in sorted(prog.unit.user_files):
            inside = [(a, b) for f, a, b in spans if f == path]
            toks = prog.unit.source(path).tokens
            self._host.update(os.path.basename(path).encode() + b"\0")
            for t in toks:
                if not any(a <= t.offset < b for a, b in inside):
                    self._host.update(t.spelling.encode() + b"\x1f")

    @property
    def host(self) -> str:
        return self._host.hexdigest()[:24]
