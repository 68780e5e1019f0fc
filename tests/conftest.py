"""Fixtures: paths to our CUDA sources, building and running programs on the cpu backend."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from instrument import pipeline
from instrument.backends.cpu import CpuBackend
from instrument.parse import parse_file
from instrument.query import query

TESTS = Path(__file__).resolve().parent
CUDA = TESTS / "cuda"
ROOT = TESTS.parent


@pytest.fixture
def cuda_dir() -> Path:
    return CUDA


@pytest.fixture
def program():
    """program('engine/mixed.cu') -> the query layer's Program for that file."""
    def load(rel: str, **kw):
        return query(parse_file(CUDA / rel, **kw))
    return load


@pytest.fixture
def cpu_build(tmp_path):
    """cpu_build(['corpus/x.cu'], planners=[...]) -> BuiltProgram on the cpu backend."""
    def build(rels, planners=(), **kw):
        srcs = [CUDA / r for r in ([rels] if isinstance(rels, str) else rels)]
        return pipeline.build(srcs, CpuBackend(), tmp_path / "build", planners=list(planners), **kw)
    return build


@pytest.fixture
def run_cli():
    """run_cli('instrument.run', args...) -> CompletedProcess of `python -m MODULE args`."""
    def run(module: str, *args, timeout=300, env=None):
        import os
        e = dict(os.environ, **(env or {}))
        return subprocess.run([sys.executable, "-m", module, *map(str, args)], capture_output=True,
                              text=True, timeout=timeout, cwd=ROOT, env=e)
    return run


def nvcc_or_skip():
    from instrument.toolchain import nvcc_path
    if nvcc_path() is None:
        pytest.skip("nvcc not found: the CUDA toolkit is needed to check that instrumented code compiles")
    return nvcc_path()


def have(tool: str) -> bool:
    return shutil.which(tool) is not None
