"""Parse CUDA translation units with libclang.

Decision (see docs/parsing.md): we always parse against our own
declarations header (runtime/include/cudaparse), never the toolkit's headers.
The libclang wheel ships no clang resource headers, so the toolkit's headers
cannot be consumed as clang expects, and a parse that depends on which CUDA
version a machine has would give different syntax trees (and different
instrumentation) on a laptop, in CI and on a GPU host.  Programs are compiled
by nvcc or the cpu backend, never against the declarations header.
"""
from __future__ import annotations

import bisect
import ctypes
import functools
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from clang import cindex

from runtime import include_dir

from .c_includes import irregular_includes
from ..errors import ParseError
from ..files import note_inputs, source_language
from ..compile.toolchain import gcc_include_dir, library_include_dirs, library_options

CK = cindex.CursorKind


@dataclass(frozen=True)
class Span:
    """A byte range [start, end) in one file, with its 1-based start line/column."""

    file: str
    start: int
    end: int
    line: int
    col: int
    in_macro_arg: bool = False   # written inside a macro invocation's argument

    def where(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


@dataclass(frozen=True)
class Token:
    offset: int
    end: int
    spelling: str
    kind: str  # 'PUNCTUATION', 'KEYWORD', 'IDENTIFIER', 'LITERAL', 'COMMENT'


@dataclass
class SourceFile:
    """The bytes of one user file, with line starts and a token index."""

    path: str
    data: bytes
    tokens: list[Token] = field(default_factory=list)
    _line_starts: list[int] = field(default_factory=list)
    _token_offsets: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        starts = [0]
        for i, b in enumerate(self.data):
            if b == 0x0A:
                starts.append(i + 1)
        self._line_starts = starts

    def set_tokens(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self._token_offsets = [t.offset for t in tokens]

    def line_col(self, offset: int) -> tuple[int, int]:
        i = bisect.bisect_right(self._line_starts, offset) - 1
        return i + 1, offset - self._line_starts[i] + 1

    def line_start(self, line: int) -> int:
        return self._line_starts[line - 1]

    def text(self, start: int, end: int) -> str:
        return self.data[start:end].decode("utf-8", errors="replace")

    def token_at_or_after(self, offset: int) -> Token | None:
        i = bisect.bisect_left(self._token_offsets, offset)
        return self.tokens[i] if i < len(self.tokens) else None

    def token_before(self, offset: int) -> Token | None:
        i = bisect.bisect_left(self._token_offsets, offset) - 1
        return self.tokens[i] if i >= 0 else None

    def tokens_in(self, start: int, end: int) -> list[Token]:
        lo = bisect.bisect_left(self._token_offsets, start)
        hi = bisect.bisect_left(self._token_offsets, end)
        return self.tokens[lo:hi]


@dataclass(frozen=True)
class MacroExpansion:
    name: str
    span: Span


@dataclass
class ParsedUnit:
    """A parsed translation unit: the libclang TU plus the user's files."""

    main: str
    tu: cindex.TranslationUnit
    files: dict[str, SourceFile]
    user_files: frozenset[str]
    macro_expansions: dict[str, list[MacroExpansion]]
    warnings: list[str]
    # the toolkit's libraries the user's files include, as (library, header, where the user's
    # #include is written): ('CUB', 'cub/cub.cuh', 'app.cu:3'); see library_of
    library_includes: list[tuple[str, str, str]] = field(default_factory=list)
    # function-like macros whose body makes text of an argument (#x) or pastes one (a##x): an edit of
    # an argument would change that text
    text_macros: set[str] = field(default_factory=set)
    # macros whose expansion has no side effect of its own (parse.py _pure_macro): `MIN(a, b)`, `N`
    pure_macros: set[str] = field(default_factory=set)
    # "cuda", or "host" for C++ the host compiler builds (files.source_language; a .cpp compiled
    # with -x cu is "cuda")
    language: str = "cuda"
    # the architecture whose device pass this parse reads (80: sm_80); 0: nvcc's host pass
    device_arch: int = 0

    def is_user_file(self, path: str | None) -> bool:
        """The main file and every header it includes that is not a system header
        (system: found through -isystem or the compiler's own directories)."""
        return path in self.user_files

    def source(self, path: str) -> SourceFile:
        if path not in self.files:
            self.files[path] = _load_file(self.tu, path)
        return self.files[path]

    def span_of(self, cursor: cindex.Cursor) -> Span | None:
        """The cursor's source range. An expression written inside a macro's
        argument (CK(cudaMalloc(&d, n))) gets the range where it is written; one
        built by the macro body keeps the invocation's range (see macro_at)."""
        ext = cursor.extent
        f = ext.start.file
        if f is None or ext.end.file is None or f.name != ext.end.file.name:
            return None
        span = Span(f.name, ext.start.offset, ext.end.offset, ext.start.line, ext.start.column)
        fs, fe = _file_location(ext.start), _file_location(ext.end)
        if fs is None or fe is None or (fs[1] == span.start and fe[1] == span.end):
            return span
        if fs[0] != f.name or fe[0] != f.name or fe[1] <= fs[1]:
            return span
        if fs[1] == span.start or fe[1] == span.end:
            return span   # one end comes from the macro body
        src = self.source(f.name)
        depth = 0
        for t in src.tokens_in(fs[1], fe[1]):
            depth += t.spelling in "([{"
            depth -= t.spelling in ")]}"
            if depth == 0 and t.spelling == ",":
                return span   # spans two macro arguments: not one written expression
        return Span(f.name, fs[1], fe[1], fs[2], fs[3], True)

    def editable_argument(self, span: Span) -> bool:
        """Is span written within one argument of a macro invocation (`W(out[0]) = 1`) whose body uses
        its arguments only as code (no # or ##)? An edit there goes wherever the macro puts it."""
        m = self.macro_at(span)
        return span.in_macro_arg and m is not None and m.name not in self.text_macros

    def macro_at(self, span: Span) -> MacroExpansion | None:
        """The macro expansion an edit of `span` would cut into: one that produced
        the span (the span lies within the macro's invocation) or one that a
        boundary of the span falls strictly inside. A macro wholly inside the
        span (a constant N in a[i % N]) is harmless."""
        for m in self.macro_expansions.get(span.file, ()):
            ms, me = m.span.start, m.span.end
            if ms <= span.start and span.end <= me:
                return m
            if ms < span.start < me or ms < span.end < me:
                return m
        return None


def _file_location(loc: cindex.SourceLocation):
    """clang_getFileLocation: where a macro argument was written, else the expansion."""
    f = cindex.c_object_p()
    line, col, off = ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint()
    cindex.conf.lib.clang_getFileLocation(loc, ctypes.byref(f), ctypes.byref(line), ctypes.byref(col),
                                          ctypes.byref(off))
    if not f:
        return None
    return cindex.File(f).name, off.value, line.value, col.value


def parse_args(include_dirs=(), defines=(), std: str = "c++17", extra=(), device_arch: int = 0) -> list[str]:
    """libclang's arguments; `extra`: more of them (a compile line's -isystem, -U, -include and -std,
    instrument/compile/compile_line.py), after ours so that a -std there wins. `device_arch` (80 for
    sm_80): the unit as nvcc's device pass for that architecture reads it (device_view.py); 0: as its
    host pass reads it."""
    inc = include_dir() / "cudaparse"
    args = [
        "-x", "cuda", "--cuda-device-only" if device_arch else "--cuda-host-only", "-nocudainc", "-nocudalib",
        # (nvcc and g++ take `register` in C++17 with a warning; clang makes it an error)
        f"-std={std}", "-Wno-unknown-cuda-version", "-Wno-register", "-ferror-limit=50",
        "-include", str(inc / "cuda_decls.h"),
        "-isystem", str(inc / "shim"),
    ]
    gi = gcc_include_dir()
    if gi is not None:
        args += ["-isystem", str(gi)]
    args += library_options()
    for d in include_dirs:
        args += ["-I", str(d)]
    for d in defines:
        args += [f"-D{d}"]
    if device_arch:
        args += device_arch_args(device_arch)
    return args + list(extra)


# the newest architecture libclang's CUDA knows; a newer one is read as it with __CUDA_ARCH__ set
# to the newer one's value
PARSER_NEWEST_ARCH = 90


def device_arch_args(arch: int) -> list[str]:
    """libclang's arguments for the device pass of sm_`arch`: __CUDA_ARCH__ is arch * 10."""
    if arch <= PARSER_NEWEST_ARCH:
        return [f"--cuda-gpu-arch=sm_{arch}"]
    return [f"--cuda-gpu-arch=sm_{PARSER_NEWEST_ARCH}", "-U__CUDA_ARCH__", f"-D__CUDA_ARCH__={arch * 10}"]


@functools.lru_cache(maxsize=1)
def _index() -> cindex.Index:
    # libclang parses on the calling thread, not on one of its own with a fixed 8 MiB stack: a
    # source nested thousands deep is followed on the deep stack instrument/frontend/deep.py gives it
    os.environ.setdefault("LIBCLANG_NOTHREADS", "1")
    return cindex.Index.create()


def parse_file(path: str | Path, include_dirs=(), defines=(), extra=(), language: str | None = None,
               device_arch: int = 0) -> ParsedUnit:
    """Parse one .cu file; raise ParseError naming file:line:col on any error. `language`: as the
    file is compiled ("cuda" for a .cpp given with -x cu); default: by its suffix. `device_arch`: read
    as nvcc's device pass for sm_`device_arch` reads it (parse_args); 0: as its host pass does."""
    p = Path(path)
    if not p.is_file():
        raise ParseError(f"{path}: no such file")
    main = str(p.resolve())
    irregular = irregular_includes(p, include_dirs)
    if irregular:
        raise ParseError(f"{irregular[0]}: not read (fix the #include or the -I options)")
    opts = (cindex.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD
            | cindex.TranslationUnit.PARSE_INCOMPLETE)
    try:
        tu = _index().parse(main, args=parse_args(include_dirs, defines, extra=extra, device_arch=device_arch), options=opts,
                            unsaved_files=_spaced_launches(main))
        errors = [d for d in tu.diagnostics if d.severity >= cindex.Diagnostic.Error]
        fixed = _constructed_shared(tu, errors)
        if fixed:   # again, with those declarations' __shared__ spelled as an annotation
            tu = _index().parse(main, args=parse_args(include_dirs, defines, extra=extra, device_arch=device_arch), options=opts,
                                unsaved_files=fixed)
    except cindex.TranslationUnitLoadError as exc:
        raise ParseError(f"{path}: libclang could not load the file ({exc})") from None
    errors = [d for d in tu.diagnostics if d.severity >= cindex.Diagnostic.Error]
    if errors:
        d = errors[0]
        loc = d.location
        where = f"{loc.file.name if loc.file else path}:{loc.line}:{loc.column}"
        more = f" (and {len(errors) - 1} more errors)" if len(errors) > 1 else ""
        raise ParseError(f"{where}: error: {d.spelling}{more} (fix the source, or pass the -I/-D "
                         f"options it needs)")
    user = {main}
    ours = str(include_dir()) + "/"
    included = list(tu.get_includes())
    for inc in included:
        f = inc.include
        if f.name.startswith(ours):   # our declarations header comes in by -include
            continue
        if not cindex.SourceLocation.from_offset(tu, f, 0).is_in_system_header:
            user.add(f.name)
    note_inputs(user)   # (no report is ever written over a file the parse read: instrument/output.py)
    libraries = []
    for inc in included:
        found = library_of(inc.include.name)
        if found is not None and inc.location.file is not None and inc.location.file.name in user:
            libraries.append((*found, f"{inc.location.file.name}:{inc.location.line}"))
    warnings = [f"{d.location.file.name}:{d.location.line}:{d.location.column}: {d.spelling}"
                for d in tu.diagnostics
                if d.severity == cindex.Diagnostic.Warning and d.location.file
                and d.location.file.name in user]
    unit = ParsedUnit(main=main, tu=tu, files={}, user_files=frozenset(user), macro_expansions={},
                      warnings=warnings, library_includes=libraries, language=language or source_language(p),
                      device_arch=device_arch)
    unit.files[main] = _load_file(tu, main)
    for c in tu.cursor.get_children():
        if c.spelling in RUNTIME_NAMESPACES and c.location.file is not None and c.location.file.name in user \
                and c.kind != CK.MACRO_INSTANTIATION:
            raise ParseError(f"{c.location.file.name}:{c.location.line}: '{c.spelling}' is the name of a namespace "
                             f"of the checkers' runtimes, which the instrumented program includes (it could not "
                             f"be built)", hint=f"rename '{c.spelling}' to check this program")
        if c.kind == CK.MACRO_INSTANTIATION:
            f = c.location.file
            if f is not None and unit.is_user_file(f.name):
                sp = unit.span_of(c)
                if sp is not None:
                    unit.macro_expansions.setdefault(f.name, []).append(MacroExpansion(c.spelling, sp))
        elif c.kind == CK.MACRO_DEFINITION:
            tokens = list(c.get_tokens())
            if any(t.spelling in ("#", "##") for t in tokens):
                unit.text_macros.add(c.spelling)
            elif _pure_macro(tokens):
                unit.pure_macros.add(c.spelling)
    return unit


_SIDE_EFFECTS = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "++", "--", "new", "delete",
                 "throw", "asm", "__asm__", "volatile", "{", ";"}


def _pure_macro(tokens) -> bool:
    """Does a macro's definition (its tokens: name, parameters, body) expand to an expression without
    side effects: no assignment, increment, call (a name followed by `(`), block or statement? Its
    expansion is then as safe to evaluate again as its arguments (`MIN(a, b)`, `N`)."""
    if not tokens:
        return False
    body = tokens[1:]
    if len(tokens) > 1 and tokens[1].spelling == "(" and tokens[1].extent.start.offset == tokens[0].extent.end.offset:
        close = next((i for i, t in enumerate(tokens) if t.spelling == ")"), None)
        if close is None:
            return False
        body = tokens[close + 1:]
    for i, t in enumerate(body):
        if t.spelling in _SIDE_EFFECTS:
            return False
        if t.kind == cindex.TokenKind.IDENTIFIER and i + 1 < len(body) and body[i + 1].spelling == "(":
            return False
    return True


# the namespaces runtime/include declares at global scope: a user's global name spelled like one
# (a kernel named `hirace`) cannot share a translation unit with the runtime
RUNTIME_NAMESPACES = frozenset({"hirace", "cltc", "cctk", "cudaemu", "cudaemu_cg"})


# the toolkit's libraries, by the first directory of their headers
LIBRARIES = {"cub": "CUB", "thrust": "Thrust", "cuda": "libcu++", "nv": "libcu++"}
# libcu++'s waiting objects (their names' last part): threads wait in them as the host waits (the cpu
# backend refuses them: pipeline.py), and the orderings they make are not followed by hirace
WAITING_OBJECTS = frozenset({"barrier", "pipeline", "latch", "counting_semaphore", "binary_semaphore",
                             "make_pipeline", "memcpy_async", "pipeline_shared_state"})


def library_of(path: str) -> tuple[str, str] | None:
    """(library, header as included) for a header of the toolkit's libraries: ('CUB',
    'cub/block/block_reduce.cuh'); None for any other file."""
    for _, d in library_include_dirs():
        root = d.rstrip("/") + "/"
        if path.startswith(root):
            rel = path[len(root):]
            top = rel.split("/", 1)[0]
            return (LIBRARIES[top], rel) if top in LIBRARIES else None
    return None


_SPACED = re.compile(rb"(<<|>>)([ \t]+)(<|>)")
_QUALIFIED_ALIGNAS = re.compile(rb"(__(?:shared|device|constant|managed)__\s+)(alignas\s*\((?:[^()]|\([^()]*\))*\))")


def _spaced_launches(path: str) -> list[tuple[str, str]]:
    """What nvcc accepts and clang does not, in a copy of the file to parse, of the same length
    (every offset, line and column stays that of the file on disk): a launch written
    `k<< <g, b>> >(...)` becomes `<<<g, b>>>` with the spaces moved before each (`>>>` ends where
    `>> >` did); `__shared__ alignas(16) float a[n]` loses its alignas to blanks (clang takes no
    alignas after a CUDA attribute; the parse needs no alignment, the build keeps it)."""
    data = Path(path).read_bytes()
    if not _SPACED.search(data) and not _QUALIFIED_ALIGNAS.search(data):
        return []
    fixed = _SPACED.sub(lambda m: m.group(2) + m.group(1) + m.group(3), data)
    fixed = _QUALIFIED_ALIGNAS.sub(lambda m: m.group(1) + re.sub(rb"[^\n]", b" ", m.group(2)), fixed)
    return [(path, fixed.decode("utf-8", errors="surrogateescape"))]


SHARED_ANNOTATION = "hirace_shared"   # (cuda_decls.h: __shrobj__)
_SHARED_INIT = "initialization is not supported for __shared__ variables"


def _constructed_shared(tu: cindex.TranslationUnit, errors) -> list[tuple[str, str]]:
    """nvcc takes a __shared__ object whose class has a constructor (`__shared__ cuda::barrier<..> b;`,
    with a warning); clang refuses it. When those are a parse's only errors, the copies of the files
    to parse again, with each such declaration's `__shared__` spelled `__shrobj__` (the same
    length: an annotation the query reads as __shared__); [] otherwise."""
    if not errors or any(d.spelling.rstrip(".") != _SHARED_INIT.rstrip(".") or d.location.file is None
                         for d in errors):
        return []
    by_file: dict[str, bytearray] = {}
    for d in errors:
        name = d.location.file.name
        data = by_file.setdefault(name, bytearray(Path(name).read_bytes()))
        line_start = 0
        for _ in range(d.location.line - 1):
            line_start = data.index(b"\n", line_start) + 1
        at = data.rfind(b"__shared__", 0, line_start + d.location.column)
        if at < 0:
            return []
        data[at:at + 10] = b"__shrobj__"
    return [(name, bytes(data).decode("utf-8", errors="surrogateescape")) for name, data in by_file.items()]


def _load_file(tu: cindex.TranslationUnit, path: str) -> SourceFile:
    data = Path(path).read_bytes()
    sf = SourceFile(path, data)
    f = tu.get_file(path)
    rng = cindex.SourceRange.from_locations(
        cindex.SourceLocation.from_offset(tu, f, 0),
        cindex.SourceLocation.from_offset(tu, f, len(data)))
    toks = []
    for t in tu.get_tokens(extent=rng):
        if t.kind == cindex.TokenKind.COMMENT:
            continue
        ext = t.extent
        toks.append(Token(ext.start.offset, ext.end.offset, t.spelling, t.kind.name))
    sf.set_tokens(toks)
    return sf


def error_diagnostics(path: str | Path, include_dirs=(), defines=()) -> list[tuple[str, int, str]]:
    """Every error libclang finds in `path`, as (file, line, message); [] when it parses.
    Lines follow `#line` directives, so errors in rewritten copies name the original lines."""
    opts = cindex.TranslationUnit.PARSE_INCOMPLETE
    tu = _index().parse(str(Path(path).resolve()), args=parse_args(include_dirs, defines), options=opts)
    out = []
    for d in tu.diagnostics:
        if d.severity >= cindex.Diagnostic.Error:
            loc = d.location
            out.append((loc.file.name if loc.file else str(path), loc.line, d.spelling))
    return out
