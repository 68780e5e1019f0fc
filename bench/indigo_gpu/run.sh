#!/usr/bin/env bash
# indigo-bench on a GPU machine: a sweep of the miniature Indigo tree (examples/indigo_mini)
# with hirace, Compute Sanitizer racecheck and the codes' own serial comparison.
#
#   bench/indigo_gpu/run.sh small OUT   # the six small graphs, 256 threads x 1024 blocks (Table II)
#   bench/indigo_gpu/run.sh large OUT   # three graphs of a million nodes and more (Figure 5 slowdowns)
#
# Each stage is resumable (rerun it with the same OUT to finish an interrupted sweep) and ends
# with `indigo-bench report`, whose files land in OUT/<stage>/.
set -u
stage=${1:?small or large}
out=${2:?output folder}
cd "$(dirname "$0")/../.."
py=${PYTHON:-python3}
ib() { "$py" -m indigo_bench.cli "$@"; }
mkdir -p "$out"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | grep release;
  "$py" --version; } > "$out/machine.txt" 2>&1

codes=(--codes examples/indigo_mini/codes --include examples/indigo_mini/include)
case "$stage" in
  small)
    ib graphs --small -o "$out/graphs_small" > /dev/null
    timeout "${SWEEP_TIMEOUT:-480}" "$py" -m indigo_bench.cli sweep "${codes[@]}" --graphs "$out/graphs_small" \
      --backend gpu -j "${JOBS:-8}" --timeout 120 --no-progress --out "$out/small"
    ;;
  large)
    mkdir -p "$out/graphs_large"
    [ -f "$out/graphs_large/rmat_1M_8M.egr" ] || ib graphs --kind rmat --nodes 1048576 --edges 8388608 --seed 7 -o "$out/graphs_large/rmat_1M_8M.egr"
    [ -f "$out/graphs_large/powerlaw_1M_8M.egr" ] || ib graphs --kind powerlaw --nodes 1000000 --edges 8000000 --seed 7 -o "$out/graphs_large/powerlaw_1M_8M.egr"
    [ -f "$out/graphs_large/grid_4M.egr" ] || ib graphs --kind grid --nodes 4000000 -o "$out/graphs_large/grid_4M.egr"
    timeout "${SWEEP_TIMEOUT:-480}" "$py" -m indigo_bench.cli sweep "${codes[@]}" --graphs "$out/graphs_large" \
      --tools "${TOOLS:-hirace,sequential,racecheck}" --backend gpu -j "${JOBS:-8}" --timeout 120 --no-progress \
      --out "$out/large"
    ;;
  *) echo "unknown stage $stage" >&2; exit 2 ;;
esac
ib report --out "$out/$stage" > "$out/$stage/report_stdout.txt" 2>&1
cat "$out/$stage/report_stdout.txt"
