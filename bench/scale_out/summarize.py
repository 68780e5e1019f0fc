"""Tasks per minute of the three configurations of run.sh, the speed-ups, where the time went,
how many GPUs had our processes on them during C, and whether the rows agree."""
from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

CONFIGS = [("A_local_j8", "local executor -j 8, one GPU"), ("B_dask_1gpu", "dask LocalCluster, 1 GPU worker"),
           ("C_dask_all_gpus", "dask LocalCluster, one worker per GPU")]


def rows(d: Path) -> dict:
    with open(d / "results.csv") as fh:
        return {(r["code"], r["graph"], r["tool"]): (r["verdict"], r["races"], r["serial_check"])
                for r in csv.DictReader(fh)}


def main(out: Path) -> None:
    table, got = [], {}
    for name, what in CONFIGS:
        meta_path = out / name / "sweep.json"
        if not meta_path.is_file():
            if (out / f"{name[0]}.log").is_file():
                print(f"{name}: no sweep.json (did not finish)")
            continue
        meta = json.loads(meta_path.read_text())
        ex = meta.get("execution") or {}
        rate = 60.0 * meta["rows_run"] / meta["seconds"]
        table.append((name, what, meta["rows_run"], meta["seconds"], rate, ex))
        got[name] = rows(out / name)
    with open(out / "summary.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["config", "what", "workers", "rows", "seconds", "rows_per_min", "speedup_vs_B",
                    "speedup_vs_A", "build_s_summed", "run_s_summed", "builds", "retried", "failed"])
        base = {n: r for n, _, _, _, r, _ in table}
        for name, what, n, s, rate, ex in table:
            vb = rate / base["B_dask_1gpu"] if "B_dask_1gpu" in base else float("nan")
            va = rate / base["A_local_j8"] if "A_local_j8" in base else float("nan")
            w.writerow([name, what, ex.get("workers"), n, s, round(rate, 1), round(vb, 2), round(va, 2),
                        ex.get("build_s"), ex.get("run_s"), ex.get("builds"), ex.get("retried"), ex.get("failed")])
            print(f"{name:16} {what:40} workers={ex.get('workers')} rows={n} {s:7.1f} s {rate:6.1f} rows/min "
                  f"x{vb:.2f} vs B, x{va:.2f} vs A; build {ex.get('build_s')} s ({ex.get('builds')} builds), "
                  f"run {ex.get('run_s')} s summed")
    names = list(got)
    for other in names[1:]:
        a, b = got[names[0]], got[other]
        verdict = [k for k in a if k not in b or (a[k][0], a[k][2]) != (b[k][0], b[k][2])]
        count = [k for k in a if k in b and a[k][1] != b[k][1] and k not in verdict]
        print(f"rows {names[0]} vs {other}: {len(a)} and {len(b)} rows; verdict or serial check differs in "
              f"{len(verdict)}" + (f" {verdict[:4]}" if verdict else "") + f"; only the number of races "
              f"differs in {len(count)}" + (f" {[(k, a[k][1], b[k][1]) for k in count[:4]]}" if count else ""))
    procs = out / "C_gpu_processes.txt"
    ids = out / "gpu_bus_ids.txt"
    if procs.is_file() and ids.is_file():
        bus = {ln.split(",")[1].strip().upper(): ln.split(",")[0] for ln in ids.read_text().splitlines() if "," in ln}
        seen = {}
        for ln in procs.read_text().splitlines():
            parts = [p.strip() for p in ln.split(",")]
            if len(parts) >= 3:
                gpu = bus.get(parts[1].upper(), parts[1])
                seen[gpu] = seen.get(gpu, 0) + 1
        print(f"during C, samples with one of our processes on each GPU: {dict(sorted(seen.items()))}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
