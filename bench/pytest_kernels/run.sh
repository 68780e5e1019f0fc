#!/usr/bin/env bash
# The example pytest kernel suite on a GPU machine: the GPU binding (cuda-python, or pycuda),
# then the plugin on both backends, the kernels' results compared across backends, and cltc
# coverage / mutate / amplify run on gpu and cpu side by side.
# usage: [BINDING=cuda-python|pycuda] bench/pytest_kernels/run.sh OUT [main|mutate-all]   (from the
# repository root; .whl/ holds the libclang, pytest and cuda-bindings wheels for Python 3.12, and
# .whl/sdist/ pycuda's source distribution for BINDING=pycuda)
set -u
OUT=${1:?usage: run.sh OUT [main|mutate-all]}
PHASE=${2:-main}
mkdir -p "$OUT"
SUITE=examples/pytest_kernels
export PYTEST_ADDOPTS="-p no:hypothesispytest -p no:xdist -p no:cacheprovider"
py=python3

# the tools and pytest from wheels; the GPU binding: NVIDIA's cuda-python (wheels: the default) or,
# with BINDING=pycuda, pycuda built from source against this machine's CUDA toolkit
BINDING=${BINDING:-cuda-python}
export CCTK_GPU_BINDING=$BINDING
WHEELS=".whl/libclang-*.whl .whl/pytest-*.whl .whl/pluggy-*.whl .whl/iniconfig-*.whl .whl/packaging-*.whl .whl/pygments-*.whl"
[ "$BINDING" = cuda-python ] && WHEELS="$WHEELS .whl/cuda_bindings-*.whl .whl/cuda_pathfinder-*.whl"
$py -m pip install -q --no-index --no-deps --no-compile --target /tmp/site $WHEELS || exit 2
export PYTHONPATH=/tmp/site:$PWD:${PYTHONPATH:-}
if [ "$BINDING" = pycuda ]; then
  CUDA_ROOT=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")
  if [ ! -f /tmp/pycuda-src/.built ]; then
    rm -rf /tmp/pycuda-src && mkdir -p /tmp/pycuda-src
    tar xzf .whl/sdist/pycuda-*.tar.gz -C /tmp/pycuda-src --strip-components=1
    ( cd /tmp/pycuda-src && $py configure.py --cuda-root="$CUDA_ROOT" --no-cuda-enable-curand >/dev/null &&
      timeout 400 $py setup.py build_ext --inplace -j 16 && touch .built ) > "$OUT/pycuda_build.log" 2>&1
    echo "pycuda build exit $?" | tee "$OUT/pycuda_build.status"
  fi
  export PYTHONPATH=/tmp/pycuda-src:$PYTHONPATH
  $py -c "import pycuda.driver as d; d.init(); print('pycuda', __import__('pycuda').VERSION_TEXT, d.Device(0).name(), d.Device(0).compute_capability())" > "$OUT/binding.txt" 2>&1
else
  $py -c "from cuda.bindings import driver as cu, __version__ as v; cu.cuInit(0); e, d = cu.cuDeviceGet(0); e, n = cu.cuDeviceGetName(64, d); print('cuda-python (cuda-bindings)', v, n.split(b'\\0')[0].decode())" > "$OUT/binding.txt" 2>&1
fi

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
