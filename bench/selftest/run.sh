#!/usr/bin/env bash
# hirace selftest at scale, in chunks so that a time limit loses at most one chunk:
#   bench/selftest/run.sh BACKEND FIRST_SEED PROGRAMS CHUNK OUT [JOBS] [BATCH]
# writes OUT/selftest_<backend>_<first>-<last>.{json,txt} per chunk; failing programs go to OUT/failures_*.
set -u
backend=$1 first=$2 programs=$3 chunk=$4 out=$5 jobs=${6:-8} batch=${7:-16}
cd "$(dirname "$0")/../.."
py=${PYTHON:-python3}
mkdir -p "$out"
seed=$first
end=$((first + programs))
while [ "$seed" -lt "$end" ]; do
  n=$(( end - seed < chunk ? end - seed : chunk ))
  last=$((seed + n - 1))
  tag="${backend}_${seed}-${last}"
  "$py" -m hirace.cli selftest --backend "$backend" --programs "$n" --seed "$seed" --batch "$batch" -j "$jobs" \
    --no-progress --json "$out/selftest_$tag.json" --save "$out/failures_$tag" > "$out/selftest_$tag.txt" 2>&1
  echo "exit $?" >> "$out/selftest_$tag.txt"
  tail -12 "$out/selftest_$tag.txt"
  seed=$((last + 1))
done
