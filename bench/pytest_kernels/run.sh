#!/usr/bin/env bash
# The example pytest kernel suite on a GPU machine: pycuda built from source, then the
# plugin on both backends, the kernels' results compared across backends, and cltc
# coverage / mutate / amplify run on gpu and cpu side by side.
# usage: bench/pytest_kernels/run.sh OUT [main|mutate-all]   (from the repository root; .whl/
# holds the libclang and pytest wheels and .whl/sdist/ pycuda's source distribution)
set -u
OUT=${1:?usage: run.sh OUT [main|mutate-all]}
PHASE=${2:-main}
mkdir -p "$OUT"
SUITE=examples/pytest_kernels
export PYTEST_ADDOPTS="-p no:hypothesispytest -p no:xdist -p no:cacheprovider"
py=python3

# pycuda ships as source only: build it in place, against this machine's CUDA toolkit
CUDA_ROOT=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")
if [ ! -f /tmp/pycuda-src/.built ]; then
  rm -rf /tmp/pycuda-src && mkdir -p /tmp/pycuda-src
  tar xzf .whl/sdist/pycuda-*.tar.gz -C /tmp/pycuda-src --strip-components=1
  ( cd /tmp/pycuda-src && $py configure.py --cuda-root="$CUDA_ROOT" --no-cuda-enable-curand >/dev/null &&
    timeout 400 $py setup.py build_ext --inplace -j 16 && touch .built ) > "$OUT/pycuda_build.log" 2>&1
  echo "pycuda build exit $?" | tee "$OUT/pycuda_build.status"
fi
export PYTHONPATH=/tmp/pycuda-src:$PYTHONPATH
$py -c "import pycuda.driver as d; d.init(); print('pycuda', __import__('pycuda').VERSION_TEXT, d.Device(0).name(), d.Device(0).compute_capability())" > "$OUT/pycuda.txt" 2>&1

if [ "$PHASE" = mutate-all ]; then
  for b in gpu cpu; do
    ( time timeout 150 $py -m cltestcheck.cli mutate --suite $SUITE --backend $b -j 14 --runs 1 \
        --operators relational,thread-index --json "$OUT/mutate_subset_$b.json" ) > "$OUT/mutate_subset_$b.txt" 2>&1
  done
  for b in gpu cpu; do
    ( time timeout 280 $py -m cltestcheck.cli mutate --suite $SUITE --backend $b -j 14 --runs 2 \
        --json "$OUT/mutate_all_$b.json" ) > "$OUT/mutate_all_$b.txt" 2>&1
  done
  $py bench/pytest_kernels/summarize.py "$OUT" > "$OUT/summary.txt" 2>&1
  cat "$OUT/summary.txt"
  exit 0
fi

for b in gpu cpu; do
  timeout 120 $py -m pytest -q -p cltestcheck.pytest_plugin --cuda-backend $b $SUITE > "$OUT/plain_$b.txt" 2>&1
  echo "exit $?" >> "$OUT/plain_$b.txt"
done
timeout 120 $py bench/pytest_kernels/compare_backends.py > "$OUT/compare_backends.txt" 2>&1

for b in gpu cpu; do
  ( time timeout 120 $py -m cltestcheck.cli coverage --suite $SUITE --backend $b -j 8 --json "$OUT/coverage_$b.json" ) > "$OUT/coverage_$b.txt" 2>&1
  ( time timeout 120 $py -m cltestcheck.cli amplify --suite $SUITE --backend $b -j 8 --runs 3 --json "$OUT/amplify_$b.json" ) > "$OUT/amplify_$b.txt" 2>&1
  ( time timeout 150 $py -m cltestcheck.cli mutate --suite $SUITE --backend $b -j 12 --runs 1 \
      --operators relational,thread-index --json "$OUT/mutate_subset_$b.json" ) > "$OUT/mutate_subset_$b.txt" 2>&1
done
$py bench/pytest_kernels/summarize.py "$OUT" > "$OUT/summary.txt" 2>&1
cat "$OUT/summary.txt"
