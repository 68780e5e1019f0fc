"""Which mutants a `cltc mutate` campaign judges (Stryker's `--mutate`): files by glob, optionally line
ranges of them (`--mutate 'src/scan.cu:10-40'`; `!GLOB` leaves files out), kernels and device functions
by name (`--kernel`), and the lines changed since a git revision (`--since origin/main`,
instrument/git_diff.py). Every mutant is still planned and built (one build of the schemata); those
the scope leaves out are not judged, not counted in the score and not in the reports, which say how
many were left out. A glob or name that matches nothing is an error (a typo would quietly shrink the
campaign); a `--since` that leaves nothing is not (nothing changed: nothing to judge)."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Callable

from instrument.errors import UserError

from .planner import Mutant

_RANGES = re.compile(r"\d+(-\d+)?(,\d+(-\d+)?)*")


@dataclass(frozen=True)
class Pattern:
    text: str                                  # as given
    glob: str
    lines: tuple[tuple[int, int], ...] = ()    # inclusive ranges; empty: the whole file
    exclude: bool = False                      # `!GLOB`: these files are left out

    def matches_file(self, names: tuple[str, ...]) -> bool:
        globs = (self.glob, self.glob[3:]) if self.glob.startswith("**/") else (self.glob,)
        return any(fnmatchcase(n, g) for n in names for g in globs)

    def matches(self, names: tuple[str, ...], m: Mutant) -> bool:
        return self.matches_file(names) and (
            not self.lines or any(a <= m.end_line and m.line <= b for a, b in self.lines))


def parse_pattern(text: str, option: str = "--mutate") -> Pattern:
    """GLOB, GLOB:LINE[-LINE][,LINE[-LINE]...], or either after `!` (left out)."""
    exclude = text.startswith("!")
    body = text[1:] if exclude else text
    glob, _, tail = body.rpartition(":")
    lines: list[tuple[int, int]] = []
    if glob and _RANGES.fullmatch(tail):
        for part in tail.split(","):
            a, _, b = part.partition("-")
            lo, hi = int(a), int(b or a)
            if lo < 1 or hi < lo:
                raise UserError(f"{option} {text!r}: the line range {part} is empty (write FIRST-LAST, lines from 1)")
            lines.append((lo, hi))
    else:
        glob = body
    if not glob:
        raise UserError(f"{option} {text!r}: give a file glob (src/*.cu), optionally with lines (src/scan.cu:10-40)")
    return Pattern(text, glob, tuple(lines), exclude)


@dataclass
class Scope:
    root: Path                                 # the suite's directory (a command: the current one): git runs there
    patterns: list[Pattern] = field(default_factory=list)
    kernels: list[str] = field(default_factory=list)
    since: str | None = None
    changed: dict[str, set[int] | None] | None = None   # --since: real path -> changed lines (None: all)
    shown: Callable[[str], str] | None = None  # a file as the reports name it (relative to --root)

    @classmethod
    def of(cls, root: Path, patterns=None, kernels=None, since: str | None = None,
           shown: Callable[[str], str] | None = None) -> "Scope | None":
        """The scope the options give (None: every mutant). `--since` asks git now, before anything is
        built, so a revision that does not exist fails at once."""
        if not (patterns or kernels or since):
            return None
        scope = cls(Path(root), [parse_pattern(p) for p in patterns or []], list(kernels or []), since,
                    shown=shown)
        for k in scope.kernels:
            if not k.strip():
                raise UserError("--kernel: give a kernel or device function name (or a glob: 'reduce*')")
        if since:
            from instrument.git_diff import changed_lines
            scope.changed = changed_lines(scope.root, since)
        return scope

    def describe(self) -> str:
        parts = [f"--mutate {p.text}" for p in self.patterns] + [f"--kernel {k}" for k in self.kernels]
        return ", ".join(parts + ([f"--since {self.since}"] if self.since else []))

    def _names(self, file: str) -> tuple[str, ...]:
        """A file as globs see it: as the reports name it, relative to the suite's directory (a command:
        the current one), and its absolute path (with '/')."""
        real = os.path.realpath(file)
        rel = os.path.relpath(real, os.path.realpath(self.root)).replace(os.sep, "/")
        return ((self.shown(file),) if self.shown else ()) + (rel, real.replace(os.sep, "/"))

    def _kernel(self, m: Mutant) -> bool:
        names = (m.function, m.function.rsplit("::", 1)[-1])
        return any(fnmatchcase(n, k) for n in names for k in self.kernels)

    def _changed(self, m: Mutant) -> bool:
        lines = self.changed.get(os.path.realpath(m.file), set())
        return lines is None or any(line in lines for line in range(m.line, max(m.line, m.end_line) + 1))

    def check(self, mutants: list[Mutant]) -> None:
        """Each glob must name a file that holds mutants, each --kernel a function that does."""
        files = sorted({m.file for m in mutants})
        for p in self.patterns:
            if not any(p.matches_file(self._names(f)) for f in files):
                shown = ", ".join(self._names(f)[0] for f in files[:8]) + (", ..." if len(files) > 8 else "")
                raise UserError(f"--mutate {p.text}: the glob {p.glob!r} matches none of the files that hold mutants "
                                f"({shown or 'none'})")
        functions = sorted({m.function for m in mutants})
        for k in self.kernels:
            if not any(fnmatchcase(n, k) for f in functions for n in (f, f.rsplit("::", 1)[-1])):
                shown = ", ".join(functions[:12]) + (", ..." if len(functions) > 12 else "")
                raise UserError(f"--kernel {k}: no kernel or device function with mutants is named so "
                                f"({shown or 'none has mutants'})")

    def __call__(self, m: Mutant) -> bool:
        """Whether the scope holds the mutant."""
        names = self._names(m.file)
        takes = [p for p in self.patterns if not p.exclude]
        if takes and not any(p.matches(names, m) for p in takes):
            return False
        if any(p.matches(names, m) for p in self.patterns if p.exclude):
            return False
        if self.kernels and not self._kernel(m):
            return False
        return self.changed is None or self._changed(m)

    def select(self, mutants: list[Mutant]) -> tuple[list[Mutant], int]:
        """(the mutants in scope, how many it left out), after `check`."""
        self.check(mutants)
        kept = [m for m in mutants if self(m)]
        return kept, len(mutants) - len(kept)


def select(scope: Scope | None, mutants: list[Mutant]) -> tuple[list[Mutant], int]:
    return (list(mutants), 0) if scope is None else scope.select(mutants)
