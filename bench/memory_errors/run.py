"""Memory errors on a backend (the GPU, normally): hirace's findings on the labelled corpus
(tests/cuda/memory) against its labels, beside Compute Sanitizer's memcheck of the plain
program; and the summary of Indigo-style sweeps with and without hirace's bounds.

    python bench/memory_errors/run.py corpus --backend gpu --out DIR
    python bench/memory_errors/run.py sweeps DIR/mini DIR/mini_nobounds DIR/bounds DIR/bounds_nobounds
"""
from __future__ import annotations

import argparse
import csv
import json
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from hirace import runner  # noqa: E402
from hirace.config import Config  # noqa: E402
from test_hirace_memory import EXPECTED, MEMORY, _side  # noqa: E402


def _memcheck(path: Path, work: Path) -> str:
    """Errors Compute Sanitizer's memcheck reports on the plain program ('' without the tools)."""
    if not (shutil.which("nvcc") and shutil.which("compute-sanitizer")):
        return ""
    exe = work / path.stem
    subprocess.run(["nvcc", "-O2", "-o", str(exe), str(path)], check=True, capture_output=True)
    r = subprocess.run(["compute-sanitizer", "--tool", "memcheck", str(exe)], capture_output=True, text=True,
                       timeout=300)
    m = re.search(r"ERROR SUMMARY: (\d+) error", r.stdout + r.stderr)
    return m.group(1) if m else f"exit {r.returncode}"


def corpus(args) -> int:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows, bad = [], 0
    for name in sorted(EXPECTED):
        want_mem, want_races = EXPECTED[name]
        path = MEMORY / f"{name}.cu"
        try:
            res = runner.run([path], args.backend, Config(), timeout=300)
            got = {(m.site.line, m.access, m.memory, m.buffer, _side(m), m.count) for m in res.memory_errors}
            races = {r.site.line for r in res.races}
            ok = got == want_mem and races == want_races and res.program_exit == 0
            err = ""
        except Exception as exc:  # noqa: BLE001 - recorded in the table, not hidden
            got, races, ok, err = set(), set(), False, str(exc).splitlines()[0]
        bad += not ok
        rows.append({"program": name, "backend": args.backend, "as_labelled": ok,
                     "memory_errors": len(got), "expected_memory_errors": len(want_mem),
                     "races": len(races), "expected_races": len(want_races),
                     "missing": json.dumps(sorted(want_mem - got)), "unexpected": json.dumps(sorted(got - want_mem)),
                     "memcheck_errors": _memcheck(path, out), "error": err})
        print(f"{name}: {'ok' if ok else 'DIFFERS'} {err}", flush=True)
    with open(out / "corpus.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print(f"{len(rows) - bad}/{len(rows)} programs as labelled on the {args.backend} backend")
    return 1 if bad else 0


def _load(d: Path) -> list[dict]:
    with open(d / "results.csv", newline="") as fh:
        return list(csv.DictReader(fh))


def sweeps(args) -> int:
    """Per sweep: errors, false alarms, misses of hirace; for each pair (with, without bounds), the
    median ratio of hirace's run time on the rows both finished."""
    lines = []
    dirs = [Path(d) for d in args.dirs]
    data = {d.name: _load(d) for d in dirs if (d / "results.csv").is_file()}
    for name, rows in data.items():
        h = [r for r in rows if r["tool"] == "hirace"]
        err = [r for r in h if r["verdict"] == "error"]
        fa = [r for r in h if r["label"] == "race-free" and r["verdict"] == "race"]
        miss = [r for r in h if r["label"] == "racy" and r["verdict"] == "no race"]
        oob = [r for r in h if "out-of-bounds" in r["note"]]
        bounds_codes = {r["code"] for r in h if "boundsBug" in r["tags"]}
        oob_codes = {r["code"] for r in oob}
        lines.append(f"{name}: {len(h)} hirace runs, {len(err)} errors, {len(fa)} false alarms, {len(miss)} misses; "
                     f"out-of-bounds reported in {len(oob)} runs, {len(oob_codes & bounds_codes)}/{len(bounds_codes)} "
                     f"boundsBug codes, {len(oob_codes - bounds_codes)} other codes")
        for r in err[:5] + fa[:5] + miss[:5]:
            lines.append(f"    {r['code']} {r['graph']} {r['verdict']} {r['note'][:160]}")
    for with_b, without in zip(dirs[0::2], dirs[1::2]):
        if with_b.name not in data or without.name not in data:
            continue
        t_on = {(r["code"], r["graph"]): float(r["wall_s"]) for r in data[with_b.name]
                if r["tool"] == "hirace" and r["verdict"] != "error"}
        t_off = {(r["code"], r["graph"]): float(r["wall_s"]) for r in data[without.name]
                 if r["tool"] == "hirace" and r["verdict"] != "error"}
        both = sorted(set(t_on) & set(t_off))
        if both:
            ratios = [t_on[k] / t_off[k] for k in both if t_off[k] > 0]
            lines.append(f"{with_b.name} / {without.name}: hirace run time with bounds / without, over {len(both)} "
                         f"runs both finished: median {statistics.median(ratios):.3f}, max {max(ratios):.3f}; "
                         f"without bounds {len(data[without.name]) - len(t_off)} rows ended in an error")
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if args.out:
        Path(args.out).write_text(text)
    return 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("corpus")
    c.add_argument("--backend", default="gpu")
    c.add_argument("--out", required=True)
    s = sub.add_parser("sweeps")
    s.add_argument("dirs", nargs="+")
    s.add_argument("--out")
    a = p.parse_args()
    return corpus(a) if a.cmd == "corpus" else sweeps(a)


if __name__ == "__main__":
    sys.exit(main())
