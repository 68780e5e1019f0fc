"""The sweep's tidy results: one row per (code, graph, tool, backend, tpb, blocks).

`results.csv` under the output directory is the journal: each finished row is appended and
flushed at once, so an interrupted sweep loses at most the rows that were running, and a
rerun skips the rows already there. A torn last line (the process was killed mid-write) is
ignored on reading. `results.parquet` is written from the journal on request.
"""
from __future__ import annotations

import csv
import io
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from instrument.execution.journal import CsvJournal, read_rows
from instrument.extras import require
from instrument.output import atomic_write_text

from .inputs import require_regular

JOURNAL = "results.csv"
PARQUET = "results.parquet"


@dataclass
class Row:
    code: str
    pattern: str
    tags: str            # "+"-joined tags of the name
    label: str           # racy | race-free (ground truth from the name)
    graph: str           # file name of the input
    tool: str
    backend: str
    tpb: int
    blocks: int
    verdict: str         # race | no race | error
    races: str           # races reported ("" when the tool could not tell)
    serial_check: str    # matches | differs | "" : the program's own comparison under this tool
    exit_status: int
    wall_s: float
    peak_mem_mib: str    # peak resident memory of the process ("" when unknown)
    note: str

    def key(self) -> tuple:
        return (self.code, self.graph, self.tool, self.backend, int(self.tpb), int(self.blocks))


COLUMNS = [f.name for f in fields(Row)]


def _row(d: dict) -> Row:
    return Row(**{k: d.get(k, "") for k in COLUMNS})


def load(out_dir: Path) -> list[Row]:
    """The finished rows (the last one per key wins); [] when there is no journal yet."""
    path = Path(out_dir) / JOURNAL
    pq = Path(out_dir) / PARQUET
    for f in (path, pq):
        if f.exists():
            require_regular(f, "results file")
    if not path.is_file():
        if pq.is_file():
            return _load_parquet(pq)
        return []
    rows: dict[tuple, Row] = {}
    for d in read_rows(path, COLUMNS):
        r = _row(d)
        rows[r.key()] = r
    return list(rows.values())


def _load_parquet(path: Path) -> list[Row]:
    require(f"reading {path}", "parquet", "pandas", "pyarrow")
    import pandas as pd
    df = pd.read_parquet(path).fillna("")
    return [_row({k: (str(v) if k in ("races", "peak_mem_mib") else v) for k, v in d.items()})
            for d in df.to_dict("records")]


class Journal(CsvJournal):
    """Append rows as they finish (thread-safe)."""

    def __init__(self, out_dir: Path):
        super().__init__(Path(out_dir) / JOURNAL, COLUMNS)

    def add(self, row: Row) -> None:
        super().add(asdict(row))


def frame(rows: list[Row]):
    """A pandas DataFrame with typed columns."""
    import pandas as pd
    df = pd.DataFrame([asdict(r) for r in rows], columns=COLUMNS)
    for col in ("tpb", "blocks", "exit_status"):
        df[col] = pd.to_numeric(df[col], errors="coerce").astype("Int64")
    for col in ("wall_s", "peak_mem_mib"):
        df[col] = pd.to_numeric(df[col], errors="coerce")
    df["races"] = pd.to_numeric(df["races"], errors="coerce").astype("Int64")
    return df


def write_parquet(out_dir: Path, rows: list[Row]) -> Path:
    require("Parquet output", "parquet", "pandas", "pyarrow")
    path = Path(out_dir) / PARQUET
    tmp = path.with_name(f".{path.name}.tmp")
    frame(rows).to_parquet(tmp, index=False)
    tmp.replace(path)
    return path


def write_csv(path: Path, rows: list[Row]) -> None:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=COLUMNS)
    w.writeheader()
    for r in rows:
        w.writerow(asdict(r))
    atomic_write_text(path, buf.getvalue())
