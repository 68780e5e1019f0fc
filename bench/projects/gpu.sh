#!/usr/bin/env bash
# The projects validation on a GPU machine: cuda-samples and Rodinia programs built by their own
# CMake and Makefiles, plainly and through hirace-cc, run plainly and under `hirace run --`, outputs
# compared (bench/projects/run.py); then our own CMake and Make projects (tests/projects/) the same way.
# usage: [TOOL=cltc] [ONLY="NAME ..."] bench/projects/gpu.sh OUT   (from the repository root; TOOL: hirace (default) or
# cltc, whose launcher is cltc-cc and whose run is `cltc coverage --`; .whl/ holds the libclang wheel,
# .rwcarry/samples and .rwcarry/rodinia the programs' trees: never committed)
set -u
OUT=${1:?usage: gpu.sh OUT}
mkdir -p "$OUT"
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/libclang-*.whl || exit 2
export PYTHONPATH=/tmp/site:$PWD
BIN=/tmp/hirace-bin
mkdir -p $BIN
TOOL=${TOOL:-hirace}
case $TOOL in hirace|cltc) ;; *) echo "gpu.sh: TOOL must be hirace or cltc" >&2; exit 2;; esac
for tool in hirace:hirace.cli hirace-cc:hirace.cc cltc:cltestcheck.cli cltc-cc:cltestcheck.cc; do
  printf '#!/bin/sh\nexec python3 -m %s "$@"\n' "${tool#*:}" > "$BIN/${tool%%:*}"
  chmod +x "$BIN/${tool%%:*}"
done
export PATH=$BIN:$PATH
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -1; nproc; git log --oneline -1
  time python3 bench/projects/run.py --backend gpu --root samples=.rwcarry/samples --root rodinia=.rwcarry/rodinia \
    --tool "$TOOL" -j "${JOBS:-8}" --build-jobs 2 --timeout 120 --out "$OUT" ${ONLY:+--only $ONLY}
  for p in cmake_app make_app; do cp -r tests/projects/$p /tmp/$p; done
  if [ "$TOOL" = hirace ]; then RUN="hirace run --"; else RUN="cltc coverage --no-progress --"; fi
  cmake -S /tmp/cmake_app -B /tmp/cmake_app/build -DCMAKE_CUDA_COMPILER_LAUNCHER=$TOOL-cc \
    -DCMAKE_CXX_COMPILER_LAUNCHER=$TOOL-cc -DCMAKE_CXX_LINKER_LAUNCHER=$TOOL-cc > /dev/null &&
    cmake --build /tmp/cmake_app/build -j 8 > /dev/null &&
    (cd /tmp/cmake_app/build && $RUN ctest; echo "cmake_app: $RUN ctest: exit $?";
     ./app histogram 300; echo "cmake_app: ./app histogram 300 by itself: exit $?")
  make -C /tmp/make_app NVCC="$TOOL-cc nvcc" > /dev/null &&
    (cd /tmp/make_app && $RUN make run; echo "make_app: $RUN make run: exit $?")
} > "$OUT/log_gpu.txt" 2>&1
tail -60 "$OUT/log_gpu.txt"
