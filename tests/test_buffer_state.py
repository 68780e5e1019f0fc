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


def writes(tmp_path, text: str, notes: dict | None = None, why: dict | None = None) -> dict[str, tuple[int, ...]]:
    src = tmp_path / "k.cu"
    src.write_text(text)
    prog = query(parse_file(src))
    found: dict = {}
    an = KernelFacts(prog)
    readonly_params(prog, an, {} if why is None else why, found)
    if notes is not None:
        notes.update(an.notes)
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
__global__ void remade(int *a, int **t) { int *p = a + 1; if (threadIdx.x) p = t[0]; p[threadIdx.x] = 1; }
__global__ void variable(int *a) { g[0] = a[0]; }
__global__ void calls(int *a) { put(a); }
__global__ void copies(int *a, const int *b) { memcpy(a, b, 8); }""")
    # (`made`'s p is `a` moved by a number: readonly_params.aliases; `remade`'s p may be a loaded pointer)
    assert got == {"only": (0, 1), "adds": (1,), "shared_only": (), "made": (0,)}


def test_writes_through_a_callee_leave_the_writes_unknown_and_a_moved_parameter_is_named(tmp_path):
    """A constructor the program defines, one of two device functions of one name (the call may be of
    either) and placement new write where the written arguments may not point: those kernels' writes are
    unknown (each was taken as writing only `a` before); a call of a function that writes nothing leaves
    them known. A written parameter the kernel moves is one of its writes, named as moved (its accesses are
    bounded by where the launch pointed it: planner._launch_bases)."""
    notes: dict = {}
    got = writes(tmp_path, """
#include <new>
struct Put { __device__ Put(int *p) { p[0] = 1; } };
struct V { int x; __device__ V(int v) : x(v) {} };
namespace x { __device__ void put(int *p, int v) { p[0] = v; } }
namespace y { __device__ int put(const int *p, int v) { return p[v]; } }
__global__ void constructs(int *a, int *b) { Put w(b); a[threadIdx.x] = 1; }
__global__ void overloaded(int *a, int *b) { x::put(b, 1); a[threadIdx.x] = 1; }
__global__ void placed(int *a, V *b) { new (&b[0]) V(1); a[threadIdx.x] = 1; }
__global__ void moved(int *a, const int *b, long off) { a += off; a[threadIdx.x] = b[0]; }
__device__ int get(const int *p, int v) { return p[v]; }
__global__ void reads(int *a, const int *b) { a[threadIdx.x] = get(b, 1); }""", notes)
    assert got == {"reads": (0,), "moved": (0,)}
    src = tmp_path / "m.cu"
    src.write_text("__global__ void moved(int *a, const int *b, long off) { a += off; a[threadIdx.x] = b[0]; }")
    prog = query(parse_file(src))
    found: dict = {}
    readonly_params(prog, KernelFacts(prog), {}, found)
    assert [w.moved for w in found.values()] == [("a",)]
    # (`*a = v` and `atomicAdd(a, 1)` through a moved a name no bound the launch's copy can give: unknown)
    src.write_text("__global__ void deref(int *a, long off) { a += off; *a = 1; }\n"
                   "__global__ void atom(int *a, long off) { a += off; atomicAdd(a, 1); }")
    prog = query(parse_file(src))
    found = {}
    readonly_params(prog, KernelFacts(prog), {}, found)
    assert found == {}


def test_a_destructor_that_writes_leaves_the_writes_unknown(tmp_path):
    """An object whose destructor writes, made in the kernel or in a device function it calls: the destructor
    runs where no call shows, and writes through what the object holds; one whose destructor writes nothing
    leaves the writes known."""
    why: dict = {}
    got = writes(tmp_path, """
struct Put { int *q; __device__ ~Put() { q[0] = 1; } };
struct Quiet { int v; __device__ ~Quiet() {} };
__device__ void scoped(int *c) { Put p{c}; }
__global__ void destroyed(int *a, int *b) { a[threadIdx.x] = 1; Put p{b}; }
__global__ void nested(int *a, int *c) { a[threadIdx.x] = 2; scoped(c); }
__global__ void harmless(int *a) { Quiet z{1}; a[threadIdx.x] = z.v; }""", why=why)
    assert got == {"harmless": (0,)}
    assert "destroyed by ~Put" in why["destroyed"] and "scoped" in why["nested"]


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
    """`big` (4 MiB) is only read: it never gets a shadow (8 MiB at 4-byte words); `racy`'s
    race on cost[0] is reported with both its accesses."""
    checked, races, end, out = _run(built, tmp_path)
    assert out == "1\n"
    assert checked == {"&big": 0, "&out": 0, "&cost": 1, "&x": 0, "&y": 0, "&table": 0}
    assert races == [(17, 17, "cost", 0)]
    # every buffer checked (a launch that writes through a loaded pointer): big's shadow more (its slots do
    # not fit the memory budget: host_site_budget.h)
    everything = _run(built, tmp_path, "loaded")[2]
    assert end.user_bytes == everything.user_bytes > 4 << 20
    assert everything.tool_bytes - end.tool_bytes >= 8 << 20


@pytest.mark.parametrize("what, line, variable", [
    ("loaded", 22, "x"),     # a write through a pointer the kernel loads: every buffer checked
    ("shifted", 27, "y"),    # a written argument into a redzone (y - 1): its writes may land anywhere
    ("made", 34, "y"),       # a write in a constructor the kernel calls
])
def test_a_launch_whose_writes_may_land_anywhere_checks_every_buffer(built, tmp_path, what, line, variable):
    checked, races, _, _ = _run(built, tmp_path, what)
    assert set(checked.values()) == {1}
    assert races == [(line, line, variable, 0)]


def test_a_written_parameter_moved_out_of_its_buffer_is_out_of_bounds_there(built, tmp_path):
    """`hop` moves p from x into y (p += y - x) and writes there: bounded by x, the buffer its launch argument
    points into, each write is reported out of bounds and diverted (not a race on y, as before: a launch's
    writes stay in the buffers its written arguments point into, which keeps its read-only arguments' reads
    quiet)."""
    built_, work = built
    log = tmp_path / "hop.jsonl"
    r = built_.backend.run(built_.exe, ["hop"], env={Env.HIRACE_LOG: str(log)})
    assert r.returncode == 0, r.stderr
    report = collect(log, built_.sites)
    assert not report.races
    assert {m.site.line for m in report.memory_errors} == {43}
    text = "\n".join(p.read_text() for p in (work / "src").rglob("buffer_state.cu*"))
    assert "auto *const __hirace_at_p = p;" in text


def test_a_launch_through_a_pointer_named_like_a_kernel_passes_what_the_pointed_kernel_writes(built, tmp_path):
    """`fill<<<...>>>` where `fill` is a pointer to `back`: back's written argument (y) gets its state, not
    the kernel fill's (x), and back runs, not fill's quiet version."""
    checked, races, _, out = _run(built, tmp_path, "named")
    assert checked["&y"] == 1
    assert races == [(51, 51, "y", 0)]
    assert out == "103\n"


def test_the_launches_pass_what_their_kernels_write(built):
    text = "\n".join(p.read_text() for p in (built[1] / "src").rglob("buffer_state.cu*"))
    launches = [ln for ln in text.splitlines() if "before_launch(" in ln]
    assert launches, "no instrumented launch found"
    shift = next(ln for ln in launches if "(y - 1" in ln)
    assert "quiet_params({}, {::hirace::host::arg_address(y - 1)})" in shift
    through = next(ln for ln in launches if "(table" in ln)
    assert "quiet_params" not in through
    named = next(ln for ln in launches if "fill<<<" in ln or "(fill)" in ln)   # (a pointer named like a kernel)
    assert "quiet_params" not in named and "quiet_version" not in named


def test_a_launch_passes_its_kernels_writes_only_where_it_resolves_to_that_kernel(tmp_path):
    """`k` declared here and defined in another unit, beside a namespace's `k` defined here: its launch
    passes nothing of q::k's (neither what q::k writes nor its quiet version); q::k's own launch does."""
    src = tmp_path / "b.cu"
    src.write_text("""namespace q {
__global__ void k(int *a, const int *b) { a[threadIdx.x] = b[threadIdx.x]; }
}
__global__ void k(int *a, int *b);
void run(int *x, int *y) {
  k<<<1, 32>>>(x, y);
  q::k<<<1, 32>>>(x, y);
}
""")
    ins = runner.instrument([src], tmp_path / "out", Config(), lower_cpu=True)
    text = ins.sources[0].read_text()
    launches = [ln for ln in text.splitlines() if "before_launch(" in ln]
    [declared] = [ln for ln in launches if "(const void *)(k)" in ln]
    [defined] = [ln for ln in launches if "(const void *)(q::k)" in ln]
    assert "quiet_params" not in declared and "quiet_version" not in declared and "__hirace_q" not in declared
    assert "quiet_params({::hirace::host::arg_address(y), ::hirace::host::arg_address(x)}, " \
           "{::hirace::host::arg_address(x)}, " in defined and "q::k__hirace_q" in defined
