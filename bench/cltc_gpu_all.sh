#!/usr/bin/env bash
# Everything cltc measures on a GPU, in one go, bundled as $OUT/cltc_gpu.tgz:
# the validation suites, coverage overhead and mutation throughput.
set -u
dir=${1:-/tmp/cltc_gpu}
mkdir -p "$dir"
bash bench/cltc_gpu_validation.sh "$dir/val"
python3 bench/coverage_overhead/run.py --backend gpu --repeat 5 --out "$dir" --tag h100 > "$dir/coverage_overhead.log" 2>&1
echo "$? coverage_overhead"
python3 bench/mutation_throughput/run.py --backend gpu --suite tests/suites/mut_basic --out "$dir" --tag h100 > "$dir/mutation_throughput.log" 2>&1
echo "$? mutation_throughput"
