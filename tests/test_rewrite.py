import subprocess

import pytest

from instrument.errors import RewriteConflict, UserError
from instrument.frontend.parse import Span, parse_file
from instrument.compile.pipeline import instrument_sources
from instrument.frontend.query import query
from instrument.frontend.rewrite import Edit, EditPlan, apply

from conftest import CUDA
from probe_planner import probe_planner

ALL_SOURCES = sorted(p for p in CUDA.rglob("*.cu") if p.name != "syntax_error.cu")


def sp(start, end, f="f.cu"):
    return Span(f, start, end, 1, start + 1)


def test_empty_plan_round_trips_every_source_byte_for_byte():
    for path in ALL_SOURCES:
        data = path.read_bytes()
        assert apply(data, [], str(path)) == data, path


def test_nested_wraps_compose():
    src = b"x = a[b[i]];"
    plan = EditPlan()
    plan.wrap(sp(4, 11), "R(", ")", "outer")
    plan.wrap(sp(6, 10), "R(", ")", "inner")
    plan.wrap(sp(0, 11), "W(", ")", "whole")
    assert apply(src, plan.edits, "f.cu") == b"W(x = R(a[R(b[i])]));"


def test_overlapping_replacements_are_refused():
    with pytest.raises(RewriteConflict, match="overlapping edits: one and two"):
        apply(b"abcdef", [Edit("f", 0, 3, "X", "one"), Edit("f", 2, 5, "Y", "two")], "f")


def test_insertion_inside_replacement_is_refused():
    with pytest.raises(RewriteConflict, match="inside a replaced range"):
        apply(b"abcdef", [Edit("f", 0, 4, "X", "rep"), Edit("f", 2, 2, "Y", "ins")], "f")


def test_adjacent_edits_are_fine():
    out = apply(b"abcdef", [Edit("f", 0, 2, "X", "a"), Edit("f", 2, 4, "Y", "b"),
                            Edit("f", 4, 4, "!", "c")], "f")
    assert out == b"XY!ef"


def test_edits_in_macro_expansions_are_skipped_with_a_warning():
    unit = parse_file(CUDA / "engine" / "macros.cu")
    prog = query(unit)
    plan = EditPlan(unit)
    for a in prog.accesses:
        plan.wrap(a.span, "(", ")", f"access {a.text}")
    assert len(plan.warnings) == 1
    assert "macros.cu:5:20: not instrumented: access AT(a, threadIdx.x) lies in an expansion " \
           "of macro 'AT'" in plan.warnings[0]
    assert len(plan.edits) == 2 * (len(prog.accesses) - 1)


def test_multiline_insertions_keep_line_numbers(tmp_path):
    src = b"int a;\nint b = __LINE__;\n"
    out = apply(src, [Edit("f", 7, 7, "// two\n// lines\n", "ins")], "orig.cu", prelude=["// pre"])
    f = tmp_path / "x.cpp"
    f.write_bytes(out + b"int c = __LINE__;\nconst char *n = __FILE__;\n")
    pre = subprocess.run(["g++", "-E", "-P", str(f)], capture_output=True, text=True, check=True)
    assert "int b = 2;" in pre.stdout
    assert 'const char *n = "orig.cu"' in pre.stdout


def test_replacement_that_swallows_lines_resynchronises(tmp_path):
    src = b"int a = f(1,\n  2);\nint b = __LINE__;\n"
    out = apply(src, [Edit("f", 8, 18, "g()", "rep")], "orig.cu")
    f = tmp_path / "x.cpp"
    f.write_bytes(out)
    pre = subprocess.run(["g++", "-E", "-P", str(f)], capture_output=True, text=True, check=True)
    assert "int b = 3;" in pre.stdout


def test_compile_errors_point_at_the_original_line(tmp_path):
    src = tmp_path / "orig.cu"
    src.write_text("__global__ void k(int *a) {\n\n  a[0] = 1;\n}\n")

    def planner(prog, plan):   # wraps with a function the compiler has never seen
        plan.add_prelude(prog.unit.main, "// one\n// two\n")
        for a in prog.accesses:
            plan.wrap(a.span, "(*undeclared_probe(&(", ")))", "probe")
    instrumented = instrument_sources([src], tmp_path / "out", [planner])
    [new] = instrumented.sources
    r = subprocess.run(["g++", "-fsyntax-only", "-x", "c++", "-D__global__=", str(new)],
                       capture_output=True, text=True)
    assert f"{src}:3:" in r.stderr and "undeclared_probe" in r.stderr, r.stderr


def test_user_sources_are_never_modified(tmp_path):
    before = {p: p.read_bytes() for p in ALL_SOURCES}
    with pytest.raises(UserError, match="refusing to replace .*engine: it exists and was not written by this tool"):
        instrument_sources([CUDA / "engine" / "mixed.cu"], CUDA / "engine", [probe_planner])
    assert {p: p.read_bytes() for p in ALL_SOURCES} == before


@pytest.mark.parametrize("path", ALL_SOURCES, ids=lambda p: str(p.relative_to(CUDA)))
def test_instrumented_sources_reparse_and_compile_with_nvcc(path, tmp_path, request):
    instrumented = instrument_sources([path], tmp_path / "out", [probe_planner])
    new_srcs, incs, progs = instrumented.sources, instrumented.include_dirs, instrumented.programs
    prog = progs[0]
    assert not prog.kernels or prog.accesses or prog.barriers or prog.atomics or prog.lib_atomics   # a kernel does something
    reach = prog.device_reachable()   # every access the probe planned was applied (inside a macro's
    planned = sum(a.span.file == str(path) and a.function in reach and a.form in ("lvalue", "call")   # body an edit
                  and (prog.unit.macro_at(a.span) is None or a.span.in_macro_arg) for a in prog.accesses)   # cannot be made)
    assert new_srcs[0].read_text().count("(*probe(&(") == planned
    reparsed = parse_file(new_srcs[0], include_dirs=incs)   # raises on any error
    assert not [d for d in reparsed.tu.diagnostics if d.severity >= 3]
    nvcc = request.getfixturevalue("nvcc")
    # nvcc's front end reads the whole unit, host code too, and compiles its device code (-ptx); the host
    # compiler's pass, a third of the time, adds only the host side of __host__ functions: run where
    # the source has such
    whole = "__host__" in path.read_text()
    obj = tmp_path / ("x.o" if whole else "x.ptx")
    r = subprocess.run([str(nvcc), "-std=c++17", "-c" if whole else "-ptx", "-x", "cu", *[f"-I{d}" for d in incs],
                        str(new_srcs[0]), "-o", str(obj)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    text = new_srcs[0].read_text()
    n_probes = text.count("*probe(&(")
    expected = sum(1 for a in progs[0].accesses if a.function in progs[0].device_reachable() and a.form in ("lvalue", "call")
                   and a.span.file == progs[0].unit.main and progs[0].unit.macro_at(a.span) is None)
    assert n_probes == expected


def test_headers_only_c_sources_include_are_written_beside_them(tmp_path):
    """A C source is copied as it is; the user headers only it reaches (quoted beside it, through
    other headers, or bracketed in an include dir) are mirrored too, so the instrumented tree
    compiles on its own; a header a CUDA source also reaches keeps its instrumented version."""
    src = tmp_path / "src"
    (src / "util" / "num").mkdir(parents=True)
    (src / "inc").mkdir()
    (src / "util" / "num" / "num.h").write_text('#include "digits.h"\nint is_integer(const char *s);\n')
    (src / "util" / "num" / "digits.h").write_text("#define DIGITS 10\n")
    (src / "inc" / "opts.h").write_text("#define OPTS 1\n")
    (src / "shared.h").write_text("__device__ inline int twice(int *a, int i) { return 2 * a[i]; }\n")
    (src / "main.c").write_text('#include <stdio.h>\n#include "./util/num/num.h"\n#include <opts.h>\n'
                                '#ifdef NEVER\n#include "missing.h"\n#endif\n'
                                'int main(void) { printf("%d\\n", DIGITS + OPTS); return 0; }\n')
    (src / "k.cu").write_text('#include "shared.h"\n__global__ void k(int *a) { a[threadIdx.x] = twice(a, 0); }\n')
    out = tmp_path / "out"
    instrument_sources([src / "main.c", src / "k.cu"], out, [probe_planner], [src / "inc"])
    for rel in ("util/num/num.h", "util/num/digits.h", "inc/opts.h", "main.c"):
        assert (out / rel).read_bytes() == (src / rel).read_bytes(), rel
    assert (out / "shared.h").read_bytes() != (src / "shared.h").read_bytes()   # instrumented
    assert not (out / "missing.h").exists()
    exe = tmp_path / "main"
    r = subprocess.run(["gcc", "-I", str(out / "inc"), str(out / "main.c"), "-o", str(exe)], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    assert subprocess.run([str(exe)], capture_output=True, text=True).stdout == "11\n"
