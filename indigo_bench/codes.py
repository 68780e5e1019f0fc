"""Indigo codes: find them under a directory and read their ground truth from their names.

A code is one `.cu` file; its folder is its pattern, and its name is the pattern followed by
`_`-separated tags. Tags ending in `Bug` are injected bugs: atomicBug, guardBug, syncBug and
raceBug are data races; boundsBug is an out-of-bounds access, not a race. A code is racy iff it
carries one of the four race tags.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from instrument.errors import UserError

from .inputs import require_regular

RACE_TAGS = ("atomicBug", "guardBug", "syncBug", "raceBug")
OTHER_BUG_TAGS = ("boundsBug",)


@dataclass(frozen=True)
class Code:
    path: Path
    name: str              # file stem, unique within a sweep
    pattern: str           # the folder, relative to the codes root ("." for the root itself)
    tags: tuple[str, ...]  # every tag after the pattern's name, bugs and variants alike
    bugs: tuple[str, ...]  # the tags ending in "Bug"

    @property
    def racy(self) -> bool:
        return any(b in RACE_TAGS for b in self.bugs)

    @property
    def label(self) -> str:
        return "racy" if self.racy else "race-free"


def parse_name(stem: str, pattern: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(tags, bug tags) of a code named `stem` in folder `pattern`."""
    base = Path(pattern).name
    rest = stem[len(base):] if base not in (".", "") and stem.startswith(base) else stem
    parts = tuple(t for t in rest.split("_") if t)
    if rest is stem:
        # not prefixed by its folder: only the Bug tags can be told apart from the name
        parts = tuple(t for t in parts if t.endswith("Bug"))
    return parts, tuple(t for t in parts if t.endswith("Bug"))


def discover(root: str | Path) -> tuple[list[Code], list[str]]:
    """Every `.cu` under root, sorted; and warnings (unknown bug tags, repeated names)."""
    root = Path(root)
    if not root.is_dir():
        raise UserError(f"--codes {root}: not a directory")
    codes, warnings, seen = [], [], {}
    for path in sorted(root.rglob("*.cu")):
        require_regular(path, "code")   # the parser and the compiler would wait on a FIFO forever
        rel = path.parent.relative_to(root)
        pattern = str(rel) if str(rel) != "." else "."
        tags, bugs = parse_name(path.stem, pattern)
        unknown = [b for b in bugs if b not in RACE_TAGS + OTHER_BUG_TAGS]
        if unknown:
            warnings.append(f"{path}: unknown bug tag(s) {', '.join(unknown)}: counted as not a race")
        if path.stem in seen:
            raise UserError(f"two codes are named {path.stem}: {seen[path.stem]} and {path}",
                            hint="results are keyed by code name; rename one of them")
        seen[path.stem] = path
        codes.append(Code(path.resolve(), path.stem, pattern, tags, bugs))
    if not codes:
        raise UserError(f"--codes {root}: no .cu files found")
    return codes, warnings
