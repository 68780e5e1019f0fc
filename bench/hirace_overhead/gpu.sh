#!/usr/bin/env bash
# hirace's speed and verdicts on a GPU machine: the labelled race corpus (with and without prior
# sites) and the memory corpus, whose verdicts must not change, then bench/hirace_overhead with the
# real programs, and its plot.
# usage: PARTS="corpus overhead" [ONLY="reduce matmul"] [REPEAT=3] [NO_RACECHECK=1] bench/hirace_overhead/gpu.sh OUT   (from the repository root; .whl/
# holds the libclang wheel, .rwcarry/samples and .rwcarry/rodinia the real programs: never committed)
set -u
OUT=${1:?usage: gpu.sh OUT}
PARTS=${PARTS:-corpus overhead}
mkdir -p "$OUT"
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/libclang-*.whl || exit 2
export PYTHONPATH=/tmp/site:$PWD
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -1; nproc; } > "$OUT/machine.txt"
if [[ " $PARTS " == *" corpus "* ]]; then
  python3 bench/hirace_gpu_corpus.py --backend gpu -j 12 --out "$OUT/corpus.csv" > "$OUT/corpus.txt" 2>&1
  python3 bench/hirace_gpu_corpus.py --backend gpu -j 12 --no-prior-sites --out "$OUT/corpus_no_prior.csv" \
    >> "$OUT/corpus.txt" 2>&1
  python3 bench/memory_errors/run.py corpus --backend gpu --out "$OUT/memory" > "$OUT/memory.txt" 2>&1
  tail -3 "$OUT/corpus.txt" "$OUT/memory.txt"
fi
if [[ " $PARTS " == *" overhead "* ]]; then
  python3 bench/hirace_overhead/run.py --backend gpu --repeat "${REPEAT:-3}" --out "$OUT" \
    --root samples=.rwcarry/samples --root rodinia=.rwcarry/rodinia ${ONLY:+--only $ONLY} \
    ${NO_RACECHECK:+--no-racecheck} > "$OUT/overhead.txt" 2>&1
  tail -30 "$OUT/overhead.txt"
fi
