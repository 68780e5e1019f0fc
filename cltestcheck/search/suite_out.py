"""The inputs the search keeps, written as a suite in the suite's own format (a cltc.toml: suite.py)
in the output folder: its [build] is the suite's (paths relative to the folder), each kept input a
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


def _toml(v) -> str:
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    return str(v)


def _comment(text: str) -> str:
    return " ".join(text.split())


class SuiteWriter:
    def __init__(self, out: Path, suite: Suite, seed: int, show=str):
        self.out, self.suite, self.seed, self.show = Path(out).resolve(), suite, seed, show
        self.kept: list[Kept] = []

    def _write_new(self, path: Path, data: bytes) -> None:
        if path.exists():
            if path.is_file() and path.read_bytes() == data:
                return
            raise UserError(f"{path}: exists and holds something else; cltc search writes no file over another",
                            hint="give --out a new folder, or delete this one to start over")
        atomic_write_bytes(path, data)

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
        lines = [f"# Written by `cltc search` (seed {self.seed}) from the suite {rel(s.root)}: inputs that reach",
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
            origin = "" if k.inp.parent == f"test '{k.inp.seed}'" else f" (from test '{k.inp.seed}')"
            lines += ["", f"# made from {k.inp.parent}{origin}: {_comment('; '.join(k.inp.how))}"]
            if k.why != "coverage":
                lines.append(f"# prints {'NaN' if k.why == 'nan' else 'Inf'} (its test did not)")
            for a in k.adds:
                lines.append(f"# adds: {_comment(shown(a, self.show))}")
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
