"""Run hirace's labelled race corpus on a backend (the GPU, normally) and compare the
verdicts and reported lines with the labels and with the cpu backend's results.

    python bench/hirace_gpu_corpus.py [--backend gpu] [-j 8] [--out bench/results/hirace_corpus_gpu.csv]
                                      [--no-prior-sites] [--only TEXT ...] [--shard K/N] [--set races|streams]

`--set streams`: the programs of tests/cuda/streams (races between operations the host does not order),
each judged as tests/test_hirace_streams.py judges the cpu backend's runs (`problems`: the verdict, both
operations' lines in the text, JSON and SARIF reports, what the program prints); a racy program whose race
needs what the backend does not check (the gpu backend: the host's accesses of managed and pinned memory,
graphs' nodes) counts as right only where the run says so ("unchecked, said").
"""
from __future__ import annotations

import argparse
import csv
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from hirace import runner  # noqa: E402
from hirace.config import Config  # noqa: E402
from test_hirace_corpus import GPU_ONLY, PROGRAMS, expected_lines  # noqa: E402


def one(path: Path, backend: str, prior_sites: bool = True) -> dict:
    expect = expected_lines(path)
    try:
        res = runner.run([path], backend, Config(prior_sites=prior_sites), timeout=300)
        lines = {r.site.line for r in res.races} | {r.prior_site.line for r in res.races if r.prior_site}
        verdict = "racy" if res.races else "race-free"
        err = ""
    except Exception as exc:  # noqa: BLE001 - recorded, not hidden
        lines, verdict, err = set(), "error", str(exc)[:200]
    ok = (verdict == ("racy" if expect else "race-free")) and lines <= expect
    return {"program": f"{path.parent.name}/{path.stem}", "label": "racy" if expect else "race-free",
            "verdict": verdict, "expected_lines": " ".join(map(str, sorted(expect))),
            "reported_lines": " ".join(map(str, sorted(lines))), "correct": ok, "error": err}


def one_stream_program(path: Path, backend: str) -> dict:
    """A program of tests/cuda/streams, built and run once on `backend`, judged by test_hirace_streams.problems."""
    from instrument.backends import get_backend
    from instrument.reaper import temp_dir
    from test_hirace_streams import expected_lines as stream_lines, problems, unchecked_said
    expect = stream_lines(path)
    verdict, lines, wrong, err = "error", set(), [], ""
    try:
        config = Config(gpu_streams=True)   # (the gpu backend checks the relation when asked: --gpu-streams)
        with temp_dir(prefix="hirace-streams-") as tmp:
            built = runner.build([path], get_backend(backend, announce=False), Path(tmp), config)
            proc, res = runner.execute(built, config, timeout=300)
        wrong = problems(path, proc, res)
        if res is not None and res.program_exit == 0:
            lines = {n for x in res.stream_races for n in (x.first.line, x.second.line)}
            verdict = "racy" if res.stream_races else ("unchecked, said" if expect and unchecked_said(path, res)
                                                       else "race-free")
    except Exception as exc:  # noqa: BLE001 - recorded, not hidden
        err = str(exc)[:300]
    return {"program": f"{path.parent.name}/{path.stem}", "label": "racy" if expect else "race-free",
            "verdict": verdict, "expected_lines": " ".join(map(str, sorted(expect))),
            "reported_lines": " ".join(map(str, sorted(lines))), "correct": not err and not wrong,
            "error": err or "; ".join(wrong)[:600]}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--backend", default="gpu")
    ap.add_argument("-j", type=int, default=8)
    ap.add_argument("--out", type=Path, default=ap_default_out())
    ap.add_argument("--no-prior-sites", action="store_true", help="without the prior-site table (the default of hirace run)")
    ap.add_argument("--only", nargs="+", metavar="TEXT", help="only programs whose dir/name holds one of these")
    ap.add_argument("--shard", metavar="K/N", help="only the K-th of N equal parts (1-based), to split a long run")
    ap.add_argument("--set", choices=("races", "streams"), default="races",
                    help="races: tests/cuda's race corpus; streams: tests/cuda/streams (operations the host does not "
                         "order), judged as tests/test_hirace_streams.py judges them")
    a = ap.parse_args()
    if a.set == "streams":
        return streams_main(a)
    programs = PROGRAMS + (GPU_ONLY if a.backend == "gpu" else [])   # (CUB and Thrust: the GPU only)
    if a.only:
        programs = [p for p in programs if any(t in f"{p.parent.name}/{p.stem}" for t in a.only)]
    if a.shard:
        k, n = map(int, a.shard.split("/"))
        programs = programs[k - 1::n]
    with ThreadPoolExecutor(a.j) as ex:
        rows = list(ex.map(lambda p: one(p, a.backend, not a.no_prior_sites), programs))
    a.out.parent.mkdir(parents=True, exist_ok=True)
    with a.out.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    racy = [r for r in rows if r["label"] == "racy"]
    missed = sum(1 for r in racy if r["verdict"] != "racy")
    false_alarms = sum(1 for r in rows if r["label"] == "race-free" and r["verdict"] != "race-free")
    wrong_lines = sum(1 for r in rows if r["verdict"] == r["label"] and not r["correct"])
    errors = sum(1 for r in rows if r["verdict"] == "error")
    print(f"{len(rows)} programs on {a.backend}: {len(racy)} racy, missed {missed}, false alarms "
          f"{false_alarms}, reported lines outside the labels {wrong_lines}, errors {errors} ({a.out})")
    return 0 if not (missed or false_alarms or wrong_lines or errors) else 1


def streams_main(a) -> int:
    """--set streams: every program of tests/cuda/streams on a.backend, a row each (default output
    bench/results/hirace_streams_<backend>.csv); status 0 only when every row is right."""
    from test_hirace_streams import PROGRAMS as STREAM_PROGRAMS
    programs = STREAM_PROGRAMS
    if a.only:
        programs = [p for p in programs if any(t in f"{p.parent.name}/{p.stem}" for t in a.only)]
    if a.shard:
        k, n = map(int, a.shard.split("/"))
        programs = programs[k - 1::n]
    out = a.out if a.out != ap_default_out() else ROOT / "bench" / "results" / f"hirace_streams_{a.backend}.csv"
    with ThreadPoolExecutor(a.j) as ex:
        rows = list(ex.map(lambda p: one_stream_program(p, a.backend), programs))
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    for r in rows:
        if not r["correct"]:
            print(f"WRONG {r['program']}: {r['verdict']} (label {r['label']}, lines {r['reported_lines'] or '-'} "
                  f"of {r['expected_lines'] or '-'}): {r['error']}")
    right = sum(1 for r in rows if r["correct"])
    unchecked = sum(1 for r in rows if r["verdict"] == "unchecked, said")
    print(f"{len(rows)} stream programs on {a.backend}: {right} right ({unchecked} of them racy programs whose race "
          f"the backend says it does not check), {len(rows) - right} wrong ({out})")
    return 0 if right == len(rows) else 1


def ap_default_out() -> Path:
    return ROOT / "bench" / "results" / "hirace_corpus_gpu.csv"


if __name__ == "__main__":
    sys.exit(main())
