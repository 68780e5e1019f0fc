#!/usr/bin/env bash
# cltc on a GPU: coverage, mutation and amplification suites of tests/suites on the gpu
# backend (compare with the cpu backend's numbers by bench/compare_cltc.py), and the
# amplification of grids larger than the device holds at once. Writes under $1.
set -u
out=${1:-bench/results/cltc_gpu}
mkdir -p "$out"
nvidia-smi -L > "$out/device.txt" 2>&1
cltc() { python3 -m cltestcheck.cli "$@"; }
for s in cov_features cov_reduce; do
  cltc coverage --suite tests/suites/$s --backend gpu --json "$out/coverage_$s.json" > "$out/coverage_$s.txt" 2>&1
  echo "$? coverage $s"
done
cltc mutate --suite tests/suites/mut_all --backend gpu -j 4 --json "$out/mutate_mut_all.json" > "$out/mutate_mut_all.txt" 2>&1; echo "$? mutate mut_all"
cltc mutate --suite tests/suites/mut_basic --backend gpu -j 4 --json "$out/mutate_mut_basic.json" > "$out/mutate_mut_basic.txt" 2>&1; echo "$? mutate mut_basic"
cltc mutate --suite tests/suites/mut_barrier --backend gpu --operators barrier -j 4 --json "$out/mutate_mut_barrier.json" > "$out/mutate_mut_barrier.txt" 2>&1; echo "$? mutate mut_barrier"
cltc mutate --suite tests/suites/mut_racy --backend gpu --operators atomic -j 4 --json "$out/mutate_mut_racy.json" > "$out/mutate_mut_racy.txt" 2>&1; echo "$? mutate mut_racy"
cltc amplify --suite tests/suites/amp_blocks --backend gpu --runs 20 -j 4 --json "$out/amplify_amp_blocks.json" > "$out/amplify_amp_blocks.txt" 2>&1; echo "$? amplify amp_blocks"
cltc amplify --suite bench/amplify_gpu/suite --backend gpu --runs 3 -j 2 \
  --schedules serial,free,first:0,first:7,first:4321,first:19999 --json "$out/amplify_big.json" > "$out/amplify_big.txt" 2>&1
echo "$? amplify big"
