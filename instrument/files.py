"""What the tools read and write, checked before any work starts.

Inputs: a source or config that is missing, a directory, binary or not UTF-8 is a clear error
naming the file. Outputs: every report, results file or output directory a command will write
is checked up front: it is never one of the run's inputs (symlinks resolved) nor a source file,
its kind is right (a file where a file is wanted, a directory where a directory is), and its
place is writable. A command with a bad output path stops before it builds or runs anything.
"""
from __future__ import annotations

import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .errors import UserError

# a report is never written over a file with one of these endings: it is someone's source
SOURCE_SUFFIXES = frozenset({".cu", ".cuh", ".h", ".hh", ".hpp", ".hxx", ".inl", ".c", ".cc", ".cpp",
                             ".cxx", ".py", ".toml"})
OUTPUT_MARKER = ".instrumented-output"   # instrument/output.py writes it into every directory it owns
HOST_SUFFIXES = (".cpp", ".cc", ".cxx", ".c++", ".cp")   # C++ that nvcc hands to the host compiler


def source_language(path: str | Path) -> str:
    """'cuda' for sources nvcc compiles as CUDA, 'host' for C++ the host compiler builds (no kernels,
    no launches, no device code: a tool's device runtime cannot be included there)."""
    return "host" if Path(path).suffix.lower() in HOST_SUFFIXES else "cuda"


MAX_INPUT_BYTES = 256 << 20   # a source, header or config larger than this is refused, not read


def not_regular(p: Path) -> str | None:
    """Why `p` (symlinks followed) cannot be read as a file, or None when it is a regular file.
    Asked before opening: opening a FIFO blocks until a writer comes, and a device never ends."""
    try:
        mode = os.stat(p).st_mode
    except FileNotFoundError:
        return "no such"
    except OSError as exc:
        return f"cannot be read ({exc.strerror})"
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a directory"
    kind = ("a FIFO" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
    return f"{kind}, not a regular file"


def _refuse(p: Path, why: str, what: str, hint: str | None = None):
    if why == "no such":
        raise UserError(f"{p}: no such {what}", hint=hint)
    if why == "a directory":
        raise UserError(f"{p}: is a directory, not a {what}", hint=hint)
    raise UserError(f"{p}: the {what} is {why}" if why.startswith("cannot") else f"{p}: is {why}",
                    hint=hint or f"name a regular {what}")


def read_text(path: str | Path, what: str = "file") -> str:
    """The text of a file the user gave, or a UserError that names it and says what is wrong.
    Only regular files are read (a FIFO or a device would hang or never end), and at most
    MAX_INPUT_BYTES of them."""
    p = Path(path)
    why = not_regular(p)
    if why:
        _refuse(p, why, what)
    try:
        with open(p, "rb") as f:
            data = f.read(MAX_INPUT_BYTES + 1)
    except OSError as exc:
        raise UserError(f"{p}: cannot read the {what}: {exc.strerror}") from None
    if len(data) > MAX_INPUT_BYTES:
        raise UserError(f"{p}: the {what} is larger than {MAX_INPUT_BYTES >> 20} MiB; not read")
    if b"\0" in data:
        raise UserError(f"{p}: is a binary file, not a {what}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(f"{p}: the {what} is not UTF-8 text (byte {exc.start})") from None


def check_sources(sources, what: str = "source file") -> list[Path]:
    """Sources given on a command line: each an existing, readable regular file with a name the
    compiler and libclang can be given (UTF-8), named once."""
    out, seen = [], {}
    try:
        os.getcwd()
    except OSError:
        raise UserError("the current directory no longer exists (it was deleted or moved)",
                        hint="cd to an existing directory and run the command again") from None
    for s in sources:
        p = Path(s)
        try:
            os.fsencode(str(p)).decode("utf-8")
        except UnicodeDecodeError:
            raise UserError(f"{os.fsencode(str(p))!r}: the file name is not UTF-8, which the parser cannot "
                            f"be given", hint="rename the file (or link it under a UTF-8 name)") from None
        why = not_regular(p)
        if why:
            _refuse(p, why, what, hint="name the .cu files to check" if why == "a directory" else None)
        if not os.access(p, os.R_OK):
            raise UserError(f"{p}: the {what} is not readable")
        real = _resolve(p)
        if real in seen:
            raise UserError(f"{p}: the {what} is named twice" + (f" (also as {seen[real]})" if str(seen[real]) != str(p) else ""),
                            hint="name each source once (a second copy would define everything twice)")
        seen[real] = p
        out.append(p)
    return out


@dataclass(frozen=True)
class Output:
    option: str              # as the user wrote it: --json, -o, --out
    path: Path | None
    kind: str = "file"       # "file"; "dir": replaced whole; "into": a folder written into (kept)


def _resolve(p: Path) -> Path:
    return Path(os.path.realpath(p))


def _writable_place(p: Path) -> Path | None:
    """The nearest existing ancestor of p, when it is a directory we can create entries in
    (tried with a file made and removed at once: permissions, read-only mounts, root alike)."""
    for a in [p.parent, *p.parent.parents]:
        if a.exists():
            if not a.is_dir():
                return None
            try:
                fd, probe = tempfile.mkstemp(prefix=".cctk-probe-", dir=a)
            except OSError:
                return None
            os.close(fd)
            os.unlink(probe)
            return a
    return None


# every file a run has read so far (the parser notes each user file it opens, suites their files):
# no report is ever written over one of them (instrument/output.py)
_READ: set[Path] = set()


def note_inputs(paths) -> None:
    """Files this run reads: outputs written later refuse them (write_output)."""
    _READ.update(_resolve(Path(p)) for p in paths if p)


def is_input(path: str | Path) -> bool:
    return _resolve(Path(path)) in _READ


def is_stream(path: str | Path) -> bool:
    """A path written as a stream, never replaced: a character device (/dev/null, a terminal),
    a FIFO or a pipe (/dev/stdout, `>(jq .)`), a socket."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def check_outputs(outputs, inputs=()) -> None:
    """Refuse, before any work, every output that would overwrite an input, is of the wrong
    kind or cannot be written. `inputs`: files and directories the run reads."""
    ins = [_resolve(Path(i)) for i in inputs if i is not None]
    note_inputs(i for i in ins if i.is_file())
    in_files = {i for i in ins if not i.is_dir()}
    seen: dict[Path, str] = {}
    for o in outputs:
        if o.path is None:
            continue
        given = Path(o.path)
        p = _resolve(given)
        say = f"{o.option} {given}"
        if p in seen and not is_stream(given):
            raise UserError(f"{say}: the same path is given to {seen[p]} too", hint="give each report its own path")
        seen[p] = o.option
        if p in in_files or (o.kind != "file" and p in ins):
            raise UserError(f"{say}: refusing to write there: it is an input of this run",
                            hint="choose another output path; your file is left as it is")
        if o.kind == "file" and is_stream(given):   # (/dev/stdout: the kernel's link, not its realpath)
            if not os.access(given, os.W_OK):
                raise UserError(f"{say}: cannot write there (no write permission)")
            continue   # (written as a stream: instrument/output.py write_output)
        if o.kind == "file":
            if str(o.path).endswith(("/", os.sep)):
                raise UserError(f"{say}: names a directory (it ends with /); a file path is wanted here",
                                hint="give the report a file name, e.g. report.json")
            if p.is_dir():
                raise UserError(f"{say}: is a directory; a file path is wanted here")
            if p.exists() and p.suffix.lower() in SOURCE_SUFFIXES:
                raise UserError(f"{say}: refusing to overwrite {p.name}: it looks like a source or "
                                f"configuration file", hint="reports go to a new path, e.g. report.json")
        else:
            if p.exists() and not p.is_dir():
                raise UserError(f"{say}: exists and is not a directory; a directory is wanted here")
            if o.kind == "dir" and p.is_dir() and any(p.iterdir()) and not (p / OUTPUT_MARKER).is_file():
                raise UserError(f"{say}: refusing to write into a non-empty directory this tool did not write",
                                hint="choose a new or empty output directory")
            for i in ins:
                if i == p or p in i.parents:
                    raise UserError(f"{say}: refusing to write there: it holds an input of this run ({i})",
                                    hint="choose an output directory outside your sources")
        place = _writable_place(p / "x") if p.is_dir() else _writable_place(p)
        if place is None:
            raise UserError(f"{say}: cannot write there (the directory is missing its write permission, "
                            f"or a parent is not a directory)")
