"""The search's journal: one JSON line per run, appended and flushed as each finishes, in the output
folder (JOURNAL). The search is a function of its seed, the suite and its program; a rerun over the same
folder replays it, taking each run's outcome from the journal instead of running the input again (so
it makes the same inputs, keeps the same ones and writes the same tests), and goes on where the journal
ends: an interrupted search resumes, and a larger budget continues one that finished.

The first line names the campaign (its fingerprint: the seed, the backend, the suite's tests and their
input files, the sources, defines and flags); a journal of another campaign is refused (exit 2), so is
a run whose input differs from the one the journal holds at its place (the search changed). A last
line cut short by a kill is dropped; a folder that holds no journal and is not empty is not one of the
search's, and is refused. Headers the sources include are not in the fingerprint: after editing one,
start a new folder."""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from instrument.errors import UserError
from instrument.files import not_regular

JOURNAL = "search-journal.jsonl"
FORMAT = 2   # (2: loop distances, the episodes' numbers chosen in order)


def fingerprint(suite, seed: int, backend: str) -> str:
    h = hashlib.sha256()
    doc = {"format": FORMAT, "seed": seed, "backend": backend, "defines": suite.defines,
           "flags": [suite.flags, getattr(suite, "gpu_flags", []), getattr(suite, "cpu_flags", [])],
           "tests": [[t.name, t.args, t.stdin, t.files] for t in suite.tests]}
    h.update(json.dumps(doc, sort_keys=True).encode())
    for p in [*suite.sources, *(suite.root / f for t in suite.tests for f in t.files)]:
        h.update(str(p).encode() + b"\0" + Path(p).read_bytes())
    return h.hexdigest()[:16]


class Journal:
    def __init__(self, out: Path, campaign: str, seed: int):
        self.path = Path(out) / JOURNAL
        self.records: dict[str, dict] = {}   # record key -> record
        lines = self._read()
        if lines:
            head = lines[0]
            if head.get("record") != "campaign":
                raise UserError(f"{self.path}: not a journal of cltc search (its first line names no campaign)",
                                hint="give --out a new folder")
            if head.get("format") != FORMAT:
                raise UserError(f"{out}: holds a search of another version of cltc search (its journal's format "
                                f"{head.get('format')}, this version's {FORMAT}): its inputs would not be made again",
                                hint="give --out a new folder, or delete this one to start over")
            if head.get("fingerprint") != campaign:
                raise UserError(f"{out}: holds a search of another campaign (seed {head.get('seed')}, or other "
                                f"tests, input files, sources, defines, flags or backend)",
                                hint="give --out a new folder, or delete this one to start over")
            for r in lines[1:]:
                self.records[r["key"]] = r
        self.started_empty = not lines
        self._fh = open(self.path, "a")
        if not lines:
            self._append({"record": "campaign", "fingerprint": campaign, "seed": seed, "format": FORMAT})

    def _read(self) -> list[dict]:
        if not self.path.exists():
            return []
        why = not_regular(self.path)
        if why:
            raise UserError(f"{self.path}: is {why}, not the search's journal")
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):   # torn by a kill mid-write: the last run runs again
            data = data[:data.rfind(b"\n") + 1]
            with open(self.path, "r+b") as fh:
                fh.truncate(len(data))
        out = []
        for n, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
            try:
                r = json.loads(line)
            except json.JSONDecodeError:
                raise UserError(f"{self.path}:{n}: not a line of the search's journal",
                                hint="give --out a new folder, or delete this one to start over") from None
            if not isinstance(r, dict) or (n > 1 and "key" not in r):
                raise UserError(f"{self.path}:{n}: not a record of the search's journal")
            out.append(r)
        return out

    def _append(self, record: dict) -> None:
        self._fh.write(json.dumps(record, sort_keys=True) + "\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def get(self, key: str, digest: str) -> dict | None:
        """The record of `key` when the journal has it, for the input `digest` (an error when it holds
        another input there: the search that wrote it made other inputs)."""
        r = self.records.get(key)
        if r is None:
            return None
        if r.get("input") != digest:
            raise UserError(f"{self.path}: its {key} ran another input than this search makes there (the journal "
                            f"was written by another version of cltc search)",
                            hint="give --out a new folder, or delete this one to start over")
        return r["value"]

    def add(self, key: str, digest: str, value) -> None:
        record = {"record": "run", "key": key, "input": digest, "value": value}
        self.records[key] = record
        self._append(record)

    def close(self) -> None:
        self._fh.close()

    def discard_if_bare(self) -> None:
        """Remove the journal this search started when it holds no generated input's run (a search that
        failed in its builds or its tests' runs: nothing to resume)."""
        if self.started_empty and not any(k.startswith("run:") for k in self.records):
            self.path.unlink(missing_ok=True)


def check_out(out: Path) -> bool:
    """Refuse an --out that cannot be the search's folder; True when it holds a journal (a resume)."""
    out = Path(out)
    if out.exists() or out.is_symlink():
        why = not_regular(out)
        if why != "a directory":
            raise UserError(f"--out {out}: exists and is not a directory" + (f" ({why})" if why else ""),
                            hint="give --out a new folder (or one an earlier `cltc search` wrote, to resume)")
        if (out / JOURNAL).exists():
            return True
        if any(out.iterdir()):
            raise UserError(f"--out {out}: refusing to write into a folder cltc search did not write (it holds "
                            f"no {JOURNAL})", hint="give --out a new or empty folder")
    return False
