"""Writes that no call and no variable of the access shows: through a pointer loaded from an array of
pointers (instrument/frontend/query.py `_root`: the access lands where the loaded pointer points, not in
the array), and in the destructor of an object that goes out of scope (query.py `destroyed_by`: the call
the syntax tree does not show, for the instrumented functions, the planner's writes and the barrier
intervals, hirace/proofs/intervals.py `destroyed_effects`). Each missed its race before."""
from __future__ import annotations

import pytest
from conftest import CUDA

from hirace import runner
from hirace.config import Config
from hirace.results import collect
from instrument import logs
from instrument.backends.cpu import CpuBackend
from instrument.frontend.parse import parse_file
from instrument.frontend.query import query
from instrument.protocol import HIRACE_LOG, Env

PROGRAM = CUDA / "engine" / "hidden_writes.cu"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return runner.build([PROGRAM], CpuBackend(), tmp_path_factory.mktemp("hidden") / "b", Config())


@pytest.mark.parametrize("what, line, variable", [
    ("pointers", 16, "b"),    # p[1][0] of `int *p[2] = {a, b}`
    ("destroyed", 11, "b"),   # ~Put, for the kernel's own object
    ("nested", 11, "c"),      # ~Put, for a device function's object
    ("templated", 22, "b"),   # ~PutT<T>, for an object of a class template's implicit instantiation
])
def test_writes_no_call_or_variable_shows_are_checked(built, tmp_path, what, line, variable):
    log = tmp_path / "log.jsonl"
    r = built.backend.run(built.exe, [what], env={Env.HIRACE_LOG: str(log)})
    assert r.returncode == 0, r.stderr
    races = [(x.site.line, x.variable, x.offset) for x in collect(log, built.sites).races]
    assert races == [(line, variable, 0)]
    checked = {b.name: b.checked for b in logs.read(log, HIRACE_LOG, "hirace's log")["buffer"]}
    assert checked["&" + variable] == 1


def test_an_access_through_a_loaded_pointer_is_not_the_arrays_own(tmp_path):
    """Only the array's own elements are private (or shared, or global): what a pointer loaded from it
    points to is reached through a pointer; the address of an element is still the array's."""
    src = tmp_path / "k.cu"
    src.write_text("""struct S { int *d; };
__global__ void k(int *a, int *b) {
  __shared__ int *sp[2];
  int *p[2] = {a, b};
  int local[4] = {0, 1, 2, 3};
  S s{b};
  p[1][0] = 1;
  *p[0] = 2;
  sp[0][1] = 3;
  s.d[2] = 4;
  (&local[1])[0] = 5;
  local[2] = p[0][1];
}
""")
    got = [(a.text, a.kind, a.space, a.base) for a in query(parse_file(src)).accesses]
    assert got == [("p[1][0]", "write", "pointer", ""), ("*p[0]", "write", "pointer", ""),
                   ("sp[0][1]", "write", "pointer", ""), ("sp[0]", "read", "shared", "sp"),
                   ("s.d[2]", "write", "pointer", ""), ("p[0][1]", "read", "pointer", "")]
