"""A compilation database (`compile_commands.json`, as CMake writes with CMAKE_EXPORT_COMPILE_COMMANDS
and Bear for Make), read as clang tools read it with `-p BUILD`: the flags a source is compiled
with (its -I, -isystem and -D) come from its entry, relative paths read from the entry's directory.
"""
from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path

from . import compile_line
from ..errors import UserError
from ..files import read_text

NAME = "compile_commands.json"


@dataclass(frozen=True)
class Unit:
    """One CUDA translation unit of the database, its paths absolute."""
    file: Path
    include_dirs: tuple[Path, ...]   # -I, then -isystem and -idirafter, in the line's order
    defines: tuple[str, ...]


def database_path(p: Path) -> Path:
    """BUILD or BUILD/compile_commands.json, as given to -p."""
    p = Path(p)
    return p / NAME if p.is_dir() else p


def read(p: Path) -> list[Unit]:
    """The CUDA units (`.cu`, or compiled with -x cu) of the database at p; an error naming the file
    and the entry when it is not one clang tools could read."""
    path = database_path(p)
    try:
        entries = json.loads(read_text(path, "compilation database"))
    except json.JSONDecodeError as exc:
        raise UserError(f"{path}: not valid JSON: {exc}", hint="regenerate it (CMake: -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)") from None
    if not isinstance(entries, list):
        raise UserError(f"{path}: a compilation database is a JSON list of entries")
    units = []
    for n, e in enumerate(entries, 1):
        where = f"{path}: entry {n}"
        if not isinstance(e, dict) or not isinstance(e.get("directory"), str) or not isinstance(e.get("file"), str):
            raise UserError(f"{where}: needs 'directory' and 'file' strings")
        args = e.get("arguments")
        if args is None and isinstance(e.get("command"), str):
            try:
                args = shlex.split(e["command"])
            except ValueError as exc:
                raise UserError(f"{where}: its 'command' cannot be split into arguments: {exc}") from None
        if not isinstance(args, list) or not args or not all(isinstance(a, str) for a in args):
            raise UserError(f"{where}: needs 'arguments' (a list of strings) or 'command'")
        unit = _unit(Path(e["directory"]), Path(e["file"]), args, where)
        if unit is not None:
            units.append(unit)
    return units


def _unit(directory: Path, file: Path, args: list[str], where: str) -> Unit | None:
    try:
        line = compile_line.parse(args)
    except (ValueError, OSError) as exc:
        raise UserError(f"{where}: its command line cannot be read: {exc}") from None
    source = (directory / file).resolve()
    entry = next((i for i in line.inputs() if (directory / i.path).resolve() == source), None)
    if entry is None or entry.language != "cuda":
        return None   # (a host .cpp, a C file, a link: nothing for the tools to instrument there)
    dirs = [*line.include_dirs()] + [i.value for i in line.items if i.name in ("-isystem", "-idirafter")]
    return Unit(source, tuple((directory / d).resolve() for d in dirs), tuple(line.defines()))


def flags_for(units: list[Unit], sources, db: Path) -> tuple[list[Path], list[Path], list[str]]:
    """(sources, include dirs, defines) for one build of `sources` (default: every CUDA unit of the
    database). Each source must have an entry; their defines must agree (one build has one set);
    include directories are taken in the order the entries give them."""
    by_file = {u.file: u for u in units}
    chosen = [by_file.get(Path(s).resolve()) for s in sources] if sources else list(units)
    missing = [str(s) for s, u in zip(sources, chosen) if u is None] if sources else []
    if missing:
        raise UserError(f"{', '.join(missing)}: no CUDA entry in {database_path(db)}",
                        hint="name sources the database compiles as CUDA, or regenerate it")
    if not chosen:
        raise UserError(f"{database_path(db)}: no CUDA translation unit in the database")
    dirs: list[Path] = []
    defines: dict[str, tuple[str, Path]] = {}
    for u in chosen:
        dirs += [d for d in u.include_dirs if d not in dirs]
        for d in u.defines:
            name = d.split("=", 1)[0]
            if name in defines and defines[name][0] != d:
                raise UserError(f"{u.file} and {defines[name][1]} are compiled with different -D{name} "
                                f"({d} and {defines[name][0]}), which one build cannot give both",
                                hint="check them in separate runs (name the sources), or build the project "
                                     "through the compiler launcher (hirace-cc, cltc-cc)")
            defines.setdefault(name, (d, u.file))
    return [u.file for u in chosen], dirs, [d for d, _ in defines.values()]
