"""hirace run's build cache (instrument/compile/build_cache.py): an unchanged program is not compiled
again and gives the same report; an edited header is compiled again, a damaged entry is rebuilt
(those with a fake compiler: one real build in all)."""
from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from instrument.backends.base import Backend, BuildRequest
from instrument.compile import build_cache, pipeline

PROGRAM = r"""#include <cstdio>
#include "scale.h"
__global__ void racy(int *out) {
    __shared__ int s;
    s = threadIdx.x;            // every thread writes s before the barrier: a race
    __syncthreads();
    if (threadIdx.x == 0) out[0] = s * SCALE;
}
int main() {
    int *d;
    cudaMalloc(&d, sizeof(int));
    racy<<<1, 32>>>(d);
    cudaDeviceSynchronize();
    printf("scale %d\n", SCALE);
    return 0;
}
"""


def test_an_unchanged_program_is_not_compiled_again(tmp_path, run_cli):
    if not shutil.which("g++"):
        pytest.skip("the cpu backend needs g++")
    (tmp_path / "scale.h").write_text("#define SCALE 2\n")
    (tmp_path / "racy.cu").write_text(PROGRAM)
    calls = tmp_path / "compiler-calls"
    cxx = tmp_path / "counting-g++"   # the compiler the cpu backend runs ($CXX), counting its calls
    cxx.write_text(f"#!/bin/sh\necho x >> '{calls}'\nexec '{shutil.which('g++')}' \"$@\"\n")
    cxx.chmod(0o755)
    env = {"CXX": str(cxx), "CCTK_BUILD_CACHE": str(tmp_path / "cache")}

    def run(n: int):
        res = run_cli("hirace.cli", "run", "--backend", "cpu", "-v", "--no-github", "--format", "json", "--output",
                      tmp_path / f"r{n}.json", tmp_path / "racy.cu", env=env, cwd=tmp_path)
        compiled = len(calls.read_text().splitlines()) if calls.exists() else 0
        return res, json.loads((tmp_path / f"r{n}.json").read_text()), compiled

    first, report1, compiled = run(1)
    assert first.returncode == 1 and compiled == 1 and "build: compiled" in first.stderr, first.stderr
    second, report2, compiled = run(2)
    assert compiled == 1, "the second run compiled again"
    assert "build: cached" in second.stderr and "$ " not in second.stderr
    assert (second.returncode, second.stdout, report2) == (first.returncode, first.stdout, report1)
    assert report2["races"] and first.stdout == "scale 2\n"
    assert not list((tmp_path / "cache").glob(".build-*"))   # nothing half-made left in the cache


# ---------------------------------------------------------------- the cache itself, with a fake compiler

class Fake(Backend):
    """A backend whose 'compiler' writes the bytes of the files it reads, and lists them as gcc does
    in SUNPRO_DEPENDENCIES."""
    name = "fake"

    def __init__(self, reads: list[Path], during=None):
        self.reads, self.during, self.builds = reads, during, 0

    def build(self, req: BuildRequest) -> Path:
        self.builds += 1
        if self.during:
            self.during()
        Path(req.output).write_bytes(b"".join(p.read_bytes() for p in [*req.sources, *self.reads]))
        if req.depfile:
            with open(req.depfile, "a") as f:
                f.write("prog.o: " + " \\\n ".join(str(p).replace(" ", "\\ ") for p in self.reads) + "\n")
        return req.output


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv(build_cache.ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(build_cache, "SLACK_NS", 0)   # (the test's files were written just now)
    header = tmp_path / "dir with space" / "k.h"
    header.parent.mkdir()
    header.write_text("one")
    src = tmp_path / "src.cu"
    src.write_text("source")

    def build(backend):
        work = tmp_path / f"work{time.monotonic_ns()}"   # (another scratch folder each run, as hirace's)
        work.mkdir()
        req = BuildRequest([src], work / "prog")
        hit, note = build_cache.build(backend, req, work)
        return hit, note, (work / "prog").read_bytes()
    return header, build


def test_a_hit_needs_every_file_the_compiler_read_unchanged(cache):
    header, build = cache
    fake = Fake([header])
    assert build(fake) == (False, "", b"sourceone") and fake.builds == 1
    assert build(fake) == (True, "", b"sourceone") and fake.builds == 1
    header.write_text("two")
    assert build(fake) == (False, "", b"sourcetwo") and fake.builds == 2
    header.write_text("one")   # (both versions are kept)
    assert build(fake) == (True, "", b"sourceone") and fake.builds == 2


def test_a_rebuilt_library_the_link_reads_is_another_build(cache, tmp_path):
    """The compiler's dependency output names no library: a -lNAME found in a -L directory, or a
    library given as a path, is in the key (a rebuilt one is not an old program's)."""
    header, _ = cache
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "libfoo.a").write_bytes(b"v1")
    (tmp_path / "bar.a").write_bytes(b"v1")
    src = tmp_path / "src.cu"
    fake = Fake([header])

    def build(n):
        work = tmp_path / f"lw{n}"
        work.mkdir()
        req = BuildRequest([src], work / "prog", flags=[f"-L{lib}", "-lfoo", str(tmp_path / "bar.a")])
        return build_cache.build(fake, req, work)[0]
    assert (build(1), build(2)) == (False, True)
    (lib / "libfoo.a").write_bytes(b"v2")
    assert (build(3), build(4)) == (False, True)
    (tmp_path / "bar.a").write_bytes(b"v2")
    assert build(5) is False and fake.builds == 3


def test_a_damaged_entry_is_ignored_and_rebuilt(cache, tmp_path):
    header, build = cache
    fake = Fake([header])
    build(fake)
    [entry] = (tmp_path / "cache").glob("*/*")
    (entry / build_cache.OUTPUT).write_bytes(b"sourc")   # truncated
    assert build(fake) == (False, "", b"sourceone") and fake.builds == 2
    assert build(fake)[0] and fake.builds == 2
    (entry / build_cache.RECORD).write_text("{not json")
    assert build(fake) == (False, "", b"sourceone") and fake.builds == 3
    assert build(fake)[0]


def test_a_file_changed_during_the_build_keeps_it_out_of_the_cache(cache):
    header, build = cache
    def edit():
        time.sleep(0.05)   # (past the coarse clock that file times keep)
        header.write_text("edited during the build")
    fake = Fake([header], during=edit)
    hit, note, _ = build(fake)
    assert not hit and "changed during the build" in note
    fake.during = None
    assert build(fake)[0] is False and fake.builds == 2   # (nothing was kept: built again, now kept)
    assert build(fake)[0] is True


def test_an_edited_header_of_the_instrumented_tree_is_another_build(cache, tmp_path):
    """A header the sources include is copied into the build's tree (instrumented, lowered for the
    cpu backend): its bytes are in the key."""
    outside, _ = cache
    (tmp_path / "scale.h").write_text("#define SCALE 2\n")
    (tmp_path / "racy.cu").write_text(PROGRAM)
    fake = Fake([outside])
    fake.needs_lowering = True

    def build(n: int):
        built = pipeline.build([tmp_path / "racy.cu"], fake, tmp_path / f"w{n}", cache=True)
        return built.cached, (built.work_dir / "src" / "scale.h").read_text().splitlines()[-1]

    assert build(1) == (False, "#define SCALE 2") and build(2) == (True, "#define SCALE 2")
    (tmp_path / "scale.h").write_text("#define SCALE 3\n")
    assert build(3) == (False, "#define SCALE 3") and fake.builds == 2


def test_the_least_recently_used_entries_and_stale_leftovers_go(cache, tmp_path, monkeypatch):
    header, build = cache
    monkeypatch.setattr(build_cache, "MAX_ENTRIES", 2)
    stale = tmp_path / "cache" / ".build-killed"
    stale.mkdir(parents=True)
    os.utime(stale, (time.time() - 2 * 86400,) * 2)
    fake = Fake([header])
    for version in ("one", "two", "one", "three"):   # (the hit on "one" makes "two" the least recently used)
        header.write_text(version)
        build(fake)
        time.sleep(0.01)
    assert fake.builds == 3 and len(list((tmp_path / "cache").glob("*/*"))) == 2 and not stale.exists()
    header.write_text("one")
    assert build(fake)[0] and fake.builds == 3
    header.write_text("two")
    assert not build(fake)[0] and fake.builds == 4


def test_off_builds_every_time(cache, monkeypatch):
    header, build = cache
    monkeypatch.setenv(build_cache.ENV, "off")
    fake = Fake([header])
    build(fake)
    assert build(fake)[:2] == (False, f"{build_cache.ENV}=off") and fake.builds == 2


def test_the_first_run_to_publish_an_entry_keeps_it(tmp_path):
    root = tmp_path / "cache"
    root.mkdir()
    done = root / "entry"
    for content in ("first", "second"):
        with build_cache.staging(root) as tmp:
            (tmp / "output").write_text(content)
            published = build_cache.publish(tmp, done)
        assert published == (content == "first")
    assert (done / "output").read_text() == "first" and os.listdir(root) == ["entry"]


def test_dependency_output_as_gcc_and_nvcc_write_it():
    text = ("a.o: /usr/include/stdio.h /p/with\\ space.h \\\n /p/hash\\#.h /p/dollar$$.h\n"
            "tmpxft_1.o: /usr/include/stdio.h\n"
            "b.o: \\\n rel.h /usr/include/stdio.h\n")
    assert build_cache.read_dependencies(text) == ["/usr/include/stdio.h", "/p/with space.h", "/p/hash#.h",
                                                   "/p/dollar$.h", "rel.h"]
