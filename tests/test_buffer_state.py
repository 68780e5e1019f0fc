"""A buffer's check state only where a launch may write it: what the planner knows of each kernel's
writes (hirace/proofs/readonly_params.py `writes`), what its launches pass, and what the host makes of
it (runtime hirace/host_buffer_state.h)."""
from __future__ import annotations

import pytest
from conftest import CUDA

from hirace import runner
from hirace.config import Config
from hirace.proofs.intervals import KernelFacts
from hirace.proofs.readonly_params import readonly_params
from hirace.results import collect
from instrument import logs
from instrument.backends.cpu import CpuBackend
from instrument.frontend.parse import parse_file
from instrument.frontend.query import query
from instrument.protocol import HIRACE_LOG, Env

PROGRAM = CUDA / "engine" / "buffer_state.cu"


def writes(tmp_path, text: str) -> dict[str, tuple[int, ...]]:
    src = tmp_path / "k.cu"
    src.write_text(text)
    prog = query(parse_file(src))
    found: dict = {}
    readonly_params(prog, KernelFacts(prog), {}, found)
    return {w.kernel.name: w.written for w in found.values()}


def test_a_kernel_that_writes_only_through_its_parameters_names_them_with_or_without_candidates(tmp_path):
    got = writes(tmp_path, """
__device__ int g[4];
__device__ void put(int *p) { p[0] = 1; }
__global__ void only(int *a, int *b, int n) { a[threadIdx.x] = b[threadIdx.x]; b[0] = n; }
__global__ void adds(int *a, int *c) { atomicAdd(&c[0], a[threadIdx.x]); }
__global__ void shared_only(const int *a) { __shared__ int s[32]; s[threadIdx.x] = a[threadIdx.x]; }
__global__ void loaded(int **t) { t[0][threadIdx.x] = 1; }
__global__ void made(int *a) { int *p = a + 1; p[threadIdx.x] = 1; }
__global__ void variable(int *a) { g[0] = a[0]; }
__global__ void calls(int *a) { put(a); }
__global__ void copies(int *a, const int *b) { memcpy(a, b, 8); }""")
    assert got == {"only": (0, 1), "adds": (1,), "shared_only": ()}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    work = tmp_path_factory.mktemp("state") / "b"
    return runner.build([PROGRAM], CpuBackend(), work, Config()), work


def _run(built, tmp_path, *args):
    built = built[0]
    log = tmp_path / f"log{len(list(tmp_path.iterdir()))}.jsonl"
    r = built.backend.run(built.exe, args, env={Env.HIRACE_LOG: str(log)})
    assert r.returncode == 0, r.stderr
    got = logs.read(log, HIRACE_LOG, "hirace's log")
    report = collect(log, built.sites)
    races = sorted((x.site.line, x.prior_site.line if x.prior_site else None, x.variable, x.offset)
                   for x in report.races)
    return {b.name: b.checked for b in got["buffer"]}, races, got["end"][0], r.stdout


def test_buffers_no_launch_writes_keep_no_state_and_races_elsewhere_are_found(built, tmp_path):
    """`big` (4 MiB) is only read: it never gets a shadow nor slots (24 MiB at 4-byte words); `racy`'s
    race on cost[0] is reported with both its accesses."""
    checked, races, end, out = _run(built, tmp_path)
    assert out == "1\n"
    assert checked == {"&big": 0, "&out": 0, "&cost": 1, "&x": 0, "&y": 0, "&table": 0}
    assert races == [(17, 17, "cost", 0)]
    # every buffer checked (a launch that writes through a loaded pointer): big's shadow and slots more
    everything = _run(built, tmp_path, "loaded")[2]
    assert end.user_bytes == everything.user_bytes > 4 << 20
    assert everything.tool_bytes - end.tool_bytes >= 24 << 20


@pytest.mark.parametrize("what, line, variable", [
    ("loaded", 22, "x"),     # a write through a pointer the kernel loads: every buffer checked
    ("shifted", 27, "y"),    # a written argument into a redzone (y - 1): its writes may land anywhere
])
def test_a_launch_whose_writes_may_land_anywhere_checks_every_buffer(built, tmp_path, what, line, variable):
    checked, races, _, _ = _run(built, tmp_path, what)
    assert set(checked.values()) == {1}
    assert races == [(line, line, variable, 0)]


def test_the_launches_pass_what_their_kernels_write(built):
    text = "\n".join(p.read_text() for p in (built[1] / "src").rglob("buffer_state.cu*"))
    launches = [ln for ln in text.splitlines() if "before_launch(" in ln]
    assert launches, "no instrumented launch found"
    shift = next(ln for ln in launches if "(y - 1" in ln)
    assert "quiet_params({}, {::hirace::host::arg_address(y - 1)})" in shift
    through = next(ln for ln in launches if "(table" in ln)
    assert "quiet_params" not in through
