#!/usr/bin/env bash
# indigo-bench sweep on one GPU and on every GPU of the machine, side by side, same workload:
#   A  local executor, -j 8: today's default on one GPU (builds overlap, runs take turns)
#   B  --dask local pinned to one GPU (CUDA_VISIBLE_DEVICES=0): one worker
#   C  --dask local with every visible GPU: one worker per GPU
# usage (repository root): bench/scale_out/run.sh OUT [small|large]
#   small: 15 codes x 3 small graphs x 3 tools, A B C (builds weigh as much as runs)
#   large: 15 codes x one 1M-node power-law graph x 3 tools, B C (runs dominate)
# Each configuration writes its own results folder; summarize.py turns their sweep.json into
# tasks per minute and speed-ups, and checks that the three agree row by row.
set -u
OUT=${1:?usage: run.sh OUT [small|large]}
STAGE=${2:-small}
mkdir -p "$OUT"
py=${PYTHON:-python3}
ib() { "$py" -m indigo_bench.cli "$@"; }
{ nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader; nvcc --version | grep release;
  "$py" --version; nproc; } > "$OUT/machine.txt" 2>&1
G=/tmp/scale_out_graphs/$STAGE
mkdir -p "$G"
if [ "$STAGE" = small ]; then
  ib graphs --small -o /tmp/scale_out_graphs/all > /dev/null
  for g in DAG_100n_200e counterDAG_200n_1000e power_law_200n_1000e; do cp /tmp/scale_out_graphs/all/$g.egr "$G/"; done
else
  [ -f "$G/powerlaw_1M_8M.egr" ] || ib graphs --kind powerlaw --nodes 1000000 --edges 8000000 --seed 7 -o "$G/powerlaw_1M_8M.egr"
fi
common=(--codes examples/indigo_mini/codes --include examples/indigo_mini/include --graphs "$G"
        --backend gpu --timeout 120 --no-progress)

# sample which GPUs have processes on them while C runs (one line per second)
sample() { while :; do nvidia-smi --query-compute-apps=gpu_bus_id,pid --format=csv,noheader 2>/dev/null |
           awk -v t="$(date +%s)" '{print t", "$0}'; sleep 1; done; }

if [ "$STAGE" = small ]; then
  ( time timeout "${LIMIT:-200}" "$py" -m indigo_bench.cli sweep "${common[@]}" -j 8 --out "$OUT/A_local_j8" ) \
    > "$OUT/A.log" 2>&1
fi
( export CUDA_VISIBLE_DEVICES=0
  time timeout "${LIMIT:-200}" "$py" -m indigo_bench.cli sweep "${common[@]}" --dask local --out "$OUT/B_dask_1gpu" ) \
  > "$OUT/B.log" 2>&1
sample > "$OUT/C_gpu_processes.txt" & sampler=$!
( time timeout "${LIMIT:-200}" "$py" -m indigo_bench.cli sweep "${common[@]}" --dask local --out "$OUT/C_dask_all_gpus" ) \
  > "$OUT/C.log" 2>&1
kill $sampler 2>/dev/null
nvidia-smi --query-gpu=index,pci.bus_id --format=csv,noheader > "$OUT/gpu_bus_ids.txt"
tail -n 3 "$OUT"/*.log
"$py" bench/scale_out/summarize.py "$OUT" | tee "$OUT/summary.txt"
# one file for the results folders (the device tool returns a limited number of files)
tar czf "$OUT/results.tar.gz" -C "$OUT" $(cd "$OUT" && ls -d */ | tr -d /) && rm -rf "$OUT"/*/
