"""How large a program runs under hirace as it runs by default (prior-site slots on): bench/memory_fit/fit.cu
with buffers of a growing share of the device's free memory, plain and under hirace; for each, whether it
ran and printed what it prints alone, the races, hirace's memory over the program's ((program + hirace) /
program, from hirace's log) and whether hirace gave its prior-site slots up for room.

  python3 bench/memory_fit/run.py [--backend gpu] [--percent 10 20 30 ...] --out OUT.csv
"""
from __future__ import annotations

import argparse
import csv
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from hirace import runner                      # noqa: E402
from hirace.config import Config               # noqa: E402
from instrument import logs
from instrument.compile import pipeline          # noqa: E402
from instrument.backends import get_backend    # noqa: E402
from instrument.protocol import HIRACE_LOG, Env  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="gpu")
    ap.add_argument("--percent", type=float, nargs="+", default=[10, 20, 25, 30, 32])
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args()
    be = get_backend(a.backend)
    src = Path(__file__).resolve().parent / "fit.cu"
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        plain = pipeline.build([src], be, tmp / "plain").exe
        inst = runner.build([src], be, tmp / "hirace", Config()).exe
        for race in ("", "race"):
            for pct in a.percent:
                args = [str(pct)] + ([race] if race else [])
                p = be.run(plain, args, timeout=600)
                log = tmp / "log.jsonl"
                log.unlink(missing_ok=True)
                h = be.run(inst, args, env={Env.HIRACE_LOG: str(log)}, timeout=600)
                row = {"percent": pct, "race": bool(race), "plain_exit": p.returncode, "hirace_exit": h.returncode,
                       "same_output": p.stdout.strip().split(":")[-1] == h.stdout.strip().split(":")[-1],
                       "output": h.stdout.strip()[:80]}
                if log.is_file():
                    recs = logs.read(log, HIRACE_LOG, "hirace's log")
                    end = recs["end"][-1]
                    row.update({"races": len(recs["race"]),
                                "memory_ratio": round((end.user_bytes + end.tool_bytes) / end.user_bytes, 3),
                                "sites_given_up": end.sites_evicted})
                rows.append(row)
                print(row, flush=True)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    with open(a.out, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=["percent", "race", "plain_exit", "hirace_exit", "same_output", "races",
                                           "memory_ratio", "sites_given_up", "output"])
        w.writeheader()
        w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
