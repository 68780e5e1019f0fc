"""Known benign races, taken out of the findings but kept in the report (as ThreadSanitizer's
suppressions and SARIF's `suppressions` do). Two ways to mark one:
- in the source: `// hirace: benign-race` on the line of either access (or a region between
  `// hirace: benign-race-start` and `// hirace: benign-race-end`);
- in hirace.toml: `suppress = ["kernel:NAME", "variable:NAME", "FILE:LINE"]`.
A suppressed race does not make the run fail; each says what suppressed it."""
from __future__ import annotations

import re
from pathlib import Path

from instrument.errors import UserError
from instrument.frontend.suppressions import HIRACE_BENIGN, Suppressed

from .results import Race, RaceReport

_FILE_LINE = re.compile(r"^(.+):([1-9]\d*)$")


def check_entries(entries: list[str], where: str) -> None:
    """Each `suppress` entry has one of the three forms."""
    for e in entries:
        if not (e.startswith(("kernel:", "variable:")) and e.split(":", 1)[1]) and not _FILE_LINE.match(e):
            raise UserError(f"{where}: 'suppress' entry '{e}' is none of kernel:NAME, variable:NAME, FILE:LINE",
                            hint='e.g. suppress = ["kernel:bfs_step", "variable:d_over", "bfs.cu:42"]')


def _same_file(site_file: str, named: str) -> bool:
    a, b = Path(site_file).resolve().parts, Path(named).parts
    return len(b) <= len(a) and tuple(a[-len(b):]) == tuple(b)


def _by_config(r: Race, entries: list[str]) -> str:
    for e in entries:
        kind, _, name = e.partition(":")
        if (kind == "kernel" and r.kernel == name) or \
                (kind == "variable" and name in (r.variable, r.site.variable, r.prior_site and r.prior_site.variable)):
            return f"hirace.toml suppress '{e}'"
        m = _FILE_LINE.match(e)
        if m and kind not in ("kernel", "variable"):
            line = int(m.group(2))
            if any(s is not None and s.line == line and _same_file(s.file, m.group(1)) for s in (r.site, r.prior_site)):
                return f"hirace.toml suppress '{e}'"
    return ""


def apply(res: RaceReport, entries: list[str]) -> None:
    """Move the races that a comment or a `suppress` entry marks from res.races to res.suppressed."""
    marked = Suppressed(HIRACE_BENIGN)
    keep = []
    for r in res.races:
        why = _by_config(r, entries)
        for s in (r.site, r.prior_site):
            if not why and s is not None and marked(s.file, s.line):
                why = f"'hirace: benign-race' at {Path(s.file).name}:{s.line}"
        if why:
            r.suppressed = why
            res.suppressed.append(r)
        else:
            keep.append(r)
    res.races = keep
