#!/usr/bin/env bash
# The Indigo sweep at the suite's size on a GPU machine (issue 23: <= 10 minutes on a 16-core
# H100 machine for 590 codes x 6 graphs x hirace + sequential, verdicts only).
#
#   bench/indigo_scale/run.sh OUT [COUNT]
#
# Makes a stand-in tree of COUNT codes (590) from examples/indigo_mini (make_tree.py says why a
# stand-in), the six small graphs, and sweeps them with JOBS worker processes (16) and SHARE runs
# on the GPU at once (8). Resumable: rerun with the same OUT to finish an interrupted sweep (the
# time of each part adds up in OUT/times.txt). Ends with `indigo-bench report`.
set -u
out=${1:?output folder}
count=${2:-590}
cd "$(dirname "$0")/../.."
py=${PYTHON:-python3}
mkdir -p "$out"
[ -d "$out/tree" ] || "$py" bench/indigo_scale/make_tree.py --from examples/indigo_mini/codes --count "$count" --out "$out/tree"
[ -d "$out/graphs" ] || "$py" -m indigo_bench.cli graphs --small -o "$out/graphs" > /dev/null
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | grep release;
  "$py" --version; echo "cpus: $(nproc)"; } > "$out/machine.txt" 2>&1
t0=$(date +%s)
timeout "${SWEEP_TIMEOUT:-560}" "$py" -m indigo_bench.cli sweep --codes "$out/tree" --include examples/indigo_mini/include \
  --graphs "$out/graphs" --tools hirace,sequential --backend gpu -j "${JOBS:-16}" --share-gpu "${SHARE:-8}" ${SHARE_CONTEXT:+--share-context} \
  --timeout 120 --no-progress --out "$out/sweep"
rc=$?
t1=$(date +%s)
echo "part: rc=$rc seconds=$((t1 - t0)) jobs=${JOBS:-16} share=${SHARE:-8} share_context=${SHARE_CONTEXT:-0}" >> "$out/times.txt"
"$py" -m indigo_bench.cli report --out "$out/sweep" > "$out/sweep/report_stdout.txt" 2>&1
cat "$out/times.txt"; tail -25 "$out/sweep/report_stdout.txt"
