"""instrument/readonly_params.py: the pointer parameters a kernel only reads through, and the
launches where hirace may check only the bounds of those reads."""
from __future__ import annotations

import json

import pytest

from conftest import CUDA
from instrument.parse import parse_file
from instrument.query import query
from instrument.readonly_params import readonly_params

HEAD = "#include <cuda_runtime.h>\n__device__ int flag;\n"


def params(tmp_path, body: str) -> dict[str, tuple[list[str], list[str]]]:
    src = tmp_path / "k.cu"
    src.write_text(HEAD + body)
    found = readonly_params(query(parse_file(src)))
    return {kp.kernel.name: ([kp.kernel.params[i] for i in kp.candidates], [kp.kernel.params[i] for i in kp.written])
            for kp in found.values()}


def test_parameters_read_through_and_never_written_are_candidates(tmp_path):
    assert params(tmp_path, """
__device__ float twice(float v) { return 2 * v; }
__global__ void spmv(const int *row, const int *col, const float *val, const float *x, float *y, int *hits,
                     float *total) {
  int r = threadIdx.x;
  float acc = 0;
  for (int e = row[r]; e < row[r + 1]; ++e) acc += twice(val[e]) * x[col[e]];
  y[r] = acc;
  atomicAdd(&hits[0], 1);
  atomicAdd(total, acc);
}""") == {"spmv": (["row", "col", "val", "x"], ["y", "hits", "total"])}


@pytest.mark.parametrize("code", [
    "int *p = out; p[0] = 1;",          # through a pointer the kernel made
    "flag = 1;",                        # a __device__ variable: a parameter may point to it
    "put(out);",                        # a device function that writes
    "asm volatile(\"membar.gl;\");",
])
def test_a_kernel_that_writes_anywhere_but_through_its_parameters_has_none(tmp_path, code):
    assert params(tmp_path, """
__device__ void put(int *p) { p[1] = 2; }
__global__ void k(const int *in, int *out) {
  out[threadIdx.x] = in[threadIdx.x];
  %s
}""" % code) == {}


def test_a_parameter_the_kernel_changes_or_writes_is_no_candidate(tmp_path):
    assert params(tmp_path, """
__global__ void k(const int *a, const int *b, int *c, int *d) {
  a += 1;
  c[threadIdx.x] = a[0] + b[0] + d[0];
  d[1] = 0;
}""") == {"k": (["b"], ["c", "d"])}


def test_launches_pass_their_arguments_only_when_they_can_be_evaluated_again(run_cli, tmp_path):
    src = tmp_path / "p.cu"
    src.write_text("""
__global__ void k(const int *in, int *out) { out[threadIdx.x] = in[threadIdx.x]; }
int *pick(int *p) { return p; }
#define PICKED pick(a)
int main() {
  int *a, *b;
  cudaMalloc(&a, 256); cudaMalloc(&b, 256);
  k<<<1, 32>>>(a + 8, b);
  k<<<1, 32>>>(pick(a), b);
  k<<<1, 32>>>(PICKED, b);
  return 0;
}""")
    r = run_cli("hirace.cli", "instrument", "-o", tmp_path / "i", src)
    assert r.returncode == 0, r.stderr
    text = (tmp_path / "i" / "p.cu").read_text()
    assert "::hirace::rd_param(&(in[threadIdx.x]), 1u, in, 0u)" in text
    assert text.count("::hirace::host::quiet_params(") == 1
    assert "quiet_params({::hirace::host::arg_address(a + 8)}, {::hirace::host::arg_address(b)})" in text


@pytest.mark.parametrize("flag", ["--quiet-reads", "--no-quiet-reads"])
def test_a_read_only_parameter_is_checked_when_a_written_one_shares_its_buffer(run_cli, tmp_path, flag):
    """engine/readonly_params.cu: no race while `in` and `out` point to different buffers; the race
    of the launch passing one buffer as both is found; the read past the end is reported."""
    out = tmp_path / "r.json"
    r = run_cli("hirace.cli", "run", "--backend", "cpu", flag, "--format", "json", "--output", out,
                CUDA / "engine" / "readonly_params.cu")
    assert r.returncode == 1 and r.stdout == "done\n", r.stderr
    doc = json.loads(out.read_text())
    assert [(x["launch"], x["site"]["line"], x["kind"]) for x in doc["races"]] == [(1, 9, "read-write")]
    assert [(m["launch"], m["site"]["line"], m["offset"]) for m in doc["memory_errors"]] == [(0, 9, 256), (2, 9, 256)]
