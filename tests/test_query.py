"""The query layer over tests/cuda/engine: exact kinds, spaces and positions."""


def acc(prog):
    return [(a.span.line, a.span.col, a.kind, a.space, a.text) for a in prog.accesses]


def test_functions_and_reachability(program):
    p = program("engine/mixed.cu")
    kinds = {f.name: f.kind for f in p.functions.values()}
    assert kinds == {"twice": "device", "dev": "device", "k": "global"}
    assert p.functions["twice"].is_template
    assert p.functions["k"].params == ("a", "n", "ps")
    assert p.device_reachable() == {"k", "dev", "twice"}
    assert [k.name for k in p.kernels] == ["k"]


def test_launch_sites(program):
    p = program("engine/mixed.cu")
    src = p.unit.source(p.unit.main)
    got = [(ls.kernel, src.text(ls.config.start, ls.config.end),
            [src.text(a.start, a.end) for a in ls.config_args],
            [src.text(a.start, a.end) for a in ls.args], ls.function) for ls in p.launches]
    assert got == [
        ("k", "<<<2, 32>>>", ["2", "32"], ["d", "10", "p"], "main"),
        ("k", "<<<dim3(2), 32, 0, 0>>>", ["dim3(2)", "32", "0", "0"], ["d", "10", "p"], "main"),
    ]


def test_template_launches_and_header_functions(program):
    p = program("engine/multi_main.cu")
    src = p.unit.source(p.unit.main)
    assert [src.text(ls.callee.start, ls.callee.end) for ls in p.launches] == \
        ["soa_kernel", "scale<float>", "scale"]
    assert {"load_x", "store_y", "scale", "soa_kernel"} <= set(p.functions)
    hdr = [a for a in p.accesses if a.span.file.endswith("multi_util.cuh")]
    assert [(a.span.line, a.kind, a.text) for a in hdr] == [   # (s.x: the pointer read through the reference s)
        (4, "read", "s.x[i]"), (4, "read", "s.x"), (5, "write", "s.y[i]"), (9, "write", "out[i]"), (9, "read", "in[i]")]


def test_a_template_launch_deduces_where_it_names_fewer_arguments_than_its_template_has(program):
    """engine/template_launches.cu: `fill<<<>>>` and `put<32><<<>>>` (of `template <int T, typename F>`)
    deduce; `fill<float>` and `put<32, float>` name every argument."""
    p = program("engine/template_launches.cu")
    src = p.unit.source(p.unit.main)
    assert [(src.text(ls.callee.start, ls.callee.end), ls.deduced_template) for ls in p.launches][:4] == [
        ("fill", True), ("fill<float>", False), ("put<32>", True), ("put<32, float>", False)]


def test_accesses_kinds_and_spaces(program):
    p = program("engine/mixed.cu")
    assert acc(p) == [
        (7, 64, "read", "pointer", "p[i]"),
        (8, 37, "rmw", "pointer", "p[1]"),
        (8, 45, "write", "pointer", "q->x"),
        (8, 55, "rmw", "pointer", "(*q).y"),
        (15, 16, "read", "pointer", "a[i]"),
        (15, 28, "write", "shared", "s[threadIdx.x][0]"),
        (15, 48, "read", "pointer", "a[i]"),
        (15, 71, "rmw", "pointer", "a[i]"),
        (15, 79, "read", "shared", "s[0][1]"),
        (16, 8, "write", "pointer", "a[i]"),
        (17, 33, "write", "pointer", "*(a + j)"),
        (17, 44, "read", "global", "g[j]"),
        (17, 51, "read", "constant", "c[0]"),
        (20, 24, "write", "pointer", "a[1]"),
        (21, 19, "read", "pointer", "ps[i].x"),
        (21, 29, "read", "pointer", "IDX(i)"),
        (22, 3, "write", "shared", "dyn[i]"),
    ]
    # local arrays (loc[0]) and address-of (&a[0] in atomicAdd) are not accesses
    assert not any(a.base == "loc" for a in p.accesses)
    assert {a.size for a in p.accesses if a.type == "int"} == {4}


def test_shared_atomics_barriers(program):
    p = program("engine/mixed.cu")
    assert [(s.name, s.type, s.is_extern, s.function, s.elem_type) for s in p.shared] == [
        ("s", "int[32][4]", False, "k", "int[4]"), ("dyn", "float[]", True, "k", "float")]
    assert [(a.name, a.op, a.scope, a.span.line) for a in p.atomics] == [
        ("atomicAdd", "atomicAdd", "device", 15), ("atomicAdd_block", "atomicAdd", "block", 24)]
    assert [(b.name, b.scope, b.span.line) for b in p.barriers] == [
        ("__syncthreads", "block", 15), ("__syncwarp", "warp", 24)]
    assert [(g.name, g.space) for g in p.globals] == [("g", "device"), ("c", "constant")]
    assert [g.qualified for g in p.globals] == ["", ""]   # (file scope: the name alone spells it)


def test_globals_of_headers_with_their_namespaces(program):
    # a header's __device__ variable in a namespace: hirace registers it by this name (planner.py)
    p = program("races/ms_counter_in_header_ok.cu")
    assert [(g.name, g.qualified, g.space, g.span.file.rsplit("/", 1)[-1]) for g in p.globals] == [
        ("count", "::tickets::count", "device", "ms_counter_in_header.cuh")]


def test_branches_and_loops(program):
    p = program("engine/mixed.cu")
    src = p.unit.source(p.unit.main)

    def t(s):
        return None if s is None else src.text(s.start, s.end)

    got = [(b.kind, b.span.line, t(b.cond), [t(x) for x in b.arms]) for b in p.branches]
    assert got[0][:3] == ("if", 15, "i < n && a[i] > 0")
    assert got[0][3][1] == "a[i] = 0"
    assert got[1] == ("&&", 15, None, ["i < n", "a[i] > 0"])
    assert got[2] == ("if", 18, "i == 3", ["break", None])
    assert [g[0] for g in got[3:7]] == ["switch", "case", "case", "default"]
    assert got[7] == ("conditional", 21, "i > 2", ["ps[i].x", "IDX(i)"])
    assert [(l.kind, l.span.line, t(l.cond)) for l in p.loops] == [
        ("for", 17, "j < n"), ("while", 18, "i > 0"), ("do", 19, "i < 5")]


def test_template_sized_array_has_its_elements_size(program):
    p = program("engine/template_tile.cu")
    got = sorted((a.span.line, a.text, a.type, a.size) for a in p.accesses)
    assert got == [(5, "in[threadIdx.x]", "const float", 4), (5, "t[threadIdx.y][threadIdx.x]", "float", 4),
                   (8, "out[threadIdx.x]", "float", 4), (8, "row[threadIdx.x]", "float", 4),
                   (8, "t[threadIdx.x][threadIdx.y]", "float", 4)]


def test_an_argument_of_a_call_a_template_leaves_unresolved_is_read_where_it_is_passed_by_value(tmp_path):
    """In a kernel template, `f<T>(a[i])` shows no conversion of its argument: the access is a read
    where every definition of f takes that parameter by value, and only the address where by
    reference (what the callee does with it is its own accesses')."""
    from instrument.frontend.parse import parse_file
    from instrument.frontend.query import query
    src = tmp_path / "t.cu"
    src.write_text("#include <cuda_runtime.h>\n"
                   "template <class T> __device__ T twice(T v) { return 2 * v; }\n"
                   "template <class T> __device__ void bump(T &v) { v += 1; }\n"
                   "template <class T> __global__ void k(T *in, T *out) {\n"
                   "  out[threadIdx.x] = twice<T>(in[threadIdx.x]);\n"
                   "  bump<T>(out[threadIdx.x + 1]);\n"
                   "}\n")
    got = {(a.text, a.kind) for a in query(parse_file(src)).accesses if a.function == "k"}
    assert ("in[threadIdx.x]", "read") in got
    assert ("out[threadIdx.x]", "write") in got
    assert not any(t == "out[threadIdx.x + 1]" for t, _ in got)


def test_accesses_through_references(program):
    """A reference variable, a reference parameter, a member through a reference and a range-for by
    reference are accesses where they are used; binding a reference is not one."""
    assert [(a.span.line, a.kind, a.text) for a in program("races/ref_variable_race.cu").accesses] == [
        (5, "write", "slot"), (5, "read", "in[threadIdx.x]")]
    assert [(a.span.line, a.kind, a.text) for a in program("races/ref_param_race.cu").accesses] == [
        (4, "rmw", "x"), (7, "read", "in[threadIdx.x]")]   # (out[0] bound to x: no access there)
    assert (7, "write", "c.last") in [(a.span.line, a.kind, a.text) for a in program("races/ref_member_race.cu").accesses]
    assert (5, "write", "v") in [(a.span.line, a.kind, a.text) for a in program("races/ref_range_for_race.cu").accesses]


def test_aliases_of_locals(program):
    """A local bound by a reference that is not const, or passed to such a parameter, may change."""
    assert [name for _, name in program("races/ref_alias_index_race.cu").aliased] == ["i"]
    assert [name for _, name in program("races/ref_alias_param_race.cu").aliased] == ["i"]
    assert [name for _, name in program("races/ref_ok.cu").aliased] == ["o"]   # twice(o)


def test_load_store_intrinsics_and_device_ranges(program):
    """`__ldg(&a[i])` reads a[i] (an ordinary access of the lvalue); `__stcg(p, v)` writes through the
    address p; memcpy/memset name their address and size arguments."""
    p = program("races/ldg_race.cu")
    assert [(a.span.line, a.kind, a.text, a.form) for a in p.accesses if a.span.line == 6] == [
        (6, "read", "out[1]", "lvalue"), (6, "read", "out[1]", "lvalue")]
    p = program("races/stcg_race.cu")
    assert [(a.kind, a.text, a.form, a.base) for a in p.accesses if a.span.line == 5] == [
        ("write", "p", "address", "p"), ("read", "in[threadIdx.x]", "lvalue", "in")]
    src = lambda prog, sp: prog.unit.source(sp.file).text(sp.start, sp.end)   # noqa: E731
    p = program("races/memcpy_race.cu")
    assert [(r.name, src(p, r.dst), src(p, r.src), src(p, r.size), r.dst_base, r.src_base) for r in p.ranges] == [
        ("memcpy", "&tile[threadIdx.x * 2]", "&in[threadIdx.x * 4]", "4 * sizeof(int)", "tile", "in")]
    p = program("races/memset_race.cu")
    assert [(r.name, src(p, r.dst), r.src, r.dst_base) for r in p.ranges] == [("memset", "out", None, "out")]


def test_fences_with_their_scopes_and_orders(program):
    """docs/memory-model.md: CUDA's fences by name, libcu++'s by their order and scope arguments."""
    from instrument.compile.toolchain import library_include_dirs
    if not library_include_dirs():
        import pytest
        pytest.skip("no CUDA toolkit with libcu++")
    p = program("engine/fences.cu")
    assert [(f.name, f.scope, f.order, f.function, f.span.line) for f in p.fences] == [
        ("__threadfence", "device", "seq_cst", "produce", 8),
        ("__threadfence_block", "block", "seq_cst", "produce", 10),
        ("__threadfence_system", "system", "seq_cst", "produce", 11),
        ("atomic_thread_fence", "device", "acquire", "consume", 16),
        ("atomic_thread_fence", "block", "release", "consume", 17),
        ("atomic_thread_fence", "system", "seq_cst", "consume", 18)]
    assert [(a.text, a.kind, a.volatile) for a in p.accesses if a.function == "spin"] == [
        ("ready[0]", "read", True), ("out[0]", "write", False), ("*(volatile int *)out", "read", True)]
    assert [(la.name, la.use, la.order) for la in p.lib_atomics] == [
        ("store", "write", "release"), ("load", "read", "acquire"), ("fetch_add", "rmw", "seq_cst")]
