#!/usr/bin/env bash
# Memory errors on a GPU machine: the labelled corpus under hirace (beside memcheck), and the
# Indigo-style sweeps (examples/indigo_mini, examples/indigo_bounds: six small graphs, 256 threads
# x 1024 blocks) with hirace's bounds and without them (HIRACE_BOUNDS=0), for errors, false
# alarms and the run-time ratio.   usage: bench/memory_errors/gpu.sh OUT   (.whl/ holds libclang)
set -u
OUT=${1:?usage: gpu.sh OUT}
mkdir -p "$OUT"
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/libclang-*.whl || exit 2
export PYTHONPATH=/tmp/site:$PWD
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -1; nproc; } > "$OUT/machine.txt"
python3 bench/memory_errors/run.py corpus --backend gpu --out "$OUT/corpus" > "$OUT/corpus.txt" 2>&1
ib() { python3 -m indigo_bench.cli "$@"; }
ib graphs --small -o "$OUT/graphs" > /dev/null
inc=(--include examples/indigo_mini/include)
for tree in mini bounds; do
  codes=examples/indigo_$tree/codes
  ib sweep --codes $codes "${inc[@]}" --graphs "$OUT/graphs" --tools hirace,sequential --backend gpu -j 8 \
    --timeout 120 --no-progress --out "$OUT/$tree" > "$OUT/$tree.log" 2>&1
  HIRACE_BOUNDS=0 ib sweep --codes $codes "${inc[@]}" --graphs "$OUT/graphs" --tools hirace --backend gpu -j 8 \
    --timeout 120 --no-progress --out "$OUT/${tree}_nobounds" > "$OUT/${tree}_nobounds.log" 2>&1
done
python3 bench/memory_errors/run.py sweeps "$OUT/mini" "$OUT/mini_nobounds" "$OUT/bounds" "$OUT/bounds_nobounds" \
  --out "$OUT/summary.txt"
cat "$OUT/corpus.txt"
