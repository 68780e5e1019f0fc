"""The cpu backend's precompiled emulation header (instrument/compile/pch.py): made on a group's second
build, used where everything that decides the header's meaning agrees, never where it may not, and a
program built with it is the program built without it, byte for byte."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import pytest

from conftest import ROOT
from instrument import protocol
from instrument.backends.base import BuildRequest
from instrument.backends.cpu import CpuBackend
from instrument.compile import pch

pytestmark = pytest.mark.skipif(not shutil.which("g++"), reason="the precompiled header is gcc's")

HEADER = """#include <cstdio>
#include "part.h"
#ifndef WIDTH
#define WIDTH 4
#endif
inline int width() { return WIDTH * PART; }
"""
MAIN = '#include <cstdio>\nint main() { std::printf("%d %d\\n", width(), SITES); }\n'


@pytest.fixture
def small(tmp_path, monkeypatch):
    """A header of our own (it reads part.h and <cstdio>), a cache of this test's, and a build that
    includes it first as the cpu backend includes cudaemu.h: build(defines, dirs) -> (output, Use)."""
    monkeypatch.setenv(pch.ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(pch, "SLACK_NS", 0)   # (the header was written just now)
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "h.h").write_text(HEADER)
    (inc / "part.h").write_text("#define PART 10\n")
    (tmp_path / "m.cc").write_text(MAIN)
    options = ["-O1", "-std=c++17", "-w"]

    def build(defines=("SITES=3",), dirs=()):
        used = pch.use(inc / "h.h", "g++", options, dirs, defines)
        header = used.header if used else inc / "h.h"
        cmd = ["g++", *options, "-include", str(header), *(f"-I{d}" for d in dirs),
               *(f"-D{d}" for d in defines), str(tmp_path / "m.cc"), "-o", str(tmp_path / "m"), "-H"]
        res = subprocess.run(cmd, capture_output=True, text=True)
        assert res.returncode == 0, res.stderr
        read_gch = bool(re.search(r"^! .*h\.h\.gch$", res.stderr, re.M))   # (-H: "!" a precompiled header read)
        assert read_gch == (used is not None), res.stderr
        out = subprocess.run([str(tmp_path / "m")], capture_output=True, text=True).stdout
        return out, used
    return inc, build


def entries(cache):
    return sorted(p.parent for p in cache.rglob(pch.ENTRY))


def test_the_second_build_of_a_group_makes_the_entry_and_macros_the_header_never_names_share_it(small, tmp_path,
                                                                                                 monkeypatch):
    inc, build = small
    assert build() == ("40 3\n", None)                       # the first: as it always was
    assert entries(tmp_path / "cache") == []
    out, used = build(("SITES=5",))                           # the second makes it, and reads it
    assert out == "40 5\n" and used is not None
    [entry] = entries(tmp_path / "cache")
    record = json.loads((entry / pch.ENTRY).read_text())
    assert record["defines"] == [] and str(inc / "part.h") in {f for f, _ in record["files"]}
    assert build(("SITES=7",)) == ("40 7\n", used)            # SITES: a macro the header never names
    monkeypatch.chdir(inc)
    assert build(("SITES=8",)) == ("40 8\n", used)            # (and from another directory)
    assert build(("SITES=7", "WIDTH=2"))[0] == "20 7\n"       # WIDTH it tests: an entry of its own
    assert len(entries(tmp_path / "cache")) == 2
    assert build(("SITES=1", "WIDTH=2"))[1].header.parent != used.header.parent


def test_an_edited_file_the_header_read_is_another_entry(small, tmp_path):
    inc, build = small
    build()
    build()
    (inc / "part.h").write_text("#define PART 100\n")
    out, used = build()
    assert out == "400 3\n" and used is not None              # made again, from the new text
    assert len(entries(tmp_path / "cache")) == 1              # (the stale one removed)


def test_an_include_directory_that_could_shadow_a_file_the_header_read_builds_without_it(small, tmp_path):
    _, build = small
    build()
    build()
    mine = tmp_path / "mine"
    mine.mkdir()
    assert build(dirs=[mine])[1] is not None                  # nothing in it is named as the header's files
    (mine / "cstdio").write_text("#include_next <cstdio>\n#define SHADOWED 1\n")   # found before the system's
    assert build(dirs=[mine]) == ("40 3\n", None)


def test_a_macro_pasted_together_is_checked_by_gcc_itself(small, tmp_path):
    """The header's files never spell VALUE, so the entry is made without it; gcc refuses the .gch of a
    build that defines it (the build reads the header itself), and the output is the header's own."""
    inc, build = small
    (inc / "part.h").write_text("#define CAT(a, b) a##b\n#if CAT(VAL, UE)\n#define PART 1\n#else\n#define PART 2\n#endif\n")
    build()
    assert build()[0] == "8 3\n"
    used = pch.use(inc / "h.h", "g++", ["-O1", "-std=c++17", "-w"], [], ["VALUE=1"])
    assert used is not None   # (by our key: the same entry; gcc decides)
    res = subprocess.run(["g++", "-O1", "-std=c++17", "-Winvalid-pch", "-include", str(used.header), "-DVALUE=1",
                          "-DSITES=0", str(tmp_path / "m.cc"), "-o", str(tmp_path / "m")], capture_output=True, text=True)
    assert res.returncode == 0 and "not used because `VALUE' is defined" in res.stderr, res.stderr
    assert subprocess.run([str(tmp_path / "m")], capture_output=True, text=True).stdout == "4 0\n"


def test_no_cache_another_users_folder_or_a_code_injecting_option_builds_without_it(small, tmp_path, monkeypatch):
    inc, build = small
    build()
    build()
    assert pch.use(inc / "h.h", "g++", ["-O1", "-std=c++17", "-w"], [], ["SITES=1"]) is not None
    assert pch.use(inc / "h.h", "g++", ["-O1", "-std=c++17", "-w"], [], [], ["-include", "x.h"]) is None
    monkeypatch.setenv(pch.ENV, "off")
    assert pch.use(inc / "h.h", "g++", ["-O1", "-std=c++17", "-w"], [], ["SITES=1"]) is None
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o777)
    shared.chmod(0o777)
    monkeypatch.setenv(pch.ENV, str(shared))
    assert pch.use(inc / "h.h", "g++", ["-O1", "-std=c++17", "-w"], [], ["SITES=1"]) is None


def test_an_entry_being_made_elsewhere_is_not_waited_for(small, tmp_path):
    import fcntl
    inc, build = small
    build()
    [group] = [p for p in (tmp_path / "cache").iterdir() if p.is_dir()]
    with open(group / ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        assert build()[1] is None                             # another build holds the lock: without it
    assert build()[1] is not None


def test_the_emulation_header_names_no_tool_macro(tmp_path):
    """What lets one precompiled emulation header serve every program: the files cudaemu.h reads name
    none of the tools' build macros (their defaults are protocol.h's, not protocol_core.h's), so a
    planner's -D values (site counts, coverage items) never make another entry."""
    req = BuildRequest([tmp_path / "x.cu"], tmp_path / "x")
    head, search, tail = CpuBackend()._options(req)
    res = subprocess.run(["g++", *head, *search, *tail, "-M", "-x", "c++-header", str(CpuBackend.emulation_header())],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    from instrument.compile.build_cache import read_dependencies
    files = [os.path.normpath(f) for f in read_dependencies(res.stdout)]
    assert str(ROOT / "runtime" / "include" / "cudacommon" / "protocol_core.h") in files
    named = pch._names(files)
    tools = {m.value for m in protocol.Macro if not protocol.MACROS[m].runtime.startswith("cudaemu/")}
    assert tools and not named & tools, named & tools
    assert "CUDAEMU_GRAPHS" in named


@pytest.mark.parametrize("umbrella", ["hirace/host.h", "cltc/coverage.h", "cltc/mutate.h", "cltc/schedule.h",
                                      "cltc/search.h"])
def test_every_tool_macro_is_defined_where_a_runtime_header_reads_it(umbrella, tmp_path):
    """On the cpu backend the tools' macros get their defaults where the tools include protocol.h (as
    on a GPU), no longer from the emulation header: no runtime header reads one before."""
    src = tmp_path / "u.cu"
    src.write_text(f'#include "{umbrella}"\nint main() {{ return 0; }}\n')
    req = BuildRequest([src], tmp_path / "u")
    cmd = [c for c in CpuBackend().compile_command(req) if c != "-w"]
    cmd = cmd[:cmd.index("-o")] + ["-fsyntax-only", "-Wundef"]
    res = subprocess.run(cmd, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-3000:]
    undefined = set(re.findall(r'"(\w+)" is not defined', res.stderr))
    assert not undefined & {m.value for m in protocol.Macro}, undefined


PROGRAM = r"""#include <cstdio>
__global__ void add(int *a) { atomicAdd(&a[threadIdx.x % 4], (int)threadIdx.x); }
int main() {
  int *d, h[4];
  cudaMalloc(&d, sizeof h);
  cudaMemset(d, 0, sizeof h);
  add<<<2, 64>>>(d);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("%d %d %d %d\n", h[0], h[1], h[2], h[3]);
  return 0;
}
"""


def test_a_program_built_with_the_precompiled_emulation_header_is_the_same_program(tmp_path, monkeypatch):
    monkeypatch.setenv(pch.ENV, str(tmp_path / "cache"))
    from instrument.compile.pipeline import instrument_sources
    src = tmp_path / "p.cu"
    src.write_text(PROGRAM)
    ins = instrument_sources([src], tmp_path / "lowered", lower_cpu=True)
    backend = CpuBackend()
    req = BuildRequest(ins.sources, tmp_path / "out" / "p", ins.include_dirs, ["CUDAEMU_GRAPHS=0"],
                       depfile=tmp_path / "deps.d")
    plain = backend.build(req).read_bytes()                  # the group's first build: without it
    assert entries(tmp_path / "cache") == []
    assert backend.build(req).read_bytes() == plain          # the second: with it, the same bytes
    [entry] = entries(tmp_path / "cache")
    assert json.loads((entry / pch.ENTRY).read_text())["defines"] == ["CUDAEMU_GRAPHS=0"]
    run = subprocess.run([str(tmp_path / "out" / "p")], capture_output=True, text=True)
    assert run.stdout == "960 992 1024 1056\n"
    # a build's dependency output names what the precompiled header read (build_cache.py records them)
    assert str(ROOT / "runtime" / "include" / "cudaemu" / "scheduler.h") in tmp_path.joinpath("deps.d").read_text()
