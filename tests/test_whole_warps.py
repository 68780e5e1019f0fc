"""HIRACE_WHOLE_WARPS (hirace/planner.py defines, hirace/update.h): the check takes every thread's lane
groups for whole warps, a constant, only where the planner saw all of the device program and no sync of
part of a warp in it. The proof (update.h `inputs`): a thread's groups narrow only at the hooks the
planner puts at such syncs, and a record of the accessing thread's block was made in the same launch,
by the same device program (an earlier launch's reads as INIT, another block's returns first)."""
import pytest

from hirace.planner import HiracePlanner
from instrument.compile import pipeline

from conftest import CUDA

WHOLE = "HIRACE_WHOLE_WARPS=1"
MAIN = "int main() { int *d; cudaMalloc(&d, 256);\n  k<<<1, 64>>>(d);\n  cudaDeviceSynchronize(); return 0; }\n"


def planned(tmp_path, text, **kw):
    src = tmp_path / "p.cu"
    src.write_text(text)
    planner = HiracePlanner(**kw)
    pipeline.instrument_sources([src], tmp_path / "out", [planner])
    return planner


def test_a_program_with_whole_warp_syncs_only_folds_the_groups_away(tmp_path):
    p = planned(tmp_path, "__global__ void k(int *a) { a[threadIdx.x] = 1; __syncwarp(); int v = a[threadIdx.x ^ 1];\n"
                          "  __syncthreads(); a[threadIdx.x] = v; }\n" + MAIN)
    assert WHOLE in p.defines() and "HIRACE_LANE_GROUPS=0" in p.defines()


@pytest.mark.parametrize("sync", ["__syncwarp(0xffffu)", "__syncwarp(0x0000ffffu)", "__syncwarp(__activemask())"])
def test_a_sync_that_may_take_part_of_a_warp_keeps_the_groups(tmp_path, sync):
    p = planned(tmp_path, f"__global__ void k(int *a) {{ a[threadIdx.x] = 1; {sync}; int v = a[threadIdx.x ^ 1];\n"
                          "  a[threadIdx.x] = v; }\n" + MAIN)
    assert WHOLE not in p.defines()


def test_a_unit_built_by_itself_keeps_the_groups(tmp_path):
    # (another unit linked with it under -rdc may narrow a thread's groups in a function it calls)
    p = planned(tmp_path, "__global__ void k(int *a) { a[threadIdx.x] = 1; }\n" + MAIN, unit_mode=True)
    assert "HIRACE_LANE_GROUPS=0" in p.defines() and WHOLE not in p.defines()


@pytest.mark.parametrize("path", sorted((CUDA / "races").glob("cg_*tile*.cu")), ids=lambda p: p.stem)
def test_the_corpus_programs_with_sub_warp_tiles_keep_the_groups(path, tmp_path):
    planner = HiracePlanner()
    pipeline.instrument_sources([path], tmp_path / "out", [planner])
    assert planner.lane_groups and WHOLE not in planner.defines()
