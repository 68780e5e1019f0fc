"""The cpu backend's precompiled emulation header: cudaemu.h, which every cpu build includes first
(`-include`), compiled once by gcc into a precompiled header (a .gch) and read in its place by every
later build that agrees in what decides its meaning. Parsing the emulation and the C++ library under
it is about a sixth of a cpu build's compile time; a build's output is the same with or without it.

What decides the header's meaning, and so which precompiled form a build may use:
- the compiler (its path, size and time; gcc itself refuses a .gch another executable wrote) and the
  variables of the environment that move where it looks (build_cache.COMPILER_ENV);
- every option the build gives besides its own include directories and -D macros (the optimisation
  level, -std, -g, -fPIC, the emulation's and the libraries' directories, a suite's flags), as
  written: an entry's *group*;
- the -D macros whose names occur in the files the header read (the tools' macros never do: they
  live in cudacommon/protocol.h, not protocol_core.h), the entry within its group: programs with
  different site counts share one;
- the bytes of every file the header read (its dependency output), checked at each use: an edited
  runtime header, or an updated C++ library, is another entry;
- the build's own include directories, searched before the system's: one that holds a file by the
  name of one the header read (it could be found in its place) builds without it.
gcc checks again as it reads the .gch (the options it records, every macro the header tested), and
where it refuses the .gch it reads the header instead (the entry's cudaemu.h includes the real one).

A group's first build compiles as it always did and marks the group; the second makes the entry (a
single build never pays for one). Entries appear whole (made in a hidden folder, renamed into place);
one build makes an entry at a time (a lock, not waited for: a build that finds it taken compiles
without). The cache lies in $XDG_CACHE_HOME (~/.cache)/cuda-correctness-toolkit/pch, a directory no
other user may write, or in $CCTK_PCH_CACHE (`off`: never used); it keeps the MAX_ENTRIES most
recently used entries (about 60 MB each), none used in the last IN_USE_S seconds removed. Any failure
of the cache builds without it, never fails the build."""
from __future__ import annotations

import fcntl
import functools
import hashlib
import json
import os
import re
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from .. import reaper
from ..backends.process import run_process
from ..errors import UserError
from ..ownership import cache_home, private_dir
from .build_cache import COMPILER_ENV, SLACK_NS, _compiler_identity, _digest, read_dependencies

ENV = "CCTK_PCH_CACHE"
FORMAT = "cctk-pch-1"
ENTRY = "entry.json"
NAMES = "names.txt"
MAX_ENTRIES = 6           # entries kept; the least recently used go
IN_USE_S = 900            # an entry used this recently may be read by a build (compiles time out at 600 s)
FAILED_S = 86400          # a header that did not precompile is not tried again for this long
BUILD_TIMEOUT = 600
# options that put code before or around the header, or read files as it is compiled: a build with
# one compiles without a precompiled header
_REFUSED = ("-include", "-imacros", "--include", "-x", "-E", "-M", "-save-temps", "-fpch", "-fdirectives")
# what the header's files name: identifiers outside comments and literals
_TOKEN = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|([A-Za-z_]\w*)', re.S)
_SEARCH_OPTIONS = ("-I", "-isystem", "-iquote", "-idirafter")


@dataclass
class Use:
    """A precompiled header a build may use: `header` to -include in the real one's place (its .gch
    beside it), and the files the header read, which a build's dependency output then leaves out."""
    header: Path
    files: list[str]

    def intact(self) -> bool:
        return self.header.is_file() and self.header.with_name(self.header.name + ".gch").is_file()


def cache_root() -> Path | None:
    v = os.environ.get(ENV, "")
    if v.lower() == "off":
        return None
    return Path(v) if v else cache_home() / "pch"


@functools.lru_cache(maxsize=None)
def _is_gcc(compiler: str, identity: str) -> bool:
    """Whether `compiler` is gcc (clang reads precompiled headers otherwise: an error, not a fallback)."""
    try:
        res = run_process([compiler, "-x", "c++", "-E", "-dM", os.devnull], timeout=60, env=reaper.scratch_env())
    except OSError:
        return False
    return res.returncode == 0 and "#define __GNUC__" in res.stdout and "__clang__" not in res.stdout


@functools.lru_cache(maxsize=None)
def _system_dirs(compiler: str, identity: str) -> tuple[str, ...]:
    """The directories the compiler searches by itself, as its -v says."""
    res = run_process([compiler, "-x", "c++", "-E", "-v", os.devnull], timeout=60, env=reaper.scratch_env())
    lines = res.stderr.splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.startswith("#include <...>")), None)
    if start is None:
        return ()
    found = []
    for ln in lines[start + 1:]:
        if not ln.startswith(" "):
            break
        found.append(os.path.realpath(ln.strip().split(" (")[0]))
    return tuple(found)


def _name(define: str) -> str:
    return define.split("=", 1)[0]


def _relative(options: list[str]) -> bool:
    """Whether an option names a path relative to the directory the build runs in."""
    return any(not o.startswith("-") and not os.path.isabs(o) or
               o.startswith(("-I", "-L")) and len(o) > 2 and not os.path.isabs(o[2:]) for o in options)


def _group_key(header: Path, identity: str, options: list[str], after: list[str]) -> str:
    h = hashlib.sha256()
    for part in (FORMAT, str(header.resolve()), identity, *(f"{v}={os.environ.get(v, chr(1))}" for v in COMPILER_ENV),
                 len(options), *options, len(after), *after, os.getcwd() if _relative([*options, *after]) else ""):
        h.update(str(part).encode() + b"\0")
    return h.hexdigest()[:32]


def _names(files: list[str]) -> set[str]:
    names: set[str] = set()
    for f in files:
        with open(f, errors="replace") as fh:
            names.update(n for n in _TOKEN.findall(fh.read()) if n)
    return names


def _search_dirs(options: list[str], compiler: str, identity: str) -> list[str]:
    dirs = []
    for i, o in enumerate(options):
        for opt in _SEARCH_OPTIONS:
            if o == opt and i + 1 < len(options):
                dirs.append(options[i + 1])
            elif o.startswith(opt) and len(o) > len(opt):
                dirs.append(o[len(opt):])
    return [os.path.realpath(d) for d in dirs] + list(_system_dirs(compiler, identity))


def _names_found_through(files: list[str], dirs: list[str]) -> list[str]:
    """The names by which the header's files could be included: each relative to every search
    directory that holds it (a file of that name in a directory searched first would be found instead)."""
    rels = set()
    for f in files:
        real = os.path.realpath(f)
        for d in dirs:
            if real.startswith(d.rstrip(os.sep) + os.sep):
                rels.add(real[len(d.rstrip(os.sep)) + 1:])
    return sorted(rels)


@functools.lru_cache(maxsize=64)
def _read_entry(path: str, mtime_ns: int) -> tuple[dict, frozenset[str]] | None:
    try:
        record = json.loads((Path(path) / ENTRY).read_text())
        if record.get("format") != FORMAT:
            return None
        return record, frozenset((Path(path) / NAMES).read_text().split())
    except (OSError, ValueError):
        return None


def _matches(entry: Path, defines: list[str], include_dirs: list[str]) -> tuple[bool | None, dict | None]:
    """(True, record) where `entry` serves a build with these -D macros and include directories;
    (False, None) where it is for other macros or a directory could shadow its files; (None, None)
    where it is damaged or a file it read has changed (it is stale)."""
    try:
        read = _read_entry(str(entry), (entry / ENTRY).stat().st_mtime_ns)
    except OSError:
        return None, None
    if read is None:
        return None, None
    record, names = read
    if [d for d in defines if _name(d) in names] != record["defines"]:
        return False, None
    searched = set(record["search"])
    for d in include_dirs:
        real = os.path.realpath(d)
        if real not in searched and any(os.path.lexists(os.path.join(real, rel)) for rel in record["found_as"]):
            return False, None
    for name, digest in record["files"]:
        try:
            if _digest(Path(name)) != digest:
                return None, None
        except OSError:
            return None, None
    if not (entry / record["header"]).is_file() or not (entry / (record["header"] + ".gch")).is_file():
        return None, None
    return True, record


def _find(group: Path, defines: list[str], include_dirs: list[str]) -> tuple[Use | None, list[Path]]:
    """A usable entry of the group, and the stale ones seen."""
    stale = []
    entries = sorted((e for e in group.iterdir() if not e.name.startswith(".") and e.is_dir()),
                     key=lambda e: e.stat().st_mtime_ns, reverse=True) if group.is_dir() else []
    for entry in entries:
        ok, record = _matches(entry, defines, include_dirs)
        if ok:
            try:
                os.utime(entry)   # (used: kept by _prune)
            except OSError:
                pass
            return Use(entry / record["header"], [n for n, _ in record["files"]]), stale
        if ok is None:
            stale.append(entry)
    return None, stale


def use(header: Path, compiler: str, options: list[str], include_dirs, defines, after=()) -> Use | None:
    """The precompiled form of `header` for a build by `compiler` whose command line is `options`,
    `-include header`, `include_dirs` (-I), `defines` (-D) and `after`, in that order; None where the
    build should include the header itself (no cache, not gcc, a first build of its group, an entry
    being made by another build, an option that puts code before the header)."""
    root = cache_root()
    found = shutil.which(compiler) if compiler else None
    options, after = [str(o) for o in options], [str(o) for o in after]
    if root is None or found is None or any(o.startswith(_REFUSED) for o in [*options, *after]):
        return None
    include_dirs = [str(d) for d in include_dirs]
    defines = [str(d) for d in defines]
    try:
        identity = _compiler_identity(compiler)
        group = private_dir(root) / _group_key(header, identity, options, after)
        found_use, stale = _find(group, defines, include_dirs)
        if found_use is not None:
            return found_use
        seen = group / ".seen"
        if not seen.exists():   # (the group's first build: no entry yet, and nothing run to make one)
            group.mkdir(exist_ok=True)
            seen.touch()
            return None
        if not _is_gcc(compiler, identity):
            return None
        return _make(root, group, header, compiler, identity, (options, after), defines, include_dirs, stale)
    except (OSError, UserError, ValueError, KeyError, TypeError):
        return None


def _make(root: Path, group: Path, header: Path, compiler: str, identity: str, options: tuple[list[str], list[str]],
          defines: list[str], include_dirs: list[str], stale: list[Path]) -> Use | None:
    with open(group / ".lock", "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return None   # (another build makes one now)
        found_use, more = _find(group, defines, include_dirs)   # (made while we looked)
        if found_use is not None:
            return found_use
        for entry in {*stale, *more}:
            shutil.rmtree(entry, ignore_errors=True)
        made = _precompile(group, header, compiler, identity, options, defines)
    _prune(root)
    if made is None:
        return None
    return _find(group, defines, include_dirs)[0]


def _precompile(group: Path, header: Path, compiler: str, identity: str, options: tuple[list[str], list[str]],
                defines: list[str]) -> Path | None:
    """Make the group's entry for these macros (those of them the header's files name), or None."""
    before, after = options
    tmp = Path(tempfile.mkdtemp(prefix=".make-", dir=group))
    reaper.watch_dir(tmp)
    try:
        stub = tmp / header.name
        stub.write_text(f'#include "{header.resolve()}"\n')
        env = reaper.scratch_env()
        # which files the header reads, with every macro of the build; the macros they name are its own
        listed = run_process([compiler, *before, *(f"-D{d}" for d in defines), *after, "-M", "-x", "c++-header", str(stub)],
                             timeout=BUILD_TIMEOUT, env=env)
        if listed.returncode != 0:
            return _failed(group, defines, listed.stderr)
        files = [f for f in read_dependencies(listed.stdout) if os.path.abspath(f) != str(stub)]
        names = _names(files)
        own = [d for d in defines if _name(d) in names]
        key = hashlib.sha256(json.dumps(own).encode()).hexdigest()[:16]
        failed = group / f".failed-{key}"
        if failed.exists() and failed.stat().st_mtime > time.time() - FAILED_S:
            return None
        deps = tmp / "deps.d"
        env.pop("DEPENDENCIES_OUTPUT", None)
        env["SUNPRO_DEPENDENCIES"] = str(deps)
        started = time.time_ns()
        made = run_process([compiler, *before, *(f"-D{d}" for d in own), *after, "-x", "c++-header", str(stub),
                            "-o", str(tmp / (header.name + ".gch"))], timeout=BUILD_TIMEOUT, env=env)
        if made.returncode != 0:
            return _failed(group, own, made.stderr)
        read = [f for f in read_dependencies(deps.read_text(errors="surrogateescape")) if os.path.abspath(f) != str(stub)]
        deps.unlink()
        if sorted(map(os.path.abspath, read)) != sorted(map(os.path.abspath, files)):
            return _failed(group, own, "a macro the header's files do not name chose what they include")
        record_files = []
        for f in read:
            st = os.stat(f)
            if max(st.st_mtime_ns, st.st_ctime_ns) >= started - SLACK_NS:
                return None   # (changed while it was read: what the .gch holds is not known)
            record_files.append([os.path.abspath(f), _digest(Path(f))])
        search = _search_dirs([*before, *after], compiler, identity)
        (tmp / NAMES).write_text("\n".join(sorted(names)) + "\n")
        (tmp / ENTRY).write_text(json.dumps({
            "format": FORMAT, "header": header.name, "defines": own, "files": record_files,
            "search": search, "found_as": _names_found_through(read, search)}))
        done = group / key
        try:
            os.rename(tmp, done)
        except OSError:
            return None
        return done
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        reaper.unwatch_dir(tmp)


def _failed(group: Path, defines: list[str], why: str) -> None:
    """Note that the header does not precompile with these macros (tried again after FAILED_S)."""
    key = hashlib.sha256(json.dumps(defines).encode()).hexdigest()[:16]
    (group / f".failed-{key}").write_text(why[-2000:])
    return None


def _prune(root: Path) -> None:
    """Keep the MAX_ENTRIES most recently used entries, never one used in the last IN_USE_S seconds;
    a hidden folder a day old is what a build left that was stopped with its guardian."""
    now = time.time()
    entries = []
    for group in root.iterdir():
        if not group.is_dir() or group.name.startswith("."):
            continue
        try:
            if max(e.stat().st_mtime for e in [group, *group.iterdir()]) < now - FAILED_S:
                shutil.rmtree(group, ignore_errors=True)   # (a group not asked for in a day)
                continue
        except OSError:
            continue
        for e in group.iterdir():
            try:
                mtime = e.stat().st_mtime
            except OSError:
                continue
            if e.name.startswith(".make-"):
                if mtime < now - FAILED_S:
                    shutil.rmtree(e, ignore_errors=True)
            elif not e.name.startswith("."):
                entries.append((mtime, e))
    for mtime, e in sorted(entries, reverse=True)[MAX_ENTRIES:]:
        if mtime < now - IN_USE_S:
            shutil.rmtree(e, ignore_errors=True)


def dependency_rule(used: Use) -> str:
    """A make rule naming the files a precompiled header read (gcc's dependency output of a build that
    used one names none of them: build_cache.py's record needs them)."""
    escaped = (f.replace("\\", "\\\\").replace(" ", "\\ ").replace("#", "\\#").replace("$", "$$") for f in used.files)
    return "cctk-precompiled-header: " + " ".join(escaped)
