"""The user headers a C source includes. C sources are built as they are (they hold no CUDA), so
libclang never parses them; the headers only they reach must still be written beside them, or the
instrumented tree does not build on its own (`#include "./util/num.h"` from main.c)."""
from __future__ import annotations

import os
import re
import stat
from pathlib import Path

_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*(?:"([^"\n]+)"|<([^>\n]+)>)', re.M)


def _found(name: str, places) -> Path | None:
    """Where a compiler would find `name` among `places` (an absolute name is itself); a
    directory of that name is passed over, as header search does."""
    return next((p / name for p in places if os.path.exists(p / name) and not os.path.isdir(p / name)), None)


def user_headers(source: Path, include_dirs=()) -> list[Path]:
    """Every file `source` includes, directly or through others, found where a compiler looks for
    it outside the system: a quoted name beside its includer, then in include_dirs; a bracketed
    name in include_dirs only. Names under #if are taken too (an extra file is harmless); names
    found nowhere, and names that are no regular file (irregular_includes), are left out."""
    return [hit for hit, _ in _walk(source, include_dirs) if hit is not None]


def irregular_includes(source: Path, include_dirs=()) -> list[str]:
    """`file:line: name` of each #include, reached from `source` through user files, that names
    something a parser must not open: a FIFO (it blocks), a device (`/dev/zero` never ends), a
    socket. Asked before libclang parses, which reads an included file to its end whatever it is.
    (An include whose name a macro computes is not seen here.)"""
    return [bad for _, bad in _walk(source, include_dirs) if bad is not None]


def _walk(source: Path, include_dirs):
    """(user file reached, None) for each regular file included, (None, 'file:line: ...') for each
    include naming something that is not one."""
    dirs = [Path(d).resolve() for d in include_dirs]
    first = Path(source).resolve()
    seen: set[Path] = {first}
    todo = [first]
    while todo:
        f = todo.pop()
        try:
            if not stat.S_ISREG(os.stat(f).st_mode):
                continue
            text = f.read_bytes()
        except OSError:
            continue
        for m in _INCLUDE.finditer(text):
            quoted, bracketed = m.groups()
            name = (quoted or bracketed).decode(errors="replace")
            hit = _found(name, ([f.parent] if quoted else []) + dirs)
            if hit is None:
                continue
            try:
                regular = stat.S_ISREG(os.stat(hit).st_mode)
            except OSError:
                continue
            if not regular:
                line = text.count(b"\n", 0, m.start()) + 1
                yield None, f"{f}:{line}: #include names {hit}, which is not a regular file (a FIFO, device or socket)"
                continue
            hit = hit.resolve()
            if hit not in seen:
                seen.add(hit)
                todo.append(hit)
                yield hit, None
