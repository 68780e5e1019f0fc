"""Launches without an "off" state after them: only where the planner finds that the program's
instrumented code runs in launches hirace brackets (hirace/planner.py _note_unbracketed)."""
import pytest

from hirace.planner import HiracePlanner
from instrument.compile import pipeline
from instrument.backends.cpu import CpuBackend

KERNEL = ("__device__ int twice(int *a, int i) { return 2 * a[i]; }\n"
          "__global__ void k(int *a) { a[threadIdx.x] = twice(a, threadIdx.x); }\n")
MAIN = "int main() { int *d; cudaMalloc(&d, 256);\n  k<<<1, 32>>>(d);\n  cudaDeviceSynchronize(); return 0; }\n"


def planned(tmp_path, text, extra=()):
    src = tmp_path / "p.cu"
    src.write_text(text)
    others = []
    for name, body in extra:
        (tmp_path / name).write_text(body)
        others.append(tmp_path / name)
    planner = HiracePlanner()
    pipeline.instrument_sources([src, *others], tmp_path / "out", [planner])
    return planner


def test_a_program_whose_launches_are_all_bracketed_needs_no_off_state(tmp_path):
    p = planned(tmp_path, KERNEL + MAIN)
    assert p.unbracketed == []
    assert "HIRACE_BRACKETED_ONLY=1" in p.defines()


@pytest.mark.parametrize("text, why", [
    # a launch API: the kernel may run without before_launch
    (KERNEL + "int main() { int *d; cudaMalloc(&d, 256); void *args[] = {&d};\n"
     "  cudaLaunchKernel((const void *)k, dim3(1), dim3(32), args, 0, 0); return 0; }\n", "a launch API"),
    (KERNEL + "int main() { int *d; cudaMalloc(&d, 256); void *args[] = {&d};\n"
     "  cudaLaunchCooperativeKernel(k, dim3(1), dim3(32), args, 0, 0); return 0; }\n", "a launch API"),
    # a launch inside a macro is left as it is
    (KERNEL + "#define GO(d) k<<<1, 32>>>(d)\nint main() { int *d; cudaMalloc(&d, 256); GO(d); return 0; }\n",
     "a launch left unbracketed"),
    # a member function with a check, which a library's kernel could call through an object
    ("struct Op { __device__ int operator()(int *a, int i) const { return a[i] + 1; } };\n"
     "__global__ void k(int *a) { a[threadIdx.x] = Op()(a, threadIdx.x); }\n" + MAIN, "a member function"),
    # a function whose address is taken
    ("__device__ int twice(int *a, int i) { return 2 * a[i]; }\n"
     "typedef int (*F)(int *, int);\n__device__ F pick = twice;\n"
     "__global__ void k(int *a) { a[threadIdx.x] = twice(a, threadIdx.x); }\n" + MAIN, "named other than in a call"),
])
def test_any_way_to_run_instrumented_code_unbracketed_keeps_the_off_state(tmp_path, text, why):
    p = planned(tmp_path, text)
    assert any(why in u for u in p.unbracketed), p.unbracketed
    assert "HIRACE_BRACKETED_ONLY=1" not in p.defines()


def test_a_member_function_without_checks_leaves_launches_bracketed_only(tmp_path):
    # (the samples' SharedMemory<T>: a conversion operator that only declares shared memory)
    p = planned(tmp_path, "struct S { __device__ operator int *() { extern __shared__ int s[]; return s; } };\n"
                          "__global__ void k(int *a) { int *s = S(); s[threadIdx.x] = a[threadIdx.x]; }\n" + MAIN)
    assert p.unbracketed == []


def test_a_c_source_that_names_a_launch_api_keeps_the_off_state(tmp_path):
    p = planned(tmp_path, KERNEL + "extern \"C\" void go(int *);\n" + MAIN,
                [("go.c", "#include <cuda_runtime.h>\nvoid go(void *k) { cudaLaunchKernel(k, (dim3){1,1,1}, "
                          "(dim3){32,1,1}, 0, 0, 0); }\n")])
    assert any("go.c" in u for u in p.unbracketed)


def test_many_launches_without_the_off_state_report_each_launchs_races(tmp_path):
    """A racy kernel and a clean one launched in turn, many times: the races are the racy kernel's,
    in every one of its launches, and none is the clean kernel's."""
    src = tmp_path / "turns.cu"
    src.write_text(
        "#include <cstdio>\n"
        "__global__ void racy(int *a) { a[0] = threadIdx.x; }\n"
        "__global__ void clean(int *a) { a[threadIdx.x + 1] = threadIdx.x; }\n"
        "int main() { int *d; cudaMalloc(&d, 64 * sizeof(int));\n"
        "  for (int i = 0; i < 20; ++i) { clean<<<1, 32>>>(d); racy<<<1, 32>>>(d); }\n"
        "  cudaDeviceSynchronize(); printf(\"done\\n\"); return 0; }\n")
    from hirace import runner
    from hirace.config import Config

    class Seen(CpuBackend):
        def build(self, req):
            self.defines = req.defines
            return super().build(req)
    backend = Seen()
    built = runner.build([src], backend, tmp_path / "b", Config())
    assert "HIRACE_BRACKETED_ONLY=1" in backend.defines
    proc, report = runner.execute(built, Config())
    assert proc.returncode == 0 and "done" in proc.stdout
    assert report.races and {r.kernel for r in report.races} == {"racy"}
    assert {r.launch for r in report.races} == set(range(1, 40, 2))
