"""The cpu backend leaves out of a build what no unit of the program uses (instrument/compile/cpu_parts.py):
CUDA graphs and stream capture (cudaemu/graphs.h) only where a unit calls their API."""
import subprocess

from instrument.backends.base import BuildRequest
from instrument.backends.cpu import CpuBackend
from instrument.compile import cpu_parts, pipeline
from instrument.compile.toolchain import host_cxx
from instrument.protocol import EXIT_MEANING, Exit

from conftest import CUDA


class Recording(CpuBackend):
    """The cpu backend, keeping each build's request."""
    def __init__(self):
        self.requests = []

    def build(self, req):
        self.requests.append(req)
        return super().build(req)


def test_the_graph_api_is_what_graphs_h_defines():
    api = cpu_parts.graph_api()
    assert {"cudaGraphCreate", "cudaGraphLaunch", "cudaStreamBeginCapture", "cudaStreamEndCapture",
            "cudaGraphInstantiate", "cudaStreamIsCapturing"} <= api
    assert not api & {"cudaMemcpyAsync", "cudaEventRecord", "cudaLaunchKernel", "cudaStreamCreate"}


def test_a_program_without_graph_calls_is_built_without_graphs_and_runs(tmp_path):
    be = Recording()
    built = pipeline.build([CUDA / "streams" / "copy_vs_kernel_ok.cu"], be, tmp_path)
    assert "CUDAEMU_GRAPHS=0" in be.requests[-1].defines
    res = be.run(built.exe, timeout=60)
    assert res.returncode == 0 and res.stdout == "7\n", res.stdout + res.stderr


def test_a_program_that_captures_is_built_with_graphs_and_runs_its_graph(tmp_path):
    be = Recording()
    built = pipeline.build([CUDA / "streams" / "capture_join_ok.cu"], be, tmp_path)
    assert not any(d.startswith("CUDAEMU_GRAPHS") for d in be.requests[-1].defines)
    res = be.run(built.exe, timeout=60)
    # fill writes 2, scale multiplies by 5: the graph's kernels ran in its order
    assert res.returncode == 0 and res.stdout == "cudaSuccess 10\n", res.stdout + res.stderr


CAPTURES = r"""
#include <cstdio>
void issue(cudaStream_t s, int *d);
int main() {
  int *d;
  cudaMalloc(&d, 64);
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  issue(s, d);
  cudaGraph_t g;
  cudaStreamEndCapture(s, &g);
  std::printf("captured\n");
  return 0;
}
"""
ISSUES = r"""
void issue(cudaStream_t s, int *d) { cudaMemsetAsync(d, 0, 64, s); }
"""


def test_units_that_disagree_stop_with_a_fault_not_a_wrong_run(tmp_path):
    """A unit built with CUDAEMU_GRAPHS=0 that meets a capture (another unit began it) stops the program with
    the emulation's fault, naming the setting, rather than running the captured work at once."""
    be = CpuBackend()
    objs = []
    for name, text, defines in (("captures", CAPTURES, []), ("issues", ISSUES, ["CUDAEMU_GRAPHS=0"])):
        src = tmp_path / f"{name}.cu"
        src.write_text(text)
        obj = tmp_path / f"{name}.o"
        cmd = be.compile_command(BuildRequest([src], obj, defines=defines, flags=["-c"]))
        subprocess.run([a for a in cmd if a != "-lm"], check=True, capture_output=True)
        objs.append(str(obj))
    exe = tmp_path / "prog"
    subprocess.run([host_cxx(), *objs, "-o", str(exe), "-lm"], check=True, capture_output=True)
    res = be.run(exe, timeout=60)
    assert res.returncode == int(Exit.EMULATION_FAULT), (res.returncode, res.stdout, res.stderr)
    assert be.fault_of(res) == EXIT_MEANING[Exit.EMULATION_FAULT]
    assert "a unit of this program was built without CUDA graphs (CUDAEMU_GRAPHS=0)" in res.stderr
    assert "captured" not in res.stdout
