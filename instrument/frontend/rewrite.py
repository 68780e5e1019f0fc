"""Apply planned text edits to source files in one pass.

An `EditPlan` collects edit *groups* (a wrap is one group of two insertions);
a group that touches a macro expansion is dropped whole with a warning that
names the site, unless the planner says it expands the macro on purpose.
`apply()` refuses overlapping edits with a RewriteConflict, and emits `#line`
directives so that compiler messages and reports about instrumented code
point at the user's original file and line.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from ..errors import RewriteConflict
from .parse import ParsedUnit, Span


@dataclass(frozen=True)
class Edit:
    file: str
    start: int
    end: int          # == start for an insertion
    text: str
    origin: str       # what planned it, for messages: "hirace read a[i] at k.cu:4:5"
    order: tuple = ()  # tie-break among insertions at one offset (smaller first)
    # the text in a copy of the code that calls the tool's quiet runtime (hirace's quiet versions of
    # kernels); None: the edit has no such form, and code that holds it gets no copy
    quiet: str | None = None

    @property
    def is_insertion(self) -> bool:
        return self.start == self.end


@dataclass
class EditPlan:
    unit: ParsedUnit | None = None
    edits: list[Edit] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    preludes: dict[str, list[str]] = field(default_factory=dict)
    _groups: set = field(default_factory=set, repr=False)
    _seq: int = 0

    def _add_group(self, group: list[Edit], site: Span, allow_macro: bool) -> bool:
        if self.unit is not None and not allow_macro:
            m = self.unit.macro_at(site)
            if m is not None:
                self.warnings.append(f"{site.where()}: not instrumented: {group[0].origin} lies in "
                                     f"an expansion of macro '{m.name}' (write it without the macro "
                                     f"to have it checked)")
                return False
        key = tuple(group)
        if key in self._groups:    # a macro argument expanded twice yields the same edits
            return True
        self._groups.add(key)
        self.edits.extend(group)
        return True

    def replace(self, span: Span, text: str, origin: str, allow_macro: bool = False) -> bool:
        return self._add_group([Edit(span.file, span.start, span.end, text, origin)], span, allow_macro)

    def insert(self, span: Span, offset: int, text: str, origin: str, order: tuple = (),
               allow_macro: bool = False, quiet: str | None = None) -> bool:
        return self._add_group([Edit(span.file, offset, offset, text, origin, order, quiet)], span,
                               allow_macro)

    def wrap(self, span: Span, before: str, after: str, origin: str,
             allow_macro: bool = False, quiet: tuple[str, str] | None = None) -> bool:
        """Surround span: nested wraps compose (outer opens first, inner closes first;
        of two wraps of the same span, the one planned first is the outer). `quiet`: (before, after)
        in a quiet copy (Edit.quiet)."""
        length = span.end - span.start
        self._seq += 1
        qb, qa = quiet if quiet is not None else (None, None)
        return self._add_group([
            Edit(span.file, span.start, span.start, before, origin, (1, -length, self._seq), qb),
            Edit(span.file, span.end, span.end, after, origin, (0, length, -self._seq), qa),
        ], span, allow_macro)

    def wrap_replace(self, span: Span, before: str, after: str, inner: list[tuple[Span, str]],
                     origin: str, allow_macro: bool = False) -> bool:
        """A wrap of span plus replacements inside it, applied all together or not at all."""
        length = span.end - span.start
        self._seq += 1
        group = []
        if before:
            group.append(Edit(span.file, span.start, span.start, before, origin, (1, -length, self._seq)))
        group += [Edit(sp.file, sp.start, sp.end, text, origin) for sp, text in inner]
        if after:
            group.append(Edit(span.file, span.end, span.end, after, origin, (0, length, -self._seq)))
        return self._add_group(group, span, allow_macro)

    def add_prelude(self, file: str, text: str) -> None:
        """Text placed before the file's first line (includes, declarations)."""
        self.preludes.setdefault(file, []).append(text)

    def files(self) -> set[str]:
        return {e.file for e in self.edits} | set(self.preludes)


def line_name(path: str) -> str:
    """A file name as a `#line` directive's string: quotes and backslashes escaped, and every control
    character (a newline in a name would end the directive and let the rest be a directive of its
    own) as an octal escape."""
    out = []
    for ch in path:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\{ord(ch):03o}")
        else:
            out.append(ch)
    return "".join(out)


def split_top_level(text: str) -> list[str]:
    """A parameter or argument list's items (`int *a, F<1, 2> b` or a template's `16, float`), split at
    its top-level commas ("void" or nothing: none)."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "(<[{":
            depth += 1
        elif ch in ")>]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip() and cur.strip() != "void":
        out.append(cur.strip())
    return out


def one_line(expr: str) -> str:
    """An expression copied from the source into an edit, on one line (an edit inserts no line
    breaks mid-line): line comments dropped, line breaks made spaces."""
    if "\n" not in expr:
        return expr
    out, quote, i = [], "", 0
    while i < len(expr):
        ch = expr[i]
        if quote:
            out.append(ch)
            if ch == "\\" and i + 1 < len(expr):
                out.append(expr[i + 1])
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
            out.append(ch)
        elif expr.startswith("//", i):
            while i < len(expr) and expr[i] != "\n":
                i += 1
            continue
        else:
            out.append(" " if ch in "\r\n" else ch)
        i += 1
    return "".join(out)


BOM = b"\xef\xbb\xbf"   # a UTF-8 byte order mark: kept first, before any prelude


def apply(data: bytes, edits: list[Edit], path: str, prelude: list[str] | None = None,
          line_directives: bool = True, mark_origin: bool = False) -> bytes:
    """Return `data` with `edits` applied; refuse overlaps; keep line mapping.

    mark_origin=True starts the result with `#line 1 "path"` even without a
    prelude, for a copy that is compiled from another directory."""
    bom = data.startswith(BOM)
    if bom:   # (libclang's offsets count it; a compiler takes it only as a file's first bytes)
        data = data[len(BOM):]
        edits = [dataclasses.replace(e, start=max(0, e.start - len(BOM)), end=max(0, e.end - len(BOM)))
                 for e in edits]
    # Insertions sort before a replacement starting at the same offset; an
    # insertion strictly inside a replaced range is a conflict.
    ordered = sorted(edits, key=lambda e: (e.start, 0 if e.is_insertion else 1, e.order, e.end))
    reps = [e for e in ordered if not e.is_insertion]
    for a, b in zip(reps, reps[1:]):
        if b.start < a.end:
            raise RewriteConflict(f"{path}: overlapping edits: {a.origin} and {b.origin}")
    for e in ordered:
        if e.is_insertion:
            for r in reps:
                if r.start < e.start < r.end:
                    raise RewriteConflict(f"{path}: edit inside a replaced range: {e.origin} "
                                          f"within {r.origin}")
        if e.end > len(data) or e.start < 0:
            raise RewriteConflict(f"{path}: edit outside the file: {e.origin}")
    out = bytearray(BOM if bom else b"")
    quoted = line_name(path)
    for p in prelude or ():
        out += p.encode()
        if not p.endswith("\n"):
            out += b"\n"
    if line_directives and (prelude or mark_origin):
        out += f'#line 1 "{quoted}"\n'.encode()
    pos = 0
    line = 1
    for e in ordered:
        if e.start < pos:   # insertion at the end of an already applied replacement
            if not (e.is_insertion and e.start == pos):
                raise RewriteConflict(f"{path}: overlapping edits at offset {e.start}: {e.origin}")
        chunk = data[pos:e.start]
        out += chunk
        line += chunk.count(b"\n")
        text = e.text.encode()
        replaced = data[e.start:e.end]
        line += replaced.count(b"\n")
        out += text
        if b"\n" in text:
            at_line_start = e.start == 0 or data[e.start - 1:e.start] == b"\n"
            at_end = e.is_insertion and e.start == len(data)   # (no line follows whose number could move)
            if not (e.is_insertion and at_line_start and text.endswith(b"\n")) and not at_end:
                raise RewriteConflict(f"{path}: multi-line edit in mid-line: {e.origin}")
            if line_directives:
                out += f'#line {line} "{quoted}"\n'.encode()
        elif b"\n" in replaced and line_directives:
            # a replacement swallowed lines: resynchronise after the current line
            out += b"\n" + f'#line {line} "{quoted}"\n'.encode()
        pos = max(pos, e.end)
    out += data[pos:]
    return bytes(out)


def apply_plan(plan: EditPlan, sources: dict[str, bytes]) -> dict[str, bytes]:
    """Apply a plan to each file it touches; `sources` maps path -> original bytes."""
    result = {}
    for path in sorted(plan.files()):
        edits = [e for e in plan.edits if e.file == path]
        result[path] = apply(sources[path], edits, path, plan.preludes.get(path))
    return result
