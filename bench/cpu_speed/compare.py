"""Two runs of bench/cpu_speed/run.py (before and after a change) side by side, as a Markdown table.

    python bench/cpu_speed/compare.py BEFORE.csv AFTER.csv

Per program, the median over its repeats of each run's CPU seconds (plain, hirace) and their ratio,
before and after; a hirace run that timed out shows the CPU seconds it had used (a lower bound), a
run that failed its exit statuses.
"""
from __future__ import annotations

import csv
import statistics
import sys
from pathlib import Path


def load(path: Path) -> dict[str, list[dict]]:
    rows: dict[str, list[dict]] = {}
    with open(path, newline="") as fh:
        for r in csv.DictReader(fh):
            rows.setdefault(r["program"], []).append(r)
    return rows


def cell(rows: list[dict] | None) -> tuple[str, str, str]:
    """(plain CPU s, hirace CPU s, ratio) of a program's rows, medians; what went wrong otherwise."""
    if not rows:
        return "", "", "not run"
    bad = next((r for r in rows if r["hirace_exit"] not in ("0", "1") or r["plain_exit"] != "0"), None)
    plain = statistics.median(float(r["plain_cpu_s"]) for r in rows)
    if bad is not None and bad["plain_exit"] == "0" and bad["hirace_exit"] == "timeout":
        used = float(bad["hirace_cpu_s"])   # (what it had used when it was stopped: a lower bound)
        return f"{plain:.2f}", f"> {used:.2f} (timed out)", f"> {used / plain:.1f}x" if plain >= 0.05 else ""
    if bad is not None:
        return f"{plain:.2f}", "", f"exit {bad['plain_exit']} (plain) / {bad['hirace_exit']} (hirace)"
    hirace = statistics.median(float(r["hirace_cpu_s"]) for r in rows)
    ratio = f"{hirace / plain:.1f}x" if plain >= 0.05 else "(plain < 0.05 s)"
    return f"{plain:.2f}", f"{hirace:.2f}", ratio


def table(before: dict, after: dict) -> str:
    lines = ["| program | plain s before | hirace s before | ratio before | plain s after | hirace s after | ratio after |",
             "|---|---|---|---|---|---|---|"]
    for name in list(dict.fromkeys([*before, *after])):
        pb, hb, rb = cell(before.get(name))
        pa, ha, ra = cell(after.get(name))
        lines.append(f"| {name} | {pb} | {hb} | {rb} | {pa} | {ha} | {ra} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    print(table(load(Path(argv[0])), load(Path(argv[1]))), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
