"""The inputs the search keeps, written as tests in the suite's own format, in the output folder:
`SuiteWriter` for a cltc.toml suite, `PytestWriter` for a pytest suite (a test file replaying each kept
input's launches), `CommandWriter` for `cltc search -- COMMAND` (a shell script of the commands).

A cltc.toml suite's are a cltc.toml (suite.py) its [build] is the suite's (paths relative to the folder), each kept input a
[[test]] with its arguments, its standard input and its files (under inputs/NAME/ at their paths in the
suite, the arguments that named the suite's file naming the new one), the exit status it ran with, and comments saying where it
comes from and which coverage items it adds. The folder is a suite `cltc coverage --suite` measures as
it is. The files of the suite's tests that no argument names (opened by a fixed name) are copied to their
places beside it.

Every file is written whole (instrument/output.py); an input file is never written over a file that
holds something else (a rerun writes the same bytes, which it leaves as they are); the cltc.toml is
the search's own and is written again, whole, as each input is kept."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from instrument.errors import UserError
from instrument.output import atomic_write_bytes, atomic_write_text
from instrument.reaper import temp_dir

from ..suite import Suite, TestCase
from .goals import shown
from .inputs import Input, named_files

SUITE_FILE = "cltc.toml"


@dataclass
class Kept:
    name: str
    test: TestCase          # the suite's test it runs as
    inp: Input
    exit_code: int
    adds: list[str]         # what it reached first, in words
    why: str = "coverage"   # coverage | nan | inf
    where: str = ""         # nan / inf: where the run showed it (runs.py `Outcome.where`)
    run: int = 0            # the generated input it was, counted from 1 as the budget counts runs


def _toml(v) -> str:
    if isinstance(v, str):   # (a TOML basic string as JSON writes one, but DEL escaped: TOML refuses it raw)
        return json.dumps(v, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(v, list):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    return str(v)


def _comment(text: str) -> str:
    """Text for a comment line: one line, its characters that print as they are, others escaped
    (TOML refuses a control character even in a comment)."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii")
                   for c in " ".join(text.split()))


def _origin(k: Kept) -> str:
    """Where a kept input comes from, for a comment line (one line, whatever its test's name holds)."""
    origin = "" if k.inp.parent == f"test '{k.inp.seed}'" else f" (from test '{k.inp.seed}')"
    return _comment(f"made from {k.inp.parent}{origin}: {'; '.join(k.inp.how)}")


def special_text(kind: str, where: str = "") -> str:
    """`NaN in its output` (or `Inf in ...`): a finding in words."""
    return f"{'NaN' if kind == 'nan' else 'Inf'} in {where or 'its output'}"


def _notes(k: Kept, show, comment: str = "#") -> list[str]:
    """The comment lines of a kept input: the NaN/Inf it shows, what it adds."""
    lines = []
    if k.why != "coverage":
        lines.append(f"{comment} {_comment(special_text(k.why, k.where))} (its test showed none)")
    for a in k.adds:
        lines.append(f"{comment} adds: {_comment(shown(a, show))}")
    return lines


class _Writer:
    """What the writers share: files written whole, never over another."""

    def __init__(self, out: Path, seed: int, show=str):
        self.out, self.seed, self.show = Path(out).resolve(), seed, show
        self.kept: list[Kept] = []

    def _write_new(self, path: Path, data: bytes) -> None:
        if path.exists() or path.is_symlink():
            if path.is_file() and path.read_bytes() == data:
                return
            raise UserError(f"{path}: exists and holds something else; cltc search writes no file over another",
                            hint="give --out a new folder, or delete this one to start over")
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(path, data)


class PytestWriter(_Writer):
    """A pytest suite's kept inputs: OUT/test_search_found.py, a test per input that replays the launches
    of the test it was made from as that input's run made them (each launch's kernel, grid, block and
    arguments, the arrays as .npy files under inputs/NAME/: `dump`, a run of the input with the search's
    plugin dumping them, pytest_inputs.py), and links under kernels/ to the suite's kernel files (so that
    `cltc coverage --suite OUT` builds the suite's kernels and names them by their own paths)."""
    FILE = "test_search_found.py"

    def __init__(self, out: Path, suite: Suite, seed: int, show, dump):
        super().__init__(out, seed, show)
        self.suite, self.dump = suite, dump

    def _kernel_link(self, source: str) -> str:
        src = Path(source)
        root = self.suite.root.resolve()
        rel = src.relative_to(root) if src.is_relative_to(root) else Path("_outside") / src.name
        link = self.out / "kernels" / rel
        if link.is_symlink() and link.resolve() == src.resolve():
            return (Path("kernels") / rel).as_posix()
        if link.exists() or link.is_symlink():
            raise UserError(f"{link}: exists and is not a link to {src}; cltc search writes no file over another",
                            hint="give --out a new folder, or delete this one to start over")
        link.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(src, link)
        return (Path("kernels") / rel).as_posix()

    def add(self, k: Kept) -> None:
        folder = self.out / "inputs" / k.name
        launches = folder / "launches.json"
        if not launches.is_file():   # (a resumed search finds the folder written: no run again)
            with temp_dir(prefix="cltc-search-dump-") as tmp:
                got = self.dump(k.test, k.inp, Path(tmp))
                if got is None:
                    raise UserError(f"cltc search: the run of {k.name} that writes its launches for the test file "
                                    f"wrote none (test '{k.test.name}')")
                records = json.loads((got / "launches.json").read_text())
                for r in records:
                    r["source"] = self._kernel_link(r.pop("file"))
                for f in sorted(got.glob("*.npy")):
                    self._write_new(folder / f.name, f.read_bytes())
                self._write_new(launches, (json.dumps(records, indent=1) + "\n").encode())
        else:
            for r in json.loads(launches.read_text()):
                self._kernel_link(str((self.out / r["source"]).resolve()))
        self.kept.append(k)
        atomic_write_text(self.out / self.FILE, self.render())

    def render(self) -> str:
        rel = Path(os.path.relpath(self.suite.root.resolve(), self.out)).as_posix()
        lines = [f"# Written by `cltc search` (seed {self.seed}) from the pytest suite {_comment(rel)}.",
                 '"""Inputs that reach coverage items the suite\'s tests do not reach, or make a kernel write NaN or',
                 "Inf where its test did not.",
                 "Each test replays the launches of the test it was made from as the search's input changed them",
                 "(inputs/NAME/launches.json, the arrays as .npy files). Measure them: cltc coverage --suite <this",
                 'folder>"""',
                 "import json", "from pathlib import Path", "", "import numpy as np", "",
                 "HERE = Path(__file__).parent", "", "",
                 "def _scalar(a):",
                 '    kind = np.dtype(a["dtype"]).kind',
                 '    value = a["value"] == "True" if kind == "b" else float(a["value"]) if kind == "f" else int(a["value"])',
                 '    return np.dtype(a["dtype"]).type(value)', "", "",
                 "def _replay(cuda_kernel, name):",
                 '    folder = HERE / "inputs" / name',
                 '    for launch in json.loads((folder / "launches.json").read_text()):',
                 '        args = [np.load(folder / a["npy"]) if "npy" in a else _scalar(a) if a["kind"] == "scalar"',
                 '                else None for a in launch["args"]]',
                 '        kernel = cuda_kernel(HERE / launch["source"], launch["kernel"])',
                 '        kernel(tuple(launch["grid"]), tuple(launch["block"]), *args, shared_mem=launch["shared_mem"])']
        for k in self.kept:
            lines += ["", "", f"# {_origin(k)}", *_notes(k, self.show),
                      f"def test_{k.name.replace('-', '_')}(cuda_kernel):",
                      f"    {repr(f'{k.name}: test {k.test.name} with the search input.')}",
                      f"    _replay(cuda_kernel, {k.name!r})"]
        return "\n".join(lines) + "\n"


class CommandWriter(_Writer):
    """`cltc search -- COMMAND`'s kept inputs: OUT/commands.sh, a shell script that runs, from the
    directory the search ran in, the program on each kept input (the files it changed under
    inputs/NAME/), and fails when one ends with another exit status than it did; `cltc coverage -- sh
    OUT/commands.sh` measures them."""
    FILE = "commands.sh"

    def __init__(self, out: Path, suite, seed: int, show=str):
        super().__init__(out, seed, show)
        self.suite = suite
        self.argv: dict[str, list[str]] = {}

    def _argv(self, k: Kept) -> list[str]:
        """The kept command: the files it changed written under inputs/NAME/ and named there."""
        changed = {}
        for rel, data in k.inp.files:
            try:
                same = (self.suite.root / rel).read_bytes() == data
            except OSError:
                same = False
            if not same:
                path = self.out / "inputs" / k.name / Path(rel).name
                self._write_new(path, data)
                changed[os.path.normpath(rel)] = os.path.relpath(path, self.suite.root)
        return [self.suite.command[0], *(changed.get(os.path.normpath(a), a) for a in k.inp.args)]

    def add(self, k: Kept) -> None:
        self.out.mkdir(parents=True, exist_ok=True)
        self.argv[k.name] = self._argv(k)
        self.kept.append(k)
        path = self.out / self.FILE
        atomic_write_text(path, self.render())
        path.chmod(0o755)

    def render(self) -> str:
        import shlex
        back = os.path.relpath(self.suite.root, self.out)
        lines = ["#!/bin/sh",
                 f"# Written by `cltc search` (seed {self.seed}) from the command: "
                 f"{_comment(shlex.join(self.suite.command))}",
                 "# Inputs that reach coverage items the command's own input does not reach, or make the program",
                 "# print NaN or Inf where it did not. Measure them: cltc coverage -- sh <this file>",
                 f'cd "$(dirname "$0")"/{shlex.quote(back)} || exit 2',
                 "status=0",
                 'check() { want=$1; shift; "$@"; got=$?; if [ "$got" -ne "$want" ]; then '
                 'echo "$*: exit status $got, expected $want" >&2; status=1; fi; }']
        for k in self.kept:
            lines += ["", f"# {k.name}: {_origin(k)}", *_notes(k, self.show),
                      f"check {k.exit_code} {shlex.join(self.argv[k.name])}"]
        lines.append('exit "$status"')
        return "\n".join(lines) + "\n"


class SuiteWriter(_Writer):
    def __init__(self, out: Path, suite: Suite, seed: int, show=str):
        super().__init__(out, seed, show)
        self.suite = suite

    def _placed(self, k: Kept) -> tuple[list[str], list[str]]:
        """The test's arguments and files as the written suite has them."""
        named = set(named_files(k.test))
        args, files = list(k.inp.args), []
        for rel in k.test.files:
            if rel in named:
                new = f"inputs/{k.name}/{Path(rel).as_posix()}"
                args = [new if os.path.normpath(a) == os.path.normpath(rel) else a for a in args]
                files.append(new)
            else:
                files.append(rel)
        return args, files

    def add(self, k: Kept) -> None:
        self.out.mkdir(parents=True, exist_ok=True)
        named = set(named_files(k.test))
        for rel, data in k.inp.files:
            self._write_new(self.out / "inputs" / k.name / rel, data)
        for rel in k.test.files:   # a file the program opens by its own name: the suite's, beside the tests
            if rel not in named:
                self._write_new(self.out / rel, (self.suite.root / rel).read_bytes())
        self.kept.append(k)
        atomic_write_text(self.out / SUITE_FILE, self.render())

    def render(self) -> str:
        def rel(p: Path) -> str:
            return Path(os.path.relpath(Path(p).resolve(), self.out)).as_posix()
        s = self.suite
        lines = [f"# Written by `cltc search` (seed {self.seed}) from the suite {_comment(rel(s.root))}: inputs that reach",
                 "# coverage items its tests do not reach, or make the program print NaN or Inf where its",
                 "# test did not. Measure them: cltc coverage --suite <this folder>",
                 "[build]", f"sources = {_toml([rel(p) for p in s.sources])}"]
        if s.include:
            lines.append(f"include = {_toml([rel(p) for p in s.include])}")
        if s.defines:
            lines.append(f"defines = {_toml(list(s.defines))}")
        for key in ("flags", "gpu_flags", "cpu_flags"):
            if getattr(s, key, None):
                lines.append(f"{key} = {_toml(list(getattr(s, key)))}")
        for k in self.kept:
            args, files = self._placed(k)
            lines += ["", f"# {_origin(k)}"]
            lines += _notes(k, self.show)
            lines += ["[[test]]", f"name = {_toml(k.name)}"]
            if args:
                lines.append(f"args = {_toml(args)}")
            if files:
                lines.append(f"files = {_toml(files)}")
            if k.inp.stdin is not None:
                lines.append(f"stdin = {_toml(k.inp.stdin)}")
            lines.append(f"timeout = {k.test.timeout:g}")
            if k.exit_code:
                lines.append(f"exit_code = {k.exit_code}")
        return "\n".join(lines) + "\n"
