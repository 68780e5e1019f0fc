"""Compare the corpus' outputs on the cpu backend with outputs recorded on a GPU.

    python bench/compare_corpus.py GPU_OUTPUT_FILE [--out bench/results/corpus_cpu_vs_gpu.csv]

GPU_OUTPUT_FILE is the concatenation bench/gpu_corpus.sh's files ("=== NAME.out"
headers followed by the program's stdout). Every program's stdout must match
byte for byte.
"""
from __future__ import annotations

import argparse
import csv
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from instrument.compile import pipeline  # noqa: E402
from instrument.backends.cpu import CpuBackend  # noqa: E402

CORPUS = ROOT / "tests" / "cuda" / "corpus"


def gpu_outputs(path: Path) -> dict[str, str]:
    outs, name, buf = {}, None, []
    for line in path.read_text().splitlines(keepends=True):
        if line.startswith("=== "):
            if name:
                outs[name] = "".join(buf)
            fname = line[4:].strip()
            name, buf = (fname[:-4] if fname.endswith(".out") else None), []
        elif name:
            buf.append(line)
    if name:
        outs[name] = "".join(buf)
    return outs


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("gpu_file", type=Path)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "corpus_cpu_vs_gpu.csv")
    a = ap.parse_args()
    gpu = gpu_outputs(a.gpu_file)
    programs = {p.stem: [p] for p in sorted(CORPUS.glob("*.cu"))}
    programs["multi_file"] = [CORPUS / "multi_file" / "main.cu", CORPUS / "multi_file" / "kernels.cu"]
    rows, bad = [], 0
    be = CpuBackend()
    for name, srcs in programs.items():
        with tempfile.TemporaryDirectory() as tmp:
            built = pipeline.build(srcs, be, Path(tmp))
            res = be.run(built.exe, timeout=300)
        same = name in gpu and res.stdout == gpu[name]
        bad += not same
        rows.append({"program": name, "cpu_exit": res.returncode,
                     "cpu_verdict": res.stdout.strip().splitlines()[-1] if res.stdout.strip() else "",
                     "gpu_verdict": gpu.get(name, "").strip().splitlines()[-1] if gpu.get(name) else "",
                     "stdout_identical": same})
    a.out.parent.mkdir(parents=True, exist_ok=True)
    with a.out.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print(f"{len(rows) - bad} of {len(rows)} programs print identical output on cpu and gpu "
          f"({a.out})")
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
