"""A test suite: `cltc.toml` in a directory says how to build the program and lists its tests.
(A directory with test_*.py files and no cltc.toml is a pytest suite: see pytest_suite.py.)

    [build]
    sources = ["scan.cu"]            # required, relative to the suite directory
    include = ["include"]            # -I directories
    defines = ["N=256"]              # -D definitions
    flags = []                       # extra compiler flags, given to both backends' compilers
    gpu_flags = []                   # only nvcc's (the gpu backend): "--expt-relaxed-constexpr", "-arch=sm_80"
    cpu_flags = []                   # only the host compiler's (the cpu backend's g++): "-fopenmp"
    timeout = 60                     # default seconds per test run

    [[test]]
    name = "small"                   # unique; default test-<n>
    args = ["16", "data/in.txt"]     # program arguments
    stdin = "..."                    # or stdin_file = "data/stdin.txt"
    files = ["data/in.txt"]          # inputs the test reads (checked to exist)
    timeout = 10
    exit_code = 0                    # expected exit status (default 0)
    stdout = "sum 120\\n"             # expected stdout, or stdout_file = "expected/small.out"
    tolerance = 1e-6                 # numbers compared with this abs/rel tolerance
    output_files = { "out.txt" = "expected/out.txt" }   # files the program writes

Every test runs in a fresh directory holding its `files` at the same relative
paths, so tests never write into the suite. Each key is declared once here.
"""
from __future__ import annotations

import codecs
import math
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path

from instrument.errors import UserError
from instrument.files import not_regular, note_inputs, read_text

from . import pytest_suite
from .captured import Captured
from .program_suite import PROGRAM, ProgramKind
from .pytest_suite import PytestKind

OPTION_TABLES = ("coverage", "mutate", "amplify", "search")   # options, read by config.py

BUILD_KEYS = {
    "sources": "list of .cu files, relative to the suite directory (required)",
    "include": "list of include directories",
    "defines": "list of NAME or NAME=VALUE",
    "flags": "list of extra compiler flags, given to both backends' compilers (nvcc, and the cpu backend's g++)",
    "gpu_flags": "list of compiler flags for nvcc only (the gpu backend)",
    "cpu_flags": "list of compiler flags for the host compiler only (the cpu backend)",
    "timeout": "default seconds per test run (default 60)",
}
TEST_KEYS = {
    "name": "unique test name",
    "args": "list of program arguments",
    "stdin": "text fed to the program's standard input",
    "stdin_file": "file fed to standard input",
    "files": "list of input files the test reads",
    "timeout": "seconds before the run is killed",
    "exit_code": "expected exit status (default 0)",
    "stdout": "expected standard output",
    "stdout_file": "file holding the expected standard output",
    "tolerance": "numeric tolerance for numbers in outputs (default: exact)",
    "output_files": "table of file the program writes = file with the expected content",
}


@dataclass
class TestCase:
    name: str
    args: list[str] = field(default_factory=list)
    stdin: str | None = None
    files: list[str] = field(default_factory=list)
    timeout: float = 60.0
    exit_code: int = 0
    stdout: str | Captured | None = None   # text from cltc.toml, or an expected-output file's (judge.py)
    tolerance: float | None = None
    output_files: dict[str, Path] = field(default_factory=dict)
    pytest: bool = False     # a pytest node id: it passes when pytest says it passed

    @property
    def has_expectation(self) -> bool:
        return self.pytest or self.stdout is not None or bool(self.output_files)


@dataclass
class Suite:
    root: Path
    sources: list[Path]
    include: list[Path] = field(default_factory=list)
    defines: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    tests: list[TestCase] = field(default_factory=list)
    kind: ProgramKind | PytestKind = PROGRAM   # how the suite is built and run
    gpu_flags: list[str] = field(default_factory=list)   # nvcc's only
    cpu_flags: list[str] = field(default_factory=list)   # the host compiler's only (the cpu backend)

    def flags_for(self, backend) -> list[str]:
        """The flags a build on `backend` is given: `flags`, then its compiler's own (`cpu_flags` where the
        host compiler builds the lowered program, else `gpu_flags`)."""
        return [*self.flags, *(self.cpu_flags if backend.needs_lowering else self.gpu_flags)]

    def input_files(self) -> list[Path]:
        """Every file the suite reads: reports must never be written over one of these."""
        files = [self.root / "cltc.toml", *self.sources, *self.root.glob("**/*.py")]
        for t in self.tests:
            files += [self.root / f for f in t.files] + list(t.output_files.values())
        return files

    def select(self, names: list[str] | None) -> "Suite":
        if not names:
            return self
        known = {t.name for t in self.tests}
        where = self.kind.where(self)
        for n in names:
            if n not in known:
                raise UserError(f"{where}: no test named '{n}'", hint="tests: " + ", ".join(sorted(known)))
        return replace(self, tests=[t for t in self.tests if t.name in names])


def _err(path: Path, msg: str, hint: str | None = None) -> UserError:
    return UserError(f"{path}: {msg}", hint=hint)


def _check_keys(path: Path, where: str, table: dict, known: dict[str, str]) -> None:
    for key in table:
        if key not in known:
            raise _err(path, f"unknown key '{key}' in {where}",
                       hint="known keys: " + "; ".join(f"{k} ({h})" for k, h in known.items()))


def _str_list(path: Path, where: str, key: str, value) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, (str, int, float)) and not isinstance(v, bool)
                                              for v in value):
        raise _err(path, f"'{key}' in {where} must be a list of strings")
    return [str(v) for v in value]


def _number(path: Path, where: str, key: str, value, kind=float):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (kind is int and not isinstance(value, int)) \
            or not math.isfinite(value):   # (TOML has nan and inf)
        raise _err(path, f"'{key}' in {where} must be a{'n integer' if kind is int else ' finite number'}")
    return kind(value)


def _existing(path: Path, root: Path, where: str, key: str, rel: str, is_dir: bool = False) -> Path:
    p = (root / rel).resolve()
    kind = "no such" if is_dir and not p.is_dir() else None if is_dir else not_regular(p)
    if kind == "no such":
        raise _err(path, f"{where}: '{key}' names {'a directory' if is_dir else 'a file'} that does not exist: {rel}")
    if kind is not None:   # checked before anything opens it: opening a FIFO blocks
        raise _err(path, f"{where}: '{key}' names {rel}, which is {kind}",
                   hint="name a regular file (a symlink to one is fine)")
    if not is_dir:
        note_inputs([p])   # (no report is written over it: instrument/output.py)
    return p


def _written_name(path: Path, where: str, name: str, inputs: list[str]) -> str:
    """An `output_files` key: a file the test writes, relative to its run directory, which it must
    not leave (cltc reads that file back and compares or reports it)."""
    p = Path(name)
    if not p.parts or p.is_absolute() or ".." in p.parts:
        raise _err(path, f"{where}: output_files key '{name}' must be a relative path inside the test's run "
                         f"directory (not absolute, no '..')", hint='e.g. output_files = { "out/result.txt" = '
                                                                  '"expected/result.txt" }')
    for rel in inputs:   # the run directory holds these as symlinks into the suite directory
        if p == Path(rel) or Path(rel) in p.parents:
            raise _err(path, f"{where}: output_files key '{name}' is the input file '{rel}' of 'files', a symlink "
                             f"into the suite directory, not a file the test writes",
                       hint="give the file the test writes another name")
    return p.as_posix()


def _expected_output(p: Path) -> Captured:
    """An expected-output file: checked to be UTF-8 text in chunks, kept as a Captured (its whole
    text stays in the file: it can be as long as the output it is compared with)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    at = 0
    try:
        with open(p, "rb") as fh:
            while chunk := fh.read(1 << 20):
                if b"\0" in chunk:
                    raise UserError(f"{p}: is a binary file, not an expected-output file")
                decoder.decode(chunk)
                at += len(chunk)
            decoder.decode(b"", final=True)
    except UnicodeDecodeError as exc:
        raise UserError(f"{p}: the expected-output file is not UTF-8 text (byte {at + exc.start})") from None
    except OSError as exc:
        raise UserError(f"{p}: cannot read the expected-output file: {exc.strerror}") from None
    return Captured.of_file(p)


def load(suite_dir: str | Path, kernels: list[Path] | None = None) -> Suite:
    """The suite in suite_dir: cltc.toml, else a pytest suite (test_*.py files and .cu kernels)."""
    root = Path(suite_dir).resolve()
    path = root / "cltc.toml"
    if not root.is_dir():
        raise UserError(f"{suite_dir}: no such suite directory")
    data = {}
    why = not_regular(path)
    if why and why != "no such":   # (opening a FIFO would block)
        raise UserError(f"{path}: is {why}", hint="the suite file must be a regular file (a symlink to one is fine)")
    if path.is_file():
        try:
            data = tomllib.loads(read_text(path, "suite file"))
        except tomllib.TOMLDecodeError as exc:
            raise _err(path, f"not valid TOML: {exc}") from None
    describes_program = "build" in data or "test" in data   # else it holds options only (config.py)
    if not describes_program and pytest_suite.looks_like_pytest_suite(root):
        return load_pytest(root, kernels)
    if kernels:
        raise UserError(f"{suite_dir}: --kernels is for pytest suites; cltc.toml lists its sources itself")
    if not path.is_file():
        raise UserError(f"{suite_dir}: no cltc.toml and no test_*.py files in the suite directory",
                        hint="write a cltc.toml (docs/cltc.md, 'Test suites') or pytest tests that use "
                             "the cuda_kernel fixture (docs/cltc.md, 'Kernel tests in Python')")
    _check_keys(path, "the file", data, {"build": "how to build the program", "test": "the tests",
                                         **{c: f"cltc {c} options" for c in OPTION_TABLES}})
    build = data.get("build")
    if not isinstance(build, dict):
        raise _err(path, "missing [build] table", hint="[build] sources = [\"prog.cu\"]")
    _check_keys(path, "[build]", build, BUILD_KEYS)
    if "sources" not in build:
        raise _err(path, "[build] needs 'sources'")
    sources = [_existing(path, root, "[build]", "sources", s)
               for s in _str_list(path, "[build]", "sources", build["sources"])]
    twice = sorted({str(s.relative_to(root)) if s.is_relative_to(root) else str(s)
                    for s in sources if sources.count(s) > 1})
    if twice:   # (a second copy would define everything twice)
        raise _err(path, f"[build]: 'sources' names {', '.join(twice)} more than once", hint="name each source once")
    if not sources:
        raise _err(path, "[build] 'sources' is empty")
    include = [_existing(path, root, "[build]", "include", d, is_dir=True)
               for d in _str_list(path, "[build]", "include", build.get("include", []))]
    default_timeout = _number(path, "[build]", "timeout", build.get("timeout", 60.0))
    suite = Suite(root, sources, include, _str_list(path, "[build]", "defines", build.get("defines", [])),
                  _str_list(path, "[build]", "flags", build.get("flags", [])),
                  gpu_flags=_str_list(path, "[build]", "gpu_flags", build.get("gpu_flags", [])),
                  cpu_flags=_str_list(path, "[build]", "cpu_flags", build.get("cpu_flags", [])))
    tests = data.get("test", [])
    if not isinstance(tests, list) or not tests:
        raise _err(path, "no tests: add at least one [[test]] table")
    seen: set[str] = set()
    for i, t in enumerate(tests):
        where = f"[[test]] number {i + 1}"
        if not isinstance(t, dict):
            raise _err(path, f"{where} must be a table")
        _check_keys(path, where, t, TEST_KEYS)
        name = str(t.get("name", f"test-{i + 1}"))
        where = f"test '{name}'"
        if name in seen:
            raise _err(path, f"two tests are named '{name}'")
        seen.add(name)
        case = TestCase(name, _str_list(path, where, "args", t.get("args", [])),
                        timeout=_number(path, where, "timeout", t.get("timeout", default_timeout)),
                        exit_code=_number(path, where, "exit_code", t.get("exit_code", 0), int))
        if case.timeout <= 0:
            raise _err(path, f"{where}: 'timeout' must be positive")
        if not 0 <= case.exit_code <= 255:   # (a process's exit status is one byte)
            raise _err(path, f"{where}: 'exit_code' must be from 0 to 255 (a process's exit status)")
        if "stdin" in t and "stdin_file" in t:
            raise _err(path, f"{where}: give 'stdin' or 'stdin_file', not both")
        if "stdin" in t:
            if not isinstance(t["stdin"], str):
                raise _err(path, f"{where}: 'stdin' must be a string")
            case.stdin = t["stdin"]
        if "stdin_file" in t:
            case.stdin = read_text(_existing(path, root, where, "stdin_file", str(t["stdin_file"])),
                                           "stdin file")
        for f in _str_list(path, where, "files", t.get("files", [])):
            _existing(path, root, where, "files", f)
            if Path(f).is_absolute() or ".." in Path(f).parts:
                raise _err(path, f"{where}: 'files' entries must be inside the suite directory: {f}")
            if any(Path(f) == Path(g) for g in case.files):
                raise _err(path, f"{where}: 'files' names {f} more than once", hint="name each file once")
            case.files.append(f)
        if "stdout" in t and "stdout_file" in t:
            raise _err(path, f"{where}: give 'stdout' or 'stdout_file', not both")
        if "stdout" in t:
            if not isinstance(t["stdout"], str):
                raise _err(path, f"{where}: 'stdout' must be a string")
            case.stdout = t["stdout"]
        if "stdout_file" in t:
            case.stdout = _expected_output(_existing(path, root, where, "stdout_file", str(t["stdout_file"])))
        if "tolerance" in t:
            case.tolerance = _number(path, where, "tolerance", t["tolerance"])
            if case.tolerance < 0:
                raise _err(path, f"{where}: 'tolerance' must not be negative")
        outs = t.get("output_files", {})
        if not isinstance(outs, dict):
            raise _err(path, f"{where}: 'output_files' must be a table of written file = expected file")
        for produced, expected in outs.items():
            name = _written_name(path, where, str(produced), case.files)
            case.output_files[name] = _existing(path, root, where, "output_files", str(expected))
        suite.tests.append(case)
    return suite


def load_pytest(root: Path, kernels: list[Path] | None = None) -> Suite:
    pytest_suite.require_pytest(root)
    sources = pytest_suite.kernel_sources(root, kernels)
    tests = [TestCase(node, timeout=pytest_suite.DEFAULT_TIMEOUT, pytest=True)
             for node in pytest_suite.collect(root)]
    return Suite(root, sources, tests=tests, kind=pytest_suite.PYTEST)
