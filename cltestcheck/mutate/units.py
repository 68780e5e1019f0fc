"""The mutants of a program built by cltc-cc for mutation, as its processes' logs tell them: each unit's
table (its own mutant ids and sites, as the planner's unit_mode wrote it: planner.py `_register_unit`)
with its first site among the process's, and the sites the process reached (runtime/include/cltc/
mutate.h). Merged over every process of a command, a mutant is its stable id (planner.py `selector`:
file, line, column, operator, replacement), never its number in some build: two processes of one
program, two programs that link one unit and two units that include one header hold one mutant.
The program's mutants are numbered in the order of their places (file, line, column, operator, their
rank at their site), so a mutant keeps its number from run to run and from build to build."""
from __future__ import annotations

import functools
import hashlib
import json
import os
from dataclasses import dataclass, field, replace
from pathlib import Path

from instrument import logs
from instrument.protocol import REACH_LOG

from .planner import Mutant, selector

@dataclass(frozen=True)
class UnitMutants:
    """One unit's table as its object holds it."""
    sites: int
    mutants: tuple[Mutant, ...]
    dropped: tuple[Mutant, ...]       # mutants whose lines did not parse (not built)
    host: str                         # the unit's host code as tokens (code_keys.py)


@dataclass
class ProcessMutants:
    """One process's log: its units (each with its first site and the mutant it ran), the sites it
    reached (by the process's ids)."""
    name: str                         # its command line
    backend: str
    units: list[tuple[UnitMutants, int, int]]   # (table, first site, its own id of the active mutant)
    reached: set[int]

    def reached_selectors(self) -> set[str]:
        return {selector(m) for table, base, _ in self.units for m in table.mutants if base + m.site in self.reached}

    def active_selectors(self) -> set[str]:
        """The mutants that ran in this process (CLTC_MUTANT named them)."""
        return {selector(table.mutants[active - 1]) for table, _, active in self.units if 0 < active <= len(table.mutants)}


@dataclass
class ProgramMutants:
    """Every process's mutants merged: the program's numbering, and its sites (a site is the unit's
    site of the mutant that first named it)."""
    mutants: list[Mutant] = field(default_factory=list)
    dropped: list[Mutant] = field(default_factory=list)
    host: str = ""                    # every unit's host key, as one digest
    by_selector: dict[str, Mutant] = field(default_factory=dict)


def _mutant(d: dict) -> Mutant:
    return Mutant(**{**d, "file": os.path.normpath(d["file"])})


@functools.lru_cache(maxsize=4096)
def unit_table(text: str) -> UnitMutants:
    """A unit's table as its object holds it (every process of a program carries the same text: read
    once; callers never change it)."""
    d = json.loads(text)
    return UnitMutants(int(d["sites"]), tuple(_mutant(m) for m in d["mutants"]),
                       tuple(_mutant(m) for m in d["dropped"]), str(d["host"]))


def read_log(path: Path) -> ProcessMutants | None:
    """A process's log; None when it holds no mutant table (a program cltc built whole, not cltc-cc)."""
    data = logs.read_complete(path, REACH_LOG, f"the reached-sites log {path.name}")
    if not data["unit"]:
        return None
    units = []
    for u in data["unit"]:
        try:
            table = unit_table(u.table)
        except (ValueError, KeyError, TypeError):
            raise logs.LogError(f"the reached-sites log {path.name} is damaged: a unit's mutant table does not read",
                                hint=logs.DAMAGE_HINT) from None
        units.append((table, u.site_base, u.active))
    proc = data["process"][0] if data["process"] else None
    return ProcessMutants(proc.command if proc else path.stem, proc.backend if proc else "", units,
                          {r.site for r in data["reached"]})


def _place(m: Mutant, rank: int) -> tuple:
    return (m.file, m.line, m.col, m.operator, rank, m.replacement)


def merge(processes: list[ProcessMutants]) -> ProgramMutants:
    """Every mutant of every process's units once, numbered by place; each site a number of its own."""
    found: dict[str, tuple[tuple, Mutant, tuple]] = {}   # selector -> (place, mutant, its unit site's key)
    dropped: dict[str, Mutant] = {}
    hosts: set[str] = set()
    for p in processes:
        for table, _, _ in p.units:
            hosts.add(table.host)
            first: dict[int, int] = {}
            for i, m in enumerate(table.mutants):
                rank = i - first.setdefault(m.site, i)
                key = (id(table), m.site)
                found.setdefault(selector(m), (_place(m, rank), m, key))
            for m in table.dropped:
                dropped.setdefault(selector(m), m)
    out = ProgramMutants(host=hashlib.sha256("\n".join(sorted(hosts)).encode()).hexdigest()[:24])
    sites: dict[tuple, int] = {}
    for sel, (_, m, key) in sorted(found.items(), key=lambda kv: kv[1][0]):
        program = replace(m, id=len(out.mutants) + 1, site=sites.setdefault(key, len(sites)))
        out.mutants.append(program)
        out.by_selector[sel] = program
    out.dropped = sorted(dropped.values(), key=lambda m: _place(m, 0))
    return out
