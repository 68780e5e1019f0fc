"""bench/search: `cltc search` on deliberately thin suites of our own, as a user runs it, seed after seed.

    python bench/search/run.py [--seeds 0-4] [--only NAME ...] [--out FILE.csv] [--summary FILE.md]

Each case is a suite whose tests miss coverage items (tests/suites/search_*, and the thin suites of
bench/search/suites/ over the examples' programs) with a budget in runs. For each seed the command line
runs in a fresh scratch directory:

    python -m cltestcheck.cli search --suite SUITE --backend cpu --budget-runs N --seed K
                                     --out DIR --json FILE -q --no-progress [--check races]

and its JSON report gives the row: the items reached (by the search, by the suite's tests alone, of all),
the inputs kept, the generated run that kept the last of them (`last_kept`) and the last that reached
new coverage (`last_new`: the budget the search needed for what it reached), what stays unreached (each with its closest distance), the races and NaN/Inf found, the exit
status, and the command's wall and CPU seconds (user + system of the command and its children; the build
of the first seed included: `cold`, the later seeds reuse it through CCTK_BUILD_CACHE). `--summary`
writes a table per case (each figure as its range over the seeds); `--from-csv FILE` draws it from rows
written before, running nothing.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SUITES = ROOT / "tests" / "suites"


@dataclass(frozen=True)
class Case:
    name: str
    suite: Path
    runs: int
    races: bool = False


CASES = [
    Case("thin", SUITES / "search_thin", 60),
    Case("files", SUITES / "search_files", 24),
    Case("loops", SUITES / "search_loops", 40),
    Case("pytest", SUITES / "search_pytest", 60),
    Case("hub", SUITES / "search_hub", 24, races=True),
    Case("hub_twin", SUITES / "search_hub_twin", 24, races=True),
    Case("backedge", SUITES / "search_backedge", 24, races=True),
    Case("backedge_twin", SUITES / "search_backedge_twin", 24, races=True),
    Case("histogram_n17", HERE / "suites" / "thin_histogram", 60),
    Case("block_max_dag5", HERE / "suites" / "thin_block_max", 200),
]

UNREACHED_SEP = re.compile(r"; (?=\d+: )")   # (the items' labels hold "; " too: a for loop's text)
FIELDS = ["case", "seed", "budget_runs", "exit", "items", "reached", "by_tests", "kept", "last_kept", "last_new", "stopped",
          "unreached", "races", "nan_inf", "failed_runs", "wall_s", "cpu_s", "cold"]


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_case(case: Case, seed: int, cache: Path, cold: bool) -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-search-") as tmp:
        tmp = Path(tmp)
        report = tmp / "search.json"
        cmd = [sys.executable, "-m", "cltestcheck.cli", "search", "--suite", str(case.suite), "--backend", "cpu",
               "--budget-runs", str(case.runs), "--seed", str(seed), "--out", str(tmp / "found"),
               "--json", str(report), "-q", "--no-progress", *(["--check", "races"] if case.races else [])]
        env = {**os.environ, "CCTK_BUILD_CACHE": str(cache), "PYTHONPATH": str(ROOT)}
        cpu0, t0 = _cpu(), time.monotonic()
        res = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True, timeout=1800)
        wall, cpu = time.monotonic() - t0, _cpu() - cpu0
        if not report.is_file():
            raise SystemExit(f"{case.name} seed {seed}: no report (exit {res.returncode}):\n{res.stderr[-2000:]}")
        doc = json.loads(report.read_text())
    unreached = []
    for u in doc["unreached"]:
        near = f" (closest {u['closest']['distance']})" if "closest" in u else ""
        unreached.append(f"{u['line']}: {u['label']}{near}")
    races = doc["findings"]["races"]
    return {"case": case.name, "seed": seed, "budget_runs": case.runs, "exit": res.returncode,
            "items": doc["items"]["total"], "reached": doc["items"]["reached"], "by_tests": doc["items"]["by_tests"],
            "kept": len(doc["kept"]), "last_kept": doc["runs"]["last_kept"] or "",
            "last_new": max((k["run"] for k in doc["kept"] if k["why"] == "coverage"), default=""),
            "stopped": doc["stopped"],
            "unreached": "; ".join(unreached), "races": "" if races is None else len(races),
            "nan_inf": len(doc["findings"]["nan_inf"]), "failed_runs": doc["runs"]["failed"],
            "wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "cold": int(cold)}


def _span(values) -> str:
    values = [v for v in values if v != ""]
    if not values:
        return "-"
    lo, hi = min(values), max(values)
    return f"{lo:g}" if lo == hi else f"{lo:g}-{hi:g}"


def summary(rows: list[dict]) -> str:
    lines = ["| case | budget | seeds | reached (the tests') / items | last item reached at run | kept | races | "
             "NaN/Inf | unreached | wall s (warm) | CPU s (warm) | wall s (cold) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name in dict.fromkeys(r["case"] for r in rows):
        rs = [r for r in rows if r["case"] == name]
        warm = [r for r in rs if not r["cold"]] or rs
        cold = [r for r in rs if r["cold"]]
        near: dict[str, list[int]] = {}
        for u in (u for r in rs for u in UNREACHED_SEP.split(r["unreached"]) if u):
            label, _, d = u.partition(" (closest ")
            near.setdefault(label, []).extend([int(d.rstrip(")"))] if d else [])
        left = [f"{label} (closest {_span(d)})" if d else label for label, d in sorted(near.items())]
        lines.append(f"| {name} | {rs[0]['budget_runs']} runs | {_span([r['seed'] for r in rs])} | "
                     f"{_span([r['reached'] for r in rs])} ({_span([r['by_tests'] for r in rs])}) / "
                     f"{_span([r['items'] for r in rs])} | {_span([r['last_new'] for r in rs])} | "
                     f"{_span([r['kept'] for r in rs])} | {_span([r['races'] for r in rs])} | "
                     f"{_span([r['nan_inf'] for r in rs])} | {'; '.join(left) or 'none'} | "
                     f"{_span([r['wall_s'] for r in warm])} | {_span([r['cpu_s'] for r in warm])} | "
                     f"{_span([r['wall_s'] for r in cold])} |")
    return "\n".join(lines) + "\n"


def _typed(v: str):
    """A CSV cell as the row had it: a number where it is one."""
    try:
        return int(v)
    except ValueError:
        try:
            return float(v)
        except ValueError:
            return v


def _seeds(text: str) -> list[int]:
    lo, _, hi = text.partition("-")
    return list(range(int(lo), int(hi or lo) + 1))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default="0-4", help="seeds, as A-B (default %(default)s)")
    ap.add_argument("--only", nargs="*", help="cases by name: " + ", ".join(c.name for c in CASES))
    ap.add_argument("--out", type=Path, help="the rows as CSV")
    ap.add_argument("--summary", type=Path, help="the table per case, as Markdown")
    ap.add_argument("--from-csv", type=Path, metavar="FILE.csv", help="run nothing: the table of these rows")
    a = ap.parse_args(argv)
    if a.from_csv:
        with open(a.from_csv, newline="") as fh:
            rows = [{k: _typed(v) for k, v in r.items()} for r in csv.DictReader(fh)]
        text = summary(rows)
        if a.summary:
            a.summary.write_text(text)
        sys.stdout.write(text)
        return 0
    cases = [c for c in CASES if not a.only or c.name in a.only]
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-search-cache-") as cache:
        for case in cases:
            for k, seed in enumerate(_seeds(a.seeds)):
                row = run_case(case, seed, Path(cache), cold=k == 0)
                rows.append(row)
                print(" ".join(f"{f}={row[f]}" for f in FIELDS), flush=True)
    if a.out:
        with open(a.out, "w", newline="") as fh:
            w = csv.DictWriter(fh, FIELDS)
            w.writeheader()
            w.writerows(rows)
    text = summary(rows)
    if a.summary:
        a.summary.write_text(text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
