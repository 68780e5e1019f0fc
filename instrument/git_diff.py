"""The lines changed since a git revision, in the work tree that holds a directory (`cltc mutate --since
REF`): `git diff --unified=0 REF` (the work tree against REF: commits since it, staged and unstaged
edits) read hunk by hunk into the changed lines of each file, and the files git does not track yet (nor
ignore) counted whole. git runs as an argument list, never through a shell; the revision is checked
before it is used (`rev-parse --verify`), and one that reads as an option is refused."""
from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from .errors import UserError

_HUNK = re.compile(rb"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")
_ESCAPES = {b"a": b"\a", b"b": b"\b", b"f": b"\f", b"n": b"\n", b"r": b"\r", b"t": b"\t", b"v": b"\v"}


def _git(top: Path, args: list[str], option: str) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(["git", "-C", str(top), *args], capture_output=True, timeout=300, check=False,
                              env={**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"})
    except FileNotFoundError:
        raise UserError(f"{option} needs git, which is not on PATH: install git, or drop {option}") from None
    except subprocess.TimeoutExpired:
        raise UserError(f"{option}: git took more than 300 s in {top}") from None


def _unquote(name: bytes) -> bytes:
    """A path as git writes it: quoted with C escapes (octal bytes) where it holds unusual characters."""
    if len(name) < 2 or not (name.startswith(b'"') and name.endswith(b'"')):
        return name
    return re.sub(rb"\\([0-7]{3}|.)", lambda m: bytes([int(m[1], 8)]) if len(m[1]) == 3 else _ESCAPES.get(m[1], m[1]),
                  name[1:-1], flags=re.S)


def parse_diff(diff: bytes, top: Path) -> dict[str, set[int]]:
    """`git diff --unified=0` output -> each changed file (its real path) -> the lines of its new text that
    were added or changed (a hunk that only deletes lines changes none)."""
    out: dict[str, set[int]] = {}
    lines: set[int] | None = None
    for raw in diff.split(b"\n"):
        if raw.startswith(b"+++ "):
            name = raw[4:].rstrip(b"\r")
            name = _unquote(name[:-1] if name.endswith(b"\t") else name)   # (git ends a name with a space so)
            if name == b"/dev/null" or not name.startswith(b"b/"):
                lines = None   # a deleted file
                continue
            lines = out.setdefault(os.path.realpath(top / os.fsdecode(name[2:])), set())
        elif lines is not None:
            m = _HUNK.match(raw)
            if m:
                start, count = int(m[1]), 1 if m[2] is None else int(m[2])
                lines.update(range(start, start + count))
    return out


def changed_lines(where: Path, ref: str, option: str = "--since") -> dict[str, set[int] | None]:
    """The files changed since `ref` in the git work tree that holds `where`: real path -> the lines
    added or changed, or None for a file git does not track (all of it is new). A directory outside a
    work tree, or a revision git does not know, is a UserError naming `option`."""
    if not ref or ref.startswith("-"):
        raise UserError(f"{option} {ref!r}: not a git revision (a branch, tag or commit such as origin/main)")
    found = _git(Path(where), ["rev-parse", "--show-toplevel"], option)
    if found.returncode != 0:
        raise UserError(f"{option} {ref}: {where} is not in a git work tree (git: "
                        f"{_first_line(found.stderr)}): run cltc where the sources are checked out, or drop {option}")
    top = Path(os.fsdecode(found.stdout.rstrip(b"\n")))
    rev = _git(top, ["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], option)
    if rev.returncode != 0:
        raise UserError(f"{option} {ref}: no such revision in the git repository at {top} (in CI, fetch it: a "
                        f"shallow clone lacks it; actions/checkout needs fetch-depth: 0)")
    sha = rev.stdout.decode().strip()
    diff = _git(top, ["-c", "core.quotePath=true", "diff", "--unified=0", "--no-color", "--no-ext-diff",
                      "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/", sha, "--"], option)
    if diff.returncode != 0:
        raise UserError(f"{option} {ref}: git diff failed in {top}: {_first_line(diff.stderr)}")
    out: dict[str, set[int] | None] = dict(parse_diff(diff.stdout, top))
    others = _git(top, ["ls-files", "-z", "--others", "--exclude-standard"], option)
    if others.returncode != 0:
        raise UserError(f"{option} {ref}: git ls-files failed in {top}: {_first_line(others.stderr)}")
    for name in filter(None, others.stdout.split(b"\0")):
        out[os.path.realpath(top / os.fsdecode(name))] = None
    return out


def _first_line(err: bytes) -> str:
    text = err.decode(errors="replace").strip()
    return text.splitlines()[0] if text else "no message"
