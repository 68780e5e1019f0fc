"""Builds kept between runs by their content, so that an unchanged program is not compiled again
(`hirace run a.cu b.cu`; `--no-build-cache` or CCTK_BUILD_CACHE=off builds afresh).

An entry is found in two steps, as ccache's direct mode finds one. The key of what the build is
given names a folder: this toolkit's code and runtime headers (toolkit_digest), the backend, its
compilers (path, size, time) and the variables of the environment that change where they look,
the request (options, defines, include directories, output name) and the bytes of every file of
the instrumented tree; the build's own scratch folder is written @work in it, so that another run's
scratch matches. In that folder each entry holds the output and the record of every file the
compiler read (its dependency output: SUNPRO_DEPENDENCIES, which gcc, clang and nvcc's host passes
append to), each with its digest. An entry whose files all still have their digests is a hit: its
output is copied into place and nothing is compiled; an edited header is a miss.

Entries appear whole: made in a hidden folder of the cache and renamed into place (a run that
published the same entry first keeps its own). One whose record cannot be read or whose output is
not the one recorded is removed and rebuilt. A build whose compiler left no dependency output, or
read a file that cannot be read back or that changed after the build began, is not kept. The cache
lies in $XDG_CACHE_HOME (~/.cache)/cuda-correctness-toolkit/builds, a directory no other user may
write (ownership.private_dir), or in $CCTK_BUILD_CACHE; it keeps the most recently used entries
(MAX_ENTRIES). Any failure of the cache itself builds afresh, never fails the build."""
from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shutil
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from runtime import include_dir

from .. import reaper
from ..backends.base import Backend, BuildRequest
from ..errors import UserError
from ..ownership import cache_home, private_dir

ENV = "CCTK_BUILD_CACHE"
FORMAT = "cctk-build-cache-1"
RECORD = "record.json"
OUTPUT = "output"
MAX_ENTRIES = 64          # entries kept (about 1 MB each on the cpu backend); the least recently used go
WORK = "@work"            # the build's scratch folder, in keys and records
SLACK_NS = 10**9          # a file changed this close before a build began may have changed during it
                          # (file systems that keep times to the second)
# what moves a compiler's search for headers and libraries, or its options, without a change on
# its command line
COMPILER_ENV = ("CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "LIBRARY_PATH", "GCC_EXEC_PREFIX",
                "COMPILER_PATH", "NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS", "NVCC_CCBIN")


def cache_root() -> Path | None:
    """Where builds are kept; None when CCTK_BUILD_CACHE=off."""
    v = os.environ.get(ENV, "")
    if v.lower() == "off":
        return None
    return Path(v) if v else cache_home() / "builds"


@functools.lru_cache(maxsize=1)
def toolkit_digest() -> str:
    """The runtime headers and the engine's code: a change to either is another build."""
    h = hashlib.sha256()
    engine = Path(__file__).resolve().parents[1]
    for root, pattern in ((include_dir(), "*"), (engine, "*.py")):
        for p in sorted(root.rglob(pattern)):
            if p.is_file() and "__pycache__" not in p.parts:
                h.update(str(p.relative_to(root)).encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


@contextmanager
def staging(root: Path):
    """A hidden folder of `root` to make an entry in, removed when the block ends (or by the
    guardian, when the tool is killed first) unless `publish` moved it into place."""
    tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=root))
    reaper.watch_dir(tmp)
    try:
        yield tmp
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        reaper.unwatch_dir(tmp)


def publish(tmp: Path, done: Path) -> bool:
    """Move a finished entry into place with one rename: False where another run published it
    first (its own is kept; it holds the same build)."""
    try:
        os.rename(tmp, done)
        return True
    except OSError:
        return False


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _compiler_identity(name: str | None) -> str:
    found = shutil.which(name) if name else None
    if not found:
        return f"{name}: not found"
    real = os.path.realpath(found)
    st = os.stat(real)
    return f"{name}={real}:{st.st_size}:{st.st_mtime_ns}"


class _Where:
    """Paths as a key or a record writes them: the build's scratch folder (as given, or with its
    links resolved) as @work."""

    def __init__(self, work: Path):
        self.work = str(Path(work).resolve())
        self.prefixes = sorted({self.work, os.path.abspath(work)}, key=len, reverse=True)

    def name(self, path) -> str:
        p = str(path)
        for prefix in self.prefixes:
            if p == prefix or p.startswith(prefix + os.sep):
                return WORK + p[len(prefix):]
        return p

    def path(self, name: str) -> Path:
        return Path(self.work + name[len(WORK):]) if name.startswith(WORK) else Path(name)


def _key(backend: Backend, req: BuildRequest, where: _Where, tree: Path | None) -> str:
    h = hashlib.sha256()

    def put(*parts) -> None:
        for part in parts:
            h.update(str(part).encode() + b"\0")

    put(FORMAT, toolkit_digest(), type(backend).__name__, backend.name, backend.toolchain_id())
    for compiler in backend.compilers():
        put(_compiler_identity(compiler))
    for var in COMPILER_ENV:
        put(var, os.environ.get(var, "\x01unset"))
    put("opt", req.opt, "library", req.library, "output", Path(req.output).name)
    for label, values in (("flags", req.flags), ("defines", req.defines),
                          ("include", [where.name(Path(d).resolve()) for d in req.include_dirs])):
        put(label, len(values), *values)
    files = {where.name(Path(s).resolve()): Path(s) for s in req.sources}
    files.update((where.name(p.resolve()), p) for p in _linked_files(req.flags))
    if tree is not None and tree.is_dir():
        files.update((where.name(p.resolve()), p) for p in tree.rglob("*") if p.is_file())
    put("sources", *(where.name(Path(s).resolve()) for s in req.sources))
    for name in sorted(files):
        put(name, _digest(files[name]))
    return h.hexdigest()[:32]


def _linked_files(flags) -> list[Path]:
    """The files the link reads that the compiler's dependency output does not name: objects and
    libraries given as paths, and each -lNAME found in a -L directory (libNAME.so, libNAME.a); a
    rebuilt library is another build. (Libraries of the system's own directories are not looked for.)"""
    flags = [str(f) for f in flags]
    dirs = [f[2:] for f in flags if f.startswith("-L") and len(f) > 2]
    dirs += [b for a, b in zip(flags, flags[1:]) if a == "-L"]
    found = []
    for i, f in enumerate(flags):
        if f.startswith("-l") and len(f) > 2 or f == "-l" and i + 1 < len(flags):
            name = f[2:] or flags[i + 1]
            found += [p for d in dirs for p in (Path(d) / f"lib{name}.so", Path(d) / f"lib{name}.a") if p.is_file()]
        elif not f.startswith("-") and Path(f).is_file():
            found.append(Path(f))
    return found


_TARGET = re.compile(r"(?:\\.|[^\\:])*?:(?=\s|$)")
_WORD = re.compile(r"(?:\\.|\$\$|[^\s\\])+")


def read_dependencies(text: str) -> list[str]:
    """The files a make-style dependency output names (every rule's prerequisites, in order, once
    each: gcc's escapes of spaces, '#' and '$' undone)."""
    out: dict[str, None] = {}
    for line in text.replace("\\\r\n", " ").replace("\\\n", " ").splitlines():
        m = _TARGET.match(line)
        if not m:
            continue
        for word in _WORD.findall(line[m.end():]):
            out[re.sub(r"\\(.)", r"\1", word.replace("$$", "$"))] = None
    return list(out)


def _recorded(deps: list[str], where: _Where, started_ns: int) -> list[list[str]] | None:
    """[name, digest] of every file the build read, or None when one cannot be kept: unreadable, or
    changed after the build began (what it read is then not known). The compiler's own temporaries
    (in the tool's scratch, made from the other files: nvcc's) are left out."""
    scratch = reaper.scratch_dir()
    record, seen = [], set()
    for dep in deps:
        p = os.path.abspath(dep)
        name = where.name(p) if os.path.isabs(dep) else dep   # (relative: to the directory run in)
        if scratch and p.startswith(scratch + os.sep) or name in seen:
            continue
        seen.add(name)
        try:
            st = os.stat(p)
            if not name.startswith(WORK) and max(st.st_mtime_ns, st.st_ctime_ns) >= started_ns - SLACK_NS:
                return None
            record.append([name, _digest(Path(p))])
        except OSError:
            return None
    return record


def _matches(entry: Path, where: _Where, digests: dict[str, str | None]) -> bool | None:
    """Whether `entry` holds this build: True, False (a file it read has changed), None (damaged).
    `digests`: the files' digests already taken (None: unreadable)."""
    try:
        record = json.loads((entry / RECORD).read_text())
        files, output = record["files"], record["output"]
        if record["format"] != FORMAT or not all(isinstance(n, str) and isinstance(d, str) for n, d in files):
            return None
        if _digest(entry / OUTPUT) != output:
            return None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    for name, digest in files:
        if name not in digests:
            try:
                digests[name] = _digest(where.path(name))
            except OSError:
                digests[name] = None
        if digests[name] != digest:
            return False
    return True


def _prune(root: Path) -> None:
    """Keep the MAX_ENTRIES most recently used entries (a hit touches its folder); a hidden folder
    a day old is what a run left that was stopped with its guardian (the machine went down)."""
    entries = []
    for group in root.iterdir():
        if group.name.startswith("."):
            try:
                if group.stat().st_mtime < time.time() - 86400:
                    shutil.rmtree(group, ignore_errors=True)
            except OSError:
                pass
            continue
        if not group.is_dir():
            continue
        for e in group.iterdir():
            try:
                entries.append((e.stat().st_mtime_ns, e))
            except OSError:
                pass
    for _, e in sorted(entries, reverse=True)[MAX_ENTRIES:]:
        shutil.rmtree(e, ignore_errors=True)
        try:
            e.parent.rmdir()
        except OSError:
            pass


def build(backend: Backend, req: BuildRequest, work: Path, tree: Path | None = None) -> tuple[bool, str]:
    """Build `req` with `backend`, or copy its output from the cache: (True, "") when it came from
    the cache (nothing was compiled), else (False, why the build was not kept, or ""). `work`: the
    build's scratch folder (its sources, the output); `tree`: the instrumented sources and headers
    the build reads, all of which are in the key."""
    root = cache_root()
    if root is None:
        backend.build(req)
        return False, f"{ENV}=off"
    where = _Where(work)
    try:
        root = private_dir(root)   # (programs are copied from here and run: no one else may write it)
        group = root / _key(backend, req, where, tree)
        digests: dict[str, str | None] = {}
        for entry in sorted(group.iterdir()) if group.is_dir() else ():
            if entry.name.startswith("."):
                continue
            found = _matches(entry, where, digests)
            if found is None:
                shutil.rmtree(entry, ignore_errors=True)   # damaged: rebuilt below
            elif found:
                out = Path(req.output)
                out.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(entry / OUTPUT, out)
                os.chmod(out, 0o755)
                os.utime(entry)
                return True, ""
    except (OSError, UserError) as e:
        backend.build(req)
        return False, f"the cache is not usable: {e.message if isinstance(e, UserError) else e}"
    deps = Path(where.work) / ".dependencies.d"
    if " " in str(deps) or any(ord(c) < 32 for c in str(deps)):   # (the variable's value: "FILE [TARGET]")
        backend.build(req)
        return False, f"the build's folder {where.work} has a space in its name"
    deps.unlink(missing_ok=True)
    started = time.time_ns()
    backend.build(BuildRequest(req.sources, req.output, req.include_dirs, req.defines, req.flags, req.opt,
                               req.library, depfile=deps))
    try:
        text = deps.read_text(errors="surrogateescape")
        deps.unlink()
    except OSError:
        return False, "the compiler wrote no list of the files it read"
    files = _recorded(read_dependencies(text), where, started)
    if not files:
        return False, "a file the compiler read changed during the build (or less than a second before), or cannot be read back"
    try:
        with staging(root) as tmp:
            shutil.copyfile(req.output, tmp / OUTPUT)
            record = {"format": FORMAT, "files": files, "output": _digest(tmp / OUTPUT)}
            (tmp / RECORD).write_text(json.dumps(record))
            group.mkdir(exist_ok=True)
            publish(tmp, group / hashlib.sha256(json.dumps(files).encode()).hexdigest()[:16])
        _prune(root)
    except OSError as e:
        return False, f"not kept: {e}"
    return False, ""
