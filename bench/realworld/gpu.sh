#!/usr/bin/env bash
# The real-program validation on a GPU machine: every program of programs.toml on the gpu backend
# (parse, plain nvcc build and run, hirace run, outputs compared), and on the cpu backend of the
# same machine with every stage (nvcc of the instrumented sources, cltc coverage).
# usage: bench/realworld/gpu.sh OUT gpu|cpu [K/N]   (from the repository root; .whl/ holds the libclang
# wheel, .rwcarry/samples and .rwcarry/rodinia the programs' directories: never committed)
set -u
OUT=${1:?usage: gpu.sh OUT gpu|cpu [K/N]}
PHASE=${2:-gpu}
PART=${3:-1/1}
mkdir -p "$OUT"
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/libclang-*.whl || exit 2
export PYTHONPATH=/tmp/site:$PWD
ROOTS="--root samples=.rwcarry/samples --root rodinia=.rwcarry/rodinia"
if [ "$PHASE" = gpu ]; then
  ( nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -1; nproc
    time python3 bench/realworld/run.py --backend gpu $ROOTS --skip nvcc coverage -j 8 --timeout 120 --out "$OUT" ) \
    > "$OUT/log_gpu.txt" 2>&1
  tail -40 "$OUT/log_gpu.txt"
else
  ( time timeout "${LIMIT:-3600}" python3 bench/realworld/run.py --backend cpu $ROOTS -j 16 --timeout 240 \
      --part "$PART" --out "$OUT" ) \
    > "$OUT/log_cpu.txt" 2>&1
  tail -40 "$OUT/log_cpu.txt"
fi
