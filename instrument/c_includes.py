"""The user headers a C source includes. C sources are built as they are (they hold no CUDA), so
libclang never parses them; the headers only they reach must still be written beside them, or the
instrumented tree does not build on its own (`#include "./util/num.h"` from main.c)."""
from __future__ import annotations

import re
from pathlib import Path

_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*(?:"([^"\n]+)"|<([^>\n]+)>)', re.M)


def user_headers(source: Path, include_dirs=()) -> list[Path]:
    """Every file `source` includes, directly or through others, found where a compiler looks for
    it outside the system: a quoted name beside its includer, then in include_dirs; a bracketed
    name in include_dirs only. Names under #if are taken too (an extra file is harmless); names
    found nowhere are left to the compiler."""
    dirs = [Path(d).resolve() for d in include_dirs]
    seen: dict[Path, None] = {}
    todo = [Path(source).resolve()]
    while todo:
        f = todo.pop()
        try:
            text = f.read_bytes()
        except OSError:
            continue
        for quoted, bracketed in _INCLUDE.findall(text):
            name = (quoted or bracketed).decode(errors="replace")
            places = ([f.parent] if quoted else []) + dirs
            hit = next((p / name for p in places if (p / name).is_file()), None)
            if hit is None:
                continue
            hit = hit.resolve()
            if hit not in seen and hit != Path(source).resolve():
                seen[hit] = None
                todo.append(hit)
    return list(seen)
