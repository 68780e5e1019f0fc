#!/usr/bin/env bash
# GPU validation of the cpu-backend corpus: build each program with nvcc through
# our gpu backend (python -m instrument.run --backend gpu) and record its output,
# plus the barrier benchmark, under $1 (default bench/results/gpu_corpus).
# Compare with the cpu backend by: python bench/compare_corpus.py DIR
set -u
out=${1:-bench/results/gpu_corpus}
mkdir -p "$out"
nvidia-smi -L > "$out/device.txt" 2>&1
for f in tests/cuda/corpus/*.cu; do
  n=$(basename "$f" .cu)
  timeout 300 python3 -m instrument.run --backend gpu "$f" > "$out/$n.out" 2> "$out/$n.err"
  echo "$? $n"
done | tee "$out/status.txt"
timeout 300 python3 -m instrument.run --backend gpu tests/cuda/corpus/multi_file/main.cu \
  tests/cuda/corpus/multi_file/kernels.cu > "$out/multi_file.out" 2> "$out/multi_file.err"
echo "$? multi_file" | tee -a "$out/status.txt"
timeout 300 python3 -m instrument.run --backend gpu bench/cpu_backend/barriers.cu > "$out/barriers_gpu.json" 2>&1
for f in divergent_barriers exit_before_barrier warp_deadlock; do
  timeout 60 python3 -m instrument.run --backend gpu tests/cuda/faults/$f.cu > "$out/fault_$f.out" 2>&1
  echo "$? fault_$f" | tee -a "$out/status.txt"
done
