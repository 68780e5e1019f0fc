#!/bin/bash
# How many CUDA contexts a second this machine makes: in processes of their own, and made again in
# one process (cudaDeviceReset between). Run from the project root on the GPU machine:
#   bench/indigo_scale/context_starts.sh > context_starts.txt
set -e
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
nvcc -O2 -o "$d/one" bench/indigo_scale/context_cycle.cu
t() { python3 -c "import time; print(time.time())"; }
echo "== 20 contexts made again in one process (cudaDeviceReset between)"; "$d/one" 20
echo "== 20 processes one after another"; s=$(t); for i in $(seq 20); do "$d/one"; done; e=$(t)
python3 -c "print('per process s', ($e - $s) / 20)"
for p in 8 16; do
  echo "== 64 processes, $p at once"; s=$(t); seq 64 | xargs -P $p -I{} "$d/one"; e=$(t)
  python3 -c "print('processes a second', 64 / ($e - $s))"
done
echo "== 8 processes at once, each making 8 contexts one after another"; s=$(t)
seq 8 | xargs -P 8 -I{} "$d/one" 8 > /dev/null; e=$(t); python3 -c "print('contexts a second', 64 / ($e - $s))"
