"""The cpu backend end to end: the corpus matches its sequential references,
faults become reports, block order and seeded schedules are controllable."""

import pytest

from instrument.backends.cpu import CpuBackend
from instrument.frontend.schedule_points import schedule_points

from conftest import CUDA

CORPUS = sorted((CUDA / "corpus").glob("*.cu"))
MULTI = ["corpus/multi_file/main.cu", "corpus/multi_file/kernels.cu"]


def test_corpus_has_at_least_30_programs():
    assert len(CORPUS) + 1 >= 30


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
def test_corpus_program_matches_its_reference(path, plain_corpus):
    res = CpuBackend().run(plain_corpus(path), timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr
    assert res.stdout.strip().endswith("PASS"), res.stdout


def test_multi_file_program(cpu_build):
    built = cpu_build(MULTI)
    res = CpuBackend().run(built.exe, timeout=60)
    assert res.returncode == 0 and "PASS" in res.stdout, res.stdout + res.stderr


def fault_run(run_cli, name, *extra):
    return run_cli("instrument.run", "--backend", "cpu", *extra, CUDA / "faults" / f"{name}.cu")


def test_divergent_barriers_are_reported(run_cli):
    r = fault_run(run_cli, "divergent_barriers")
    assert r.returncode == 2
    assert "done" not in r.stdout
    src = CUDA / "faults" / "divergent_barriers.cu"
    assert "barrier divergence (threads wait at different barriers) in kernel 'k'" in r.stderr
    assert f"launched at {src}:14), block (0,0,0)" in r.stderr
    assert f"threads (0,0,0)..(15,0,0) [16] wait at __syncthreads at {src}:5" in r.stderr
    assert f"threads (16,0,0)..(63,0,0) [48] wait at __syncthreads at {src}:7" in r.stderr
    assert "run: error: the cpu backend stopped the program: barrier divergence" in r.stderr


def test_exit_while_others_wait_is_divergence(run_cli):
    r = fault_run(run_cli, "exit_before_barrier")
    assert r.returncode == 2
    assert "some threads exited while others wait at a barrier" in r.stderr
    assert "block (1,0,0)" in r.stderr and "threads (8,0,0)..(31,0,0) [24] exited" in r.stderr


def test_exited_threads_may_count_as_arrived(run_cli):
    r = run_cli("instrument.run", "--backend", "cpu", CUDA / "faults" / "exit_before_barrier.cu",
                env={"CUDAEMU_EXITED_ARRIVE": "1"})
    assert r.returncode == 0 and r.stdout == "done\n", r.stderr


def test_deadlock_is_reported(run_cli):
    r = fault_run(run_cli, "warp_deadlock")
    src = CUDA / "faults" / "warp_deadlock.cu"
    assert r.returncode == 2
    assert "deadlock (every live thread is blocked) in kernel 'k'" in r.stderr
    assert f"threads (0,0,0)..(0,0,0) [1] wait at a warp collective at {src}:6" in r.stderr
    assert f"[31] wait at __syncthreads at {src}:7" in r.stderr


def test_timeout_kills_the_program(run_cli):
    r = fault_run(run_cli, "spin_forever", "--timeout", "2")
    assert r.returncode == 2
    assert "timed out after 2s" in r.stderr
    assert "unreachable" not in r.stdout


@pytest.fixture(scope="module")
def block_order_program(tmp_path_factory):
    """faults/block_order.cu built once for the module: its tests differ in the order they run it in."""
    from instrument.compile import pipeline
    return pipeline.build([CUDA / "faults" / "block_order.cu"], CpuBackend(), tmp_path_factory.mktemp("block-order"))


@pytest.mark.parametrize("order,expected", [
    (None, "0 1 2 3 4 5"), ("asc", "0 1 2 3 4 5"), ("desc", "5 4 3 2 1 0"),
    ("3,1", "3 1 0 2 4 5"),
])
def test_block_order(block_order_program, order, expected):
    built = block_order_program
    env = {"CUDAEMU_BLOCK_ORDER": order} if order else None
    res = CpuBackend().run(built.exe, env=env, timeout=30)
    assert res.stdout.strip() == expected


def test_random_block_order_is_a_seeded_permutation(block_order_program):
    built = block_order_program
    runs = {}
    for seed in range(6):
        env = {"CUDAEMU_BLOCK_ORDER": "random", "CUDAEMU_SEED": str(seed)}
        out = CpuBackend().run(built.exe, env=env, timeout=30).stdout.strip()
        assert sorted(out.split()) == list("012345")
        assert CpuBackend().run(built.exe, env=env, timeout=30).stdout.strip() == out
        runs[seed] = out
    assert len(set(runs.values())) > 1


def test_seeded_switches_vary_racy_results_and_a_seed_reproduces(cpu_build):
    built = cpu_build("faults/racy_sum.cu", planners=[schedule_points])
    plain = CpuBackend().run(built.exe, timeout=30).stdout
    assert plain == "sum 64\n"          # no seed: no switches at accesses
    outs = {}
    for seed in range(8):
        env = {"CUDAEMU_SEED": str(seed)}
        first = CpuBackend().run(built.exe, env=env, timeout=30).stdout
        assert CpuBackend().run(built.exe, env=env, timeout=30).stdout == first
        outs[seed] = first
    assert len(set(outs.values())) > 1, outs
    assert all(int(o.split()[1]) < 64 for o in outs.values())


def test_invalid_launch_configuration_sets_the_error(tmp_path, run_cli):
    src = tmp_path / "bad.cu"
    src.write_text('#include <cstdio>\n__global__ void k() {}\nint main() {\n'
                   '  k<<<1, 2048>>>();\n'
                   '  printf("%s\\n", cudaGetErrorString(cudaGetLastError()));\n'
                   '  printf("%s\\n", cudaGetErrorString(cudaGetLastError()));\n}\n')
    r = run_cli("instrument.run", "--backend", "cpu", src)
    assert r.stdout == "invalid configuration argument\nno error\n"


def test_unsupported_api_is_a_compile_error_naming_it(tmp_path, run_cli):
    src = tmp_path / "unsupported.cu"
    src.write_text("#include <cuda_runtime.h>\nint main() { cudaGraphExecUpdate(0, 0, (cudaGraphExecUpdateResultInfo *)0); }\n")
    r = run_cli("instrument.run", "--backend", "cpu", src)
    assert r.returncode == 2
    assert "cudaGraphExecUpdate" in r.stderr


def test_a_stray_access_in_device_code_is_reported_with_its_line_not_a_crash(run_cli):
    src = CUDA / "faults" / "stray_access.cu"
    r = run_cli("instrument.run", "--backend", "cpu", src)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert "kernel 'stray'" in r.stderr and "made an invalid memory access" in r.stderr
    assert f"at {src}:7, in block (1,0,0) thread (5,0,0)" in r.stderr, r.stderr
    assert "emulation fault" in r.stderr and "SIGSEGV" not in r.stderr


def test_under_hirace_the_same_stray_access_is_an_out_of_bounds_finding_and_the_run_goes_on(run_cli):
    src = CUDA / "faults" / "stray_access.cu"
    r = run_cli("hirace.cli", "run", "--backend", "cpu", src)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert "done" in r.stdout
    assert "ERROR: hirace: out-of-bounds write in global memory, kernel 'stray'" in r.stderr
    assert "stray_access.cu:7:16 by thread (5,0,0) of block (1,0,0)" in r.stderr


def test_a_thread_stack_overflow_names_the_line_and_the_option_to_raise(run_cli):
    src = CUDA / "faults" / "stray_access.cu"
    r = run_cli("instrument.run", "--backend", "cpu", src, "--", "deep")
    assert r.returncode == 2, r.stderr
    assert "the stack of thread (0,0,0) in block (0,0,0) of kernel 'recurse'" in r.stderr, r.stderr
    assert f"overflowed at {src}:" in r.stderr and "raise CUDAEMU_STACK_KB, now 64 KiB" in r.stderr
