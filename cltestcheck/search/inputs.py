"""What the search varies: a test's input (its arguments, the input files its arguments name, its
standard input), as a value that can be hashed, changed and run.

A file of a test's `files` that an argument names (`args = ["data/g.egr", "32"]`) belongs to the input
and may be changed; a file no argument names (one the program opens by a fixed name) stays the suite's.
Every run gets a directory of its own holding the test's files at their relative paths: the input's
own bytes where it changed them, links to the suite's files elsewhere (the suite's own runner,
program_suite.py, then runs it there)."""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..suite import Suite, TestCase


@dataclass(frozen=True)
class Input:
    args: tuple[str, ...]
    files: tuple[tuple[str, bytes], ...] = ()   # (relative path, content) of the files the arguments name
    stdin: str | None = None
    seed: str = ""                              # the suite's test it descends from
    parent: str = ""                            # the input it was made from (a test, a kept input, a run)
    how: tuple[str, ...] = field(default=(), compare=False)   # the changes made to the parent
    places: tuple[str, ...] = ()                # a pytest test's: where each argument goes (`place`)

    @property
    def digest(self) -> str:
        """What two inputs must share to be the same input (their origin does not count)."""
        h = hashlib.sha256()
        for a in self.args:
            h.update(b"a" + a.encode() + b"\0")
        for rel, data in self.files:
            h.update(b"f" + rel.encode() + b"\0" + hashlib.sha256(data).digest())
        if self.stdin is not None:
            h.update(b"s" + self.stdin.encode())
        for p in self.places:
            h.update(b"p" + p.encode() + b"\0")
        return h.hexdigest()[:20]

    def arg_name(self, i: int) -> str:
        """How a change names argument i: its place in a pytest test's launches, else its position."""
        return self.places[i] if self.places else f"argument {i + 1}"

    def file(self, rel: str) -> bytes:
        return dict(self.files)[rel]

    def with_file(self, rel: str, data: bytes) -> "Input":
        return replace(self, files=tuple((r, data if r == rel else d) for r, d in self.files))

    def with_arg(self, i: int, value: str) -> "Input":
        return replace(self, args=self.args[:i] + (value,) + self.args[i + 1:])

    def derived(self, parent: str, how: list[str]) -> "Input":
        return replace(self, parent=parent, how=tuple(how))


def named_files(test: TestCase) -> list[str]:
    """The test's input files that one of its arguments names (the files the search may change)."""
    norm = {os.path.normpath(a) for a in test.args}
    return [f for f in test.files if os.path.normpath(f) in norm]


def seed_input(suite: Suite, test: TestCase) -> Input:
    files = tuple((rel, (suite.root / rel).read_bytes()) for rel in named_files(test))   # (suite.py: regular files)
    return Input(tuple(test.args), files, test.stdin, test.name, test.name)


def place(launch: int, arg: int, param: str) -> str:
    """Where a pytest test's value goes: launch-L/A-PARAM (both from 1), the name of an array's file."""
    return f"launch-{launch + 1}/{arg + 1}-{param}"


def parse_place(name: str) -> tuple[int, int]:
    """(launch, argument) from 0, of a `place` (an array's file name ends in .txt)."""
    launch, rest = name.split("/", 1)
    return int(launch.split("-", 1)[1]) - 1, int(rest.split("-", 1)[0]) - 1


def pytest_seed(test: TestCase, launches: list[dict]) -> Input:
    """A pytest test's input, from the launches its run recorded (pytest_inputs.py): each numeric
    scalar an argument, each small numeric array a text file of its values, one a line."""
    args, places, files = [], [], []
    for n, rec in enumerate(launches):
        for i, a in enumerate(rec["args"]):
            if a["kind"] == "scalar" and a["dtype"] != "bool":
                args.append(a["value"])
                places.append(place(n, i, a["param"]))
            elif a["kind"] == "array" and "values" in a:
                files.append((place(n, i, a["param"]) + ".txt", a["values"].encode()))
    return Input(tuple(args), tuple(files), None, test.name, test.name, (), tuple(places))


def materialize(suite: Suite, test: TestCase, inp: Input, where: Path, name: str) -> tuple[Suite, TestCase]:
    """A suite and test that run `inp` as `test` runs its own input: `where` becomes the root holding
    the input's files, and links to the suite's other files of the test."""
    where.mkdir(parents=True, exist_ok=True)
    own = dict(inp.files)
    for rel in test.files:
        dst = where / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        if rel in own:
            dst.write_bytes(own[rel])
        else:
            os.symlink(suite.root / rel, dst)
    case = TestCase(name, list(inp.args), inp.stdin, list(test.files), test.timeout,
                    output_files=dict(test.output_files))   # (read back: NaN and Inf in them, runs.py)
    return replace(suite, root=where, tests=[case]), case
