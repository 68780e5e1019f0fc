#!/usr/bin/env bash
# How many CUDA processes per second one GPU machine starts and ends, P at a time: the floor of a
# sweep that runs each row as its own process (bench/results/indigo_scale_h100/process_starts.txt).
#
#   bench/indigo_scale/process_starts.sh GRAPH.egr
#
# /tmp/empty does cudaFree(0) and exits; /tmp/mr is examples/indigo_mini's max_reduce built plain,
# run on GRAPH with 256 threads x 1024 blocks.
set -u
graph=${1:?an .egr graph (indigo-bench graphs --small -o DIR)}
root=$(cd "$(dirname "$0")/../.." && pwd)
nvcc -O3 -I "$root/examples/indigo_mini/include" -o /tmp/mr "$root/examples/indigo_mini/codes/max_reduce/max_reduce.cu" || exit 2
printf '#include <cstdio>\nint main() { cudaFree(0); printf("ok\\n"); }\n' > /tmp/empty.cu
nvcc -o /tmp/empty /tmp/empty.cu || exit 2
for prog in "/tmp/empty" "/tmp/mr $graph 256 1024"; do
  for p in 1 4 8 16 32; do
    n=$((p * 6)); [ "$p" = 1 ] && n=12
    t0=$(date +%s%N)
    seq "$n" | xargs -P "$p" -I{} sh -c "$prog > /dev/null"
    t1=$(date +%s%N)
    echo "$prog  P=$p n=$n  runs/s=$(python3 -c "print(round($n / (($t1 - $t0) / 1e9), 2))")"
  done
done
/usr/bin/time -v /tmp/mr "$graph" 256 1024 2>&1 | grep -E "Elapsed|Maximum resident|User time|System time"
