// cpu-backend stand-in for <cooperative_groups.h>.
#error "cudaemu: cooperative groups (grid.sync() and friends) are not supported on the cpu backend; use --backend gpu"
