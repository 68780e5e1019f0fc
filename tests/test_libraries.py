"""Programs that use the toolkit's libraries (CUB, Thrust, libcu++): the parser finds them where
nvcc does, the checks reach what the user's code does with them, and the cpu backend refuses by
name what it cannot run. (tests/cuda/gpu_only holds the labelled CUB and Thrust programs, whose
verdicts the GPU corpus run checks: bench/hirace_gpu_corpus.py.)"""
from __future__ import annotations

import subprocess
import sys

import pytest

from hirace.config import Config
from hirace.planner import HiracePlanner
from instrument import pipeline
from instrument.parse import parse_file
from instrument.query import query
from instrument.toolchain import library_include_dirs

from conftest import CUDA, ROOT

pytestmark = pytest.mark.skipif(not library_include_dirs(), reason="no CUDA toolkit with CUB, Thrust and libcu++")
GPU_ONLY = CUDA / "gpu_only"


def test_cub_thrust_and_libcudacxx_programs_parse_and_name_their_libraries():
    unit = parse_file(GPU_ONLY / "cub_union_storage_race.cu")
    assert {(lib, header) for lib, header, _ in unit.library_includes} == {
        ("CUB", "cub/block/block_load.cuh"), ("CUB", "cub/block/block_scan.cuh")}
    thrust = query(parse_file(GPU_ONLY / "thrust_sort_ok.cu"))
    assert ("Thrust", "thrust::device_vector", "main") in {(lib, name, fn) for lib, name, _, fn in thrust.library_uses}
    assert query(parse_file(CUDA / "races" / "lib_atomic_object_ok.cu")).lib_atomics


def test_cub_primitives_are_found_with_the_storage_they_were_made_from():
    prog = query(parse_file(GPU_ONLY / "cub_union_storage_race.cu"))
    text = lambda sp: prog.unit.source(sp.file).text(sp.start, sp.end)   # noqa: E731
    assert [(c.cls, c.level, text(c.storage), c.span.line) for c in prog.collectives] == [
        ("BlockLoad", "block", "tmp.load", 10), ("BlockScan", "block", "tmp.scan", 11)]
    named = query(parse_file(GPU_ONLY / "cub_reduce_twice_race.cu"))   # `Reduce reduce(tmp); reduce.Sum(v)`
    assert [(c.cls, named.unit.source(c.storage.file).text(c.storage.start, c.storage.end)) for c in named.collectives] \
        == [("BlockReduce", "tmp"), ("BlockReduce", "tmp")]


def test_libcudacxx_atomics_are_atomic_sites_of_their_scope():
    prog = query(parse_file(CUDA / "races" / "lib_atomic_object_ok.cu"))
    text = lambda sp: prog.unit.source(sp.file).text(sp.start, sp.end)   # noqa: E731
    assert [(la.form, la.scope, la.use, la.name, text(la.span)) for la in prog.lib_atomics] == [
        ("object", "block", "write", "store", "seen"), ("object", "block", "rmw", "fetch_add", "seen"),
        ("object", "device", "rmw", "operator++", "hits"), ("object", "block", "read", "load", "seen"),
        ("pointer", "device", "read", "load", "h")]
    assert not [a for a in prog.accesses if a.text in ("seen", "hits")]   # (not plain accesses too)
    ref = query(parse_file(CUDA / "races" / "lib_atomic_ref_ok.cu"))
    assert [(la.form, la.use, la.name) for la in ref.lib_atomics] == [
        ("ref", "rmw", "operator+="), ("ref", "rmw", "operator++"), ("ref", "read", "load")]


@pytest.mark.parametrize("name, says", [
    ("cub_reduce_twice_race.cu", "cub_reduce_twice_race.cu:5:23: kernel k uses cub::BlockReduce: CUB runs on a GPU only"),
    ("thrust_sort_ok.cu", "thrust_sort_ok.cu:12:11: function main uses thrust::device_vector: Thrust runs on a GPU only")])
def test_the_cpu_backend_refuses_cub_and_thrust_by_function_and_line(name, says):
    res = subprocess.run([sys.executable, "-m", "hirace.cli", "run", "--backend", "cpu", str(GPU_ONLY / name)],
                         capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert res.returncode == 2 and says in res.stderr and "Traceback" not in res.stderr, res.stderr
    assert "use --backend gpu" in res.stderr


def test_instrumented_cub_and_libcudacxx_code_compiles_with_nvcc(tmp_path, nvcc):
    """The runtime's checks of TempStorage and of libcu++ atomics, in code nvcc compiles (the GPU
    runs them: bench/hirace_gpu_corpus.py)."""
    sources = [GPU_ONLY / "cub_union_storage_race.cu", CUDA / "races" / "lib_atomic_object_ok.cu"]
    for src in sources:
        out = tmp_path / src.stem
        planner = HiracePlanner(Config())
        ins = pipeline.instrument_sources([src], out, [planner], include_dirs=[CUDA / "races"])
        text = ins.sources[0].read_text()
        assert "::hirace::Collective(&(tmp.load)" in text or "::hirace::lib_block(&(seen)" in text, text[:2000]
        res = subprocess.run([str(nvcc), "-std=c++17", "-arch=sm_90", "-c", str(ins.sources[0]), "-o", str(out / "a.o"),
                              *[f"-I{d}" for d in ins.include_dirs], f"-I{ROOT / 'runtime' / 'include'}",
                              *[f"-D{d}" for d in pipeline.planned_defines([planner])]],
                             capture_output=True, text=True, timeout=600)
        assert res.returncode == 0, res.stderr[-3000:]
