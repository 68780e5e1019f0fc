"""Bar chart of bench/hirace_overhead's CSV: kernel-time ratio under hirace (and racecheck, where
measured) per program, log scale, with the 5x median and 30x max targets marked.

    python bench/hirace_overhead/plot.py bench/results/hirace_speed_h100/overhead.csv [-o out.svg]
"""
from __future__ import annotations

import argparse
import csv
import math
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("csv", type=Path)
    ap.add_argument("-o", "--out", type=Path)
    a = ap.parse_args()
    rows = [r for r in csv.DictReader(a.csv.open()) if r.get("hirace_slowdown")]
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = [r["program"] for r in rows]
    hr = [float(r["hirace_slowdown"]) for r in rows]
    rc = [float(r["racecheck_slowdown"]) if r.get("racecheck_slowdown") else math.nan for r in rows]
    fig, ax = plt.subplots(figsize=(max(6, 0.7 * len(rows)), 4))
    x = range(len(rows))
    ax.bar([i - 0.2 for i in x], hr, 0.4, label="hirace / plain (kernel time)")
    if any(not math.isnan(v) for v in rc):
        ax.bar([i + 0.2 for i in x], rc, 0.4, label="racecheck / plain (kernel time)")
    ax.axhline(5, ls="--", lw=1, color="gray")
    ax.axhline(30, ls=":", lw=1, color="gray")
    ax.set_yscale("log")
    ax.set_xticks(list(x), names, rotation=45, ha="right")
    ax.set_ylabel("slowdown (x, log scale)")
    ax.set_title("Kernel-time overhead; dashed 5x (median target), dotted 30x (max target)")
    ax.legend()
    fig.tight_layout()
    out = a.out or a.csv.with_suffix(".svg")
    fig.savefig(out)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
