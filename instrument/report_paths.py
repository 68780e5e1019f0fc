"""How a report names files: relative to a root (`--root DIR`, as gcovr's --root and coverage.py's
relative_files), absolute where a file lies outside it. The default root is the git work tree holding
what was measured (the nearest directory at or above it with a `.git` entry: a directory, or the file
of a worktree or a submodule), else the current directory. One place for every report of every tool:
cltc's (text, JSON, HTML, lcov, Cobertura, Stryker), hirace's (text, JSON, SARIF's %SRCROOT%, JUnit),
and the GitHub annotations' paths relative to the workspace (instrument/github.py)."""
from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass
from pathlib import Path

from .errors import UserError


def find_root(start: str | Path) -> Path:
    """The git work tree holding `start` (walked up for a `.git` entry, no git run), else the current
    directory."""
    here = Path(os.path.abspath(start))
    for d in (here, *here.parents):
        if os.path.lexists(d / ".git"):
            return d
    return Path.cwd()


@dataclass(frozen=True)
class ReportPaths:
    root: Path     # absolute

    def show(self, path: str | Path) -> str:
        """`path` as a report writes it: relative to the root (POSIX separators) where it lies under it
        (as written, or once symlinks are followed), else absolute ("." for the root itself)."""
        p = os.path.abspath(path)
        for base, q in ((str(self.root), p), (os.path.realpath(self.root), os.path.realpath(p))):
            if q == base:
                return "."
            if q.startswith(base.rstrip(os.sep) + os.sep):
                return Path(os.path.relpath(q, base)).as_posix()
        return p

    def absolute(self, shown: str) -> str:
        """A path as `show` wrote it, back to an absolute one (a relative name is the root's)."""
        return os.path.normpath(shown if os.path.isabs(shown) else os.path.join(self.root, shown))

    def selected(self, path: str | Path, include: list[str] | None, omit: list[str] | None) -> bool:
        """coverage.py's --include/--omit: a file is kept when some include pattern matches it (none
        given: every file) and no omit pattern does. A pattern is an fnmatch glob (`*` crosses `/`)
        matched against the path as reported (relative to the root) and against the absolute path."""
        names = {self.show(path), os.path.abspath(path)}

        def hit(patterns):
            return any(fnmatch.fnmatchcase(n, pat) for pat in patterns for n in names)
        return (not include or hit(include)) and not (omit and hit(omit))


def report_paths(root: str | Path | None, measured: str | Path, option: str = "--root") -> ReportPaths:
    """The paths of a run's reports: `root` as given (an existing directory, else an error naming
    `option`), or the default root of what was measured (find_root)."""
    if root is None:
        return ReportPaths(find_root(measured))
    p = Path(os.path.abspath(root))
    if not p.is_dir():
        raise UserError(f"{option} {root}: {'not a directory' if p.exists() else 'no such directory'}",
                        hint="name the directory report paths are relative to (default: the git work tree "
                             "holding what is measured, else the current directory)")
    return ReportPaths(p)
