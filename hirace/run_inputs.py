"""What `hirace run` was given, checked before any work, each problem one line that says what to do:
a program or object file given as a source, program arguments without the `--` before them, an
`-I` directory that does not exist, a backend named by $HIRACE_BACKEND that does not; and a build
whose link failed for want of `main` (which source to add)."""
from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

from instrument.backends import NAMES
from instrument.errors import BuildError, UserError
from instrument.files import HOST_SUFFIXES

# what a source of a program may be called (nvcc's and the host compiler's units, and headers given by mistake)
SOURCE_SUFFIXES = (".cu", ".c", ".cuh", ".h", ".hpp", *HOST_SUFFIXES)
OBJECT_SUFFIXES = (".o", ".obj", ".a", ".so", ".lo", ".dylib", ".dll", ".lib", ".cubin", ".fatbin")
_MAGIC = (b"\x7fELF", b"!<arch>\n", b"\xcf\xfa\xed\xfe", b"\xce\xfa\xed\xfe", b"\xca\xfe\xba\xbe", b"MZ")
_DEFINES_MAIN = re.compile(rb"^[^\n;{}]*\bmain\s*\(\s*(void|int\b[^)]*)?\)", re.MULTILINE)
_NO_MAIN = ("undefined reference to `main'", "undefined reference to 'main'", "undefined symbol: main",
            "\"_main\", referenced from")


def _binary(p: Path) -> bool:
    if p.suffix.lower() in OBJECT_SUFFIXES:
        return True
    try:
        with open(p, "rb") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    return head.startswith(_MAGIC) or b"\0" in head


def _command(p: Path) -> str:
    return shlex.quote(str(p) if p.parent != Path(".") or str(p).startswith(".") else f"./{p}")


def check_sources(sources: list[Path], runs: bool = True) -> None:
    """A binary named as a source, or (`runs`: a command that runs the program) program arguments given
    as sources (`hirace run a.cu 1000`)."""
    for i, p in enumerate(map(Path, sources)):
        if runs and not os.path.lexists(p) and p.suffix.lower() not in SOURCE_SUFFIXES:
            rest = shlex.join(map(str, sources[i:]))
            if i:
                raise UserError(f"{p}: no such source file; did you mean `-- {rest}`?")
            raise UserError(f"{p}: no such source file (hirace takes CUDA sources, or a command after `--`: "
                            f"`hirace run -- {rest}`)")
        if p.is_file() and _binary(p):
            run = _command(p) if os.access(p, os.X_OK) and p.suffix.lower() not in OBJECT_SUFFIXES else "./app"
            raise UserError(f"{p}: is a program or object file, not a source: hirace takes CUDA sources" +
                            (f", or a command after `--`: `hirace run -- {run}` (a program built through hirace-cc)"
                             if runs else ""))


def check_include_dirs(dirs) -> None:
    for d in dirs:
        if not Path(d).is_dir():
            what = "no such directory" if not os.path.lexists(d) else "not a directory"
            raise UserError(f"-I {d}: {what}; give the directory that holds the program's headers")


def backend_name(given: str | None, variable: str) -> str:
    """--backend, else $HIRACE_BACKEND (the variable hirace-cc builds by), else auto."""
    if given is not None:
        return given
    name = os.environ.get(variable) or "auto"
    if name not in NAMES:
        raise UserError(f"{variable}={name}: not a backend; choose one of {', '.join(NAMES)}")
    return name


def _defining_main(sources: list[Path]) -> list[Path]:
    """Sources beside the given ones (same directories) that define `main`, nearest first."""
    given = {Path(s).resolve() for s in sources}
    found = []
    for d in dict.fromkeys(Path(s).resolve().parent for s in sources):
        for f in sorted(d.iterdir()):
            if f.suffix.lower() in (".cu", *HOST_SUFFIXES, ".c") and f.resolve() not in given and f.is_file():
                try:
                    if f.stat().st_size < (1 << 20) and _DEFINES_MAIN.search(f.read_bytes()):
                        found.append(f)
                except OSError:
                    continue
    return found


def explain_build_failure(exc: UserError, sources: list[Path]) -> UserError:
    """A link that failed for want of `main`, said as what to do; any other failure as it is."""
    if not isinstance(exc, BuildError) or not any(s in str(exc) for s in _NO_MAIN):
        return exc
    given = shlex.join(map(str, sources))
    found = _defining_main(sources)
    cwd = Path.cwd()
    if found:
        add = os.path.relpath(found[0], cwd)
        return BuildError(f"the program has no main: none of {given} defines it; add the source that does: "
                          f"`hirace run {given} {shlex.quote(add)}`")
    return BuildError(f"the program has no main: none of {given} defines it; add the source that does "
                      f"(`hirace run {given} main.cpp`), or run the program your build makes: `hirace run -- ./app`")
