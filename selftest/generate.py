"""Random, deterministic, race-free CUDA programs (after CUDAsmith's basic, vector, barrier and
atomic modes), each printing a checksum of everything it computed.

Race freedom by construction:
- global: a thread writes only its own output slots; inputs are read-only; the next kernel
  reads the previous kernel's outputs (the launch boundary orders them);
- shared, block phases: each thread writes slot P(lt) (P a permutation: odd multiplier mod a
  power of two), `__syncthreads`, any thread reads any slot, `__syncthreads` again; barriers
  stand only at the kernel's top level, so every thread reaches them;
- shared, warp phases: the same within a warp's 32 slots, with `__syncwarp`; shuffles at the
  top level with every lane active;
- shared, tile phases (`tiles`): the same within an aligned tile of 4, 8 or 16 lanes (one width
  per kernel, so a slot stays its tile's), with `__syncwarp(mask)` of the tile's lanes;
- atomics: commutative updates (add, xor, or, and, max, min), one operation per word, whose
  results are never read back in the kernel, so the final values do not depend on the order.
Arithmetic goes through wrappers with no undefined behaviour (wrapping int math, division by
zero guarded, shifts masked, float kept finite and converted with clamping).

EMI variants (same seed, `emi=True`) add blocks guarded by `emi[0] > 12345` (never true: the
host passes zeros the compiler cannot see) holding racy code, and wrap statements in
`if (emi[1] == 0)` guards that always hold; they must print the same checksum.
Every `__syncthreads` between a write phase and its read phase carries a marker comment
`/*phase-barrier N*/`, so that an oracle can remove one and expect a race.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

PRELUDE = r"""#include <climits>
#include <cstdio>
#include <cstdlib>

__host__ __device__ inline int sadd(int a, int b) { return (int)((unsigned)a + (unsigned)b); }
__host__ __device__ inline int ssub(int a, int b) { return (int)((unsigned)a - (unsigned)b); }
__host__ __device__ inline int smul(int a, int b) { return (int)((unsigned)a * (unsigned)b); }
__host__ __device__ inline int sdiv(int a, int b) { return (b == 0 || (a == INT_MIN && b == -1)) ? a : a / b; }
__host__ __device__ inline int smod(int a, int b) { return (b == 0 || (a == INT_MIN && b == -1)) ? a : a % b; }
__host__ __device__ inline int sshl(int a, int b) { return (int)((unsigned)a << (b & 31)); }
__host__ __device__ inline int sshr(int a, int b) { return (int)((unsigned)a >> (b & 31)); }
__host__ __device__ inline unsigned udiv(unsigned a, unsigned b) { return b == 0u ? a : a / b; }
__host__ __device__ inline unsigned umod(unsigned a, unsigned b) { return b == 0u ? a : a % b; }
__host__ __device__ inline unsigned ushl(unsigned a, unsigned b) { return a << (b & 31u); }
__host__ __device__ inline unsigned ushr(unsigned a, unsigned b) { return a >> (b & 31u); }
__host__ __device__ inline float fkeep(float x) { return (x != x) ? 0.0f : (x > 1e6f ? 1e6f : (x < -1e6f ? -1e6f : x)); }
__host__ __device__ inline float fadd(float a, float b) { return fkeep(a + b); }
__host__ __device__ inline float fsub(float a, float b) { return fkeep(a - b); }
__host__ __device__ inline float fmul(float a, float b) { return fkeep(a * b); }
__host__ __device__ inline float fdiv(float a, float b) { return (b > -0.5f && b < 0.5f) ? a : fkeep(a / b); }
__host__ __device__ inline int f2i(float x) { return (int)fkeep(x); }
"""

INT_OPS = ("sadd", "ssub", "smul", "sdiv", "smod", "sshl", "sshr")
UNS_OPS = ("udiv", "umod", "ushl", "ushr")
UNS_INFIX = ("+", "-", "*", "^", "&", "|")
INT_INFIX = ("^", "&", "|")
FLT_OPS = ("fadd", "fsub", "fmul", "fdiv")
ATOMICS = ("atomicAdd", "atomicXor", "atomicOr", "atomicAnd", "atomicMax", "atomicMin")


@dataclass
class Options:
    kernels: int = 2            # launched one after another; each reads the previous one's outputs
    blocks: int = 4
    threads: int = 64           # a power of two, at least 32
    statements: int = 10        # top-level statements per kernel
    depth: int = 3              # nesting of branches and loops
    functions: int = 2          # __device__ helper functions
    barrier: bool = True        # shared-memory phases with __syncthreads
    warp: bool = True           # warp phases with __syncwarp and shuffles
    tiles: bool = True          # some warp phases within tiles of a warp, __syncwarp(mask)
    atomic: bool = True         # atomic sections
    floats: bool = True


@dataclass
class Program:
    seed: int
    body: list[str]                           # namespace gp<seed> { ... } holding kernels and run()
    phase_barriers: int                       # marked removable barriers
    phase_lines: dict[int, tuple[int, int]] = field(default_factory=dict)  # barrier -> (first, last) body line
    features: list[str] = field(default_factory=list)
    emi: bool = False

    @property
    def text(self) -> str:
        """A standalone program."""
        return assemble([self])[0]


def assemble(programs: list[Program], removed: dict[int, int] | None = None) -> tuple[str, dict[int, tuple[int, int]]]:
    """One translation unit running `programs` one after another; `removed` maps a seed to the
    phase barrier to take out of it. Returns (text, seed -> (first, last) line of that barrier's
    phase in the text, for the programs that lost one)."""
    removed = removed or {}
    seeds = ", ".join(str(p.seed) for p in programs)
    variant = " (EMI variants)" if any(p.emi for p in programs) else ""
    lines = [f"// hirace selftest: generated program(s) {seeds}{variant}; race-free by construction unless a",
             "// barrier was removed on purpose; each prints a checksum of its outputs"]
    lines += PRELUDE.splitlines()
    where: dict[int, tuple[int, int]] = {}
    for p in programs:
        lines.append("")
        start = len(lines)           # body line i (1-based) lands on text line start + i
        n = removed.get(p.seed)
        for line in p.body:
            if n is not None and f"/*phase-barrier {n}*/" in line:
                line = line.replace("__syncthreads();", "/* removed */")
            lines.append(line)
        if n is not None:
            a, b = p.phase_lines[n]
            where[p.seed] = (start + a, start + b)
    lines.append("")
    lines.append("int main() {")
    lines.append("  int rc = 0;")
    for p in programs:
        lines.append(f"  rc |= gp{p.seed}::run();")
    lines.append("  return rc;")
    lines.append("}")
    return "\n".join(lines) + "\n", where


class _Gen:
    def __init__(self, seed: int, opts: Options, emi: bool):
        self.r = random.Random(seed)
        self.emi_r = random.Random(seed ^ 0x5EED)   # EMI decisions never disturb the main stream
        self.tile_r = random.Random(seed ^ 0x711E)  # nor do tile phases (a seed's program is kept)
        self.tile_w = 0                               # this kernel's tile width
        self.emi = emi
        self.o = opts
        self.lines: list[str] = []
        self.barriers = 0
        self.phase_lines: dict[int, tuple[int, int]] = {}
        self.fns: list[tuple[str, str]] = []      # (name, signature kind)
        self.vars: dict[str, list[str]] = {}
        self.loop_vars: list[str] = []
        self.features: set[str] = set()
        self.in_fn = False

    # ------------------------------------------------------------------ output
    def emit(self, text: str, ind: int) -> None:
        self.lines.append("  " * ind + text)

    # ------------------------------------------------------------------ expressions
    def leaf(self, ty: str) -> str:
        r = self.r
        pool = list(self.vars.get(ty, []))
        if ty == "int":
            pool += ["tid", "lt"] + self.loop_vars
        choice = r.random()
        if pool and choice < 0.7:
            return r.choice(pool)
        if ty == "int":
            return str(r.randint(-50, 50))
        if ty == "unsigned":
            return f"{r.randint(0, 1 << 20)}u"
        return f"{r.uniform(-8, 8):.3f}f"

    def expr(self, ty: str, d: int = 0) -> str:
        r = self.r
        if d >= 2 or r.random() < 0.3:
            return self.leaf(ty)
        k = r.random()
        if ty == "int":
            if k < 0.5:
                return f"{r.choice(INT_OPS)}({self.expr('int', d + 1)}, {self.expr('int', d + 1)})"
            if k < 0.65:
                return f"({self.expr('int', d + 1)} {r.choice(INT_INFIX)} {self.expr('int', d + 1)})"
            if k < 0.75 and self.o.floats:
                return f"f2i({self.expr('float', d + 1)})"
            if k < 0.85:
                return f"(int)({self.expr('unsigned', d + 1)} >> 1)"
            if k < 0.93 and self.fns:
                return self.call("int", d)
            return f"({self.cond(d + 1)} ? {self.expr('int', d + 1)} : {self.expr('int', d + 1)})"
        if ty == "unsigned":
            if k < 0.45:
                return f"({self.expr('unsigned', d + 1)} {r.choice(UNS_INFIX)} {self.expr('unsigned', d + 1)})"
            if k < 0.7:
                return f"{r.choice(UNS_OPS)}({self.expr('unsigned', d + 1)}, {self.expr('unsigned', d + 1)})"
            if k < 0.85:
                return f"(unsigned)({self.expr('int', d + 1)})"
            if self.fns:
                return self.call("unsigned", d)
            return self.leaf("unsigned")
        if k < 0.6:
            return f"{r.choice(FLT_OPS)}({self.expr('float', d + 1)}, {self.expr('float', d + 1)})"
        if k < 0.8:
            return f"(float)({self.expr('int', d + 1)} % 1000)"
        return f"({self.cond(d + 1)} ? {self.expr('float', d + 1)} : {self.expr('float', d + 1)})"

    def cond(self, d: int = 0) -> str:
        r = self.r
        k = r.random()
        if k < 0.35:
            return f"((lt & {r.choice([1, 3, 7])}) == {r.randint(0, 1)})"
        if k < 0.6:
            return f"({self.expr('int', 2)} {r.choice(['<', '>', '<=', '>=', '==', '!='])} {self.expr('int', 2)})"
        if k < 0.72 and self.o.floats:
            return f"({self.expr('float', 2)} < {self.expr('float', 2)})"
        if k < 0.86:
            return f"({self.cond(3) if d < 2 else '(tid & 1)'} && {self.expr('int', 2)} > 0)"
        return f"({self.cond(3) if d < 2 else '(lt > 7)'} || ({self.expr('unsigned', 2)} & 4u) != 0u)"

    def call(self, ty: str, d: int) -> str:
        name, ret = self.r.choice(self.fns)
        inner = f"{name}({self.expr('int', d + 1)}, {self.expr('unsigned', d + 1)})"
        if ret == ty:
            return inner
        return f"(int)({inner})" if ty == "int" else f"(unsigned)({inner})"

    # ------------------------------------------------------------------ statements (thread-local)
    def local_stmt(self, ind: int, depth: int, atomics: bool) -> None:
        r = self.r
        k = r.random()
        if self.emi and not self.in_fn and self.emi_r.random() < 0.12:
            self.dead_block(ind)
        if depth < self.o.depth and k < 0.18:
            self.features.add("branch")
            self.emit(f"if {self.cond()} {{", ind)
            for _ in range(r.randint(1, 3)):
                self.local_stmt(ind + 1, depth + 1, atomics)
            if r.random() < 0.6:
                self.emit("} else {", ind)
                for _ in range(r.randint(1, 2)):
                    self.local_stmt(ind + 1, depth + 1, atomics)
            self.emit("}", ind)
            return
        if depth < self.o.depth and k < 0.3:
            self.features.add("loop")
            iv = f"i{len(self.loop_vars)}_{len(self.lines)}"
            bound = str(r.randint(1, 4)) if r.random() < 0.5 else f"(int)({self.leaf('unsigned')} & 3u)"
            self.emit(f"for (int {iv} = 0; {iv} < {bound}; ++{iv}) {{", ind)
            self.loop_vars.append(iv)
            for _ in range(r.randint(1, 3)):
                self.local_stmt(ind + 1, depth + 1, atomics)
            self.loop_vars.pop()
            self.emit("}", ind)
            return
        if depth < self.o.depth and k < 0.36:
            self.features.add("switch")
            self.emit(f"switch ({self.leaf('int')} & 3) {{", ind)
            for case in ("case 0:", "case 1:", "case 2:", "default:"):
                self.emit(case, ind)
                self.local_stmt(ind + 1, depth + 1, atomics)
                if r.random() < 0.7 or case == "default:":
                    self.emit("  break;", ind)
            self.emit("}", ind)
            return
        if atomics and self.o.atomic and k < 0.46:
            self.features.add("atomic")
            # one operation per slot: different operations on one word do not commute
            slot = r.randrange(len(ATOMICS))
            self.emit(f"{ATOMICS[slot]}(&acc[{slot}], {self.expr('unsigned', 1)});", ind)
            return
        ty = r.choice(["int", "unsigned", "float"] if self.o.floats else ["int", "unsigned"])
        var = r.choice(self.vars[ty])
        text = f"{var} = {self.expr(ty)};"
        if self.emi and not self.in_fn and self.emi_r.random() < 0.15:
            self.emit(f"if (emi[1] == 0) {{ {text} }}", ind)
        else:
            self.emit(text, ind)

    def dead_block(self, ind: int) -> None:
        """Never runs (emi[0] is 0): racy writes and reads that must stay unreported."""
        self.features.add("emi")
        e = self.emi_r
        v = e.choice(self.vars["int"])
        self.emit("if (emi[0] > 12345) {", ind)
        self.emit(f"  out_i[(tid + {e.randint(1, 9)}) % N] = {v};", ind)
        self.emit(f"  {v} = sadd({v}, out_i[(tid + {e.randint(1, 9)}) % N]);", ind)
        self.emit(f"  sh_i[(lt + {e.randint(1, 9)}) & (NT - 1)] = {v};", ind)
        self.emit("}", ind)

    # ------------------------------------------------------------------ top-level phases
    def block_phase(self, ind: int) -> None:
        r = self.r
        self.features.add("barrier")
        a, b = 2 * r.randint(0, 15) + 1, r.randint(0, 63)
        c, d = 2 * r.randint(0, 15) + 1, r.randint(0, 63)
        if (a, b % self.o.threads) == (c, d % self.o.threads):
            d += 1                                           # some thread reads another's slot
        first = len(self.lines) + 1
        self.emit(f"sh_i[(lt * {a} + {b}) & (NT - 1)] = {self.expr('int')};", ind)
        n = self.barriers
        self.barriers += 1
        self.emit(f"__syncthreads(); /*phase-barrier {n}*/", ind)
        var = r.choice(self.vars["int"])
        self.emit(f"{var} = {r.choice(INT_OPS[:3])}({var}, sh_i[(lt * {c} + {d}) & (NT - 1)]);", ind)
        self.phase_lines[n] = (first, len(self.lines))
        self.emit("__syncthreads();", ind)

    def warp_phase(self, ind: int) -> None:
        r = self.r
        self.features.add("warp")
        a, b, c, d = 2 * r.randint(0, 15) + 1, r.randint(0, 31), 2 * r.randint(0, 15) + 1, r.randint(0, 31)
        vu = r.choice(self.vars["unsigned"])
        vi = r.choice(self.vars["int"])
        w = self.tile_w if self.tile_w and self.tile_r.random() < 0.5 else 0
        if w:   # within the lane's tile of w lanes, ordered by the tile's own syncs
            self.features.add("tile")
            m = w - 1
            sync = f"__syncwarp(0x{(1 << w) - 1:x}u << (lane & ~{m}));"
            self.emit(f"sh_t[(lt & ~{m}) + ((lane * {a} + {b}) & {m})] = {self.expr('unsigned')};", ind)
            self.emit(sync, ind)
            self.emit(f"{vu} = {vu} ^ sh_t[(lt & ~{m}) + ((lane * {c} + {d}) & {m})];", ind)
            self.emit(sync, ind)
        else:
            self.emit(f"sh_u[(lt & ~31) + ((lane * {a} + {b}) & 31)] = {self.expr('unsigned')};", ind)
            self.emit("__syncwarp();", ind)
            self.emit(f"{vu} = {vu} ^ sh_u[(lt & ~31) + ((lane * {c} + {d}) & 31)];", ind)
            self.emit("__syncwarp();", ind)
        if r.random() < 0.5:
            self.emit(f"{vi} = sadd({vi}, __shfl_sync(0xffffffffu, {vi}, (lane * {a} + {d}) & 31));", ind)
        else:
            self.emit(f"{vu} = {vu} + __shfl_xor_sync(0xffffffffu, {vu}, {r.choice([1, 2, 4, 8, 16])});", ind)

    # ------------------------------------------------------------------ functions, kernels, host
    def device_function(self, i: int) -> None:
        ret = self.r.choice(["int", "unsigned"])
        name = f"df{i}"
        saved, self.vars = self.vars, {"int": ["a"], "unsigned": ["b"], "float": ["c"]}
        saved_loops, self.loop_vars = self.loop_vars, []
        self.in_fn = True
        self.emit(f"__device__ {ret} {name}(int a, unsigned b) {{", 0)
        self.emit("float c = (float)(a % 100);", 1)
        self.emit("const int tid = a, lt = (int)(b & 63u);", 1)
        for _ in range(self.r.randint(1, 3)):
            self.local_stmt(1, 1, atomics=False)
        self.emit(f"return {'a ^ (int)b' if ret == 'int' else 'b + (unsigned)a'} ^ {'(int)' if ret == 'int' else '(unsigned)'}f2i(c);", 1)
        self.emit("}", 0)
        self.emit("", 0)
        self.vars, self.loop_vars = saved, saved_loops
        self.in_fn = False
        self.fns.append((name, ret))

    def kernel(self, k: int) -> None:
        r = self.r
        self.emit(f"__global__ void k{k}(const int *in_i, const unsigned *in_u, const float *in_f, int *out_i, "
                  f"unsigned *out_u, float *out_f, unsigned *acc, const int *emi) {{", 0)
        self.emit("__shared__ int sh_i[NT];", 1)
        self.emit("__shared__ unsigned sh_u[NT];", 1)
        self.tile_w = self.tile_r.choice([4, 8, 16]) if self.o.warp and self.o.tiles else 0
        if self.tile_w:
            self.emit("__shared__ unsigned sh_t[NT];", 1)
        self.emit("const int lt = threadIdx.x;", 1)
        self.emit("const int tid = blockIdx.x * blockDim.x + lt;", 1)
        self.emit("const int lane = lt & 31;", 1)
        self.vars = {"int": [], "unsigned": [], "float": []}
        for i in range(3):
            self.vars["int"].append(f"vi{i}")
            self.emit(f"int vi{i} = in_i[(tid * {r.randint(1, 9)} + {r.randint(0, 99)}) % N];", 1)
            self.vars["unsigned"].append(f"vu{i}")
            self.emit(f"unsigned vu{i} = in_u[(tid + {r.randint(0, 99)}) % N];", 1)
            if self.o.floats:
                self.vars["float"].append(f"vf{i}")
                self.emit(f"float vf{i} = in_f[(tid * {r.randint(1, 5)}) % N];", 1)
        self.emit("sh_i[lt] = 0;", 1)
        self.emit("sh_u[lt] = 0u;", 1)
        if self.tile_w:
            self.emit("sh_t[lt] = 0u;", 1)
        self.emit("__syncthreads();", 1)
        for _ in range(self.o.statements):
            k2 = r.random()
            if self.o.barrier and k2 < 0.2:
                self.block_phase(1)
            elif self.o.warp and k2 < 0.3:
                self.warp_phase(1)
            else:
                self.local_stmt(1, 0, atomics=True)
        ints, uns = self.vars["int"], self.vars["unsigned"]
        self.emit(f"out_i[tid] = {' ^ '.join(ints)};", 1)
        self.emit(f"out_u[tid] = {' + '.join(uns)};", 1)
        self.emit(f"out_f[tid] = {'fadd(' + ', fadd('.join(self.vars['float'][:-1]) + ', ' + self.vars['float'][-1] + ')' * (len(self.vars['float']) - 1) if self.o.floats else '0.0f'};", 1)
        self.emit("}", 0)
        self.emit("", 0)

    def host(self, seed: int) -> None:
        o = self.o
        K = o.kernels
        self.emit(f"static unsigned long long rng_state = {seed}ull * 2862933555777941757ull + 3037000493ull;", 0)
        self.emit("static unsigned next_rand() { rng_state = rng_state * 6364136223846793005ull + "
                  "1442695040888963407ull; return (unsigned)(rng_state >> 33); }", 0)
        self.emit("static unsigned long long fnv(unsigned long long h, const void *p, size_t n) {", 0)
        self.emit("const unsigned char *b = (const unsigned char *)p;", 1)
        self.emit("for (size_t i = 0; i < n; ++i) { h ^= b[i]; h *= 1099511628211ull; }", 1)
        self.emit("return h;", 1)
        self.emit("}", 0)
        self.emit("", 0)
        self.emit("int run() {", 0)
        self.emit("static int h_i[N]; static unsigned h_u[N]; static float h_f[N]; static unsigned h_acc[8];", 1)
        self.emit("static int h_emi[4] = {0, 0, 0, 0};", 1)
        self.emit("for (int i = 0; i < N; ++i) { h_i[i] = (int)(next_rand() % 2001u) - 1000; h_u[i] = next_rand(); "
                  "h_f[i] = (float)(int)(next_rand() % 20001u) / 100.0f - 100.0f; }", 1)
        self.emit("for (int i = 0; i < 8; ++i) h_acc[i] = next_rand() & 0xffffu;", 1)
        self.emit(f"int *d_i[{K + 1}]; unsigned *d_u[{K + 1}]; float *d_f[{K + 1}]; unsigned *d_acc; int *d_emi;", 1)
        self.emit(f"for (int k = 0; k <= {K}; ++k) {{", 1)
        self.emit("cudaMalloc((void **)&d_i[k], N * sizeof(int));", 2)
        self.emit("cudaMalloc((void **)&d_u[k], N * sizeof(unsigned));", 2)
        self.emit("cudaMalloc((void **)&d_f[k], N * sizeof(float));", 2)
        self.emit("}", 1)
        self.emit("cudaMalloc((void **)&d_acc, 8 * sizeof(unsigned));", 1)
        self.emit("cudaMalloc((void **)&d_emi, 4 * sizeof(int));", 1)
        self.emit("cudaMemcpy(d_i[0], h_i, N * sizeof(int), cudaMemcpyHostToDevice);", 1)
        self.emit("cudaMemcpy(d_u[0], h_u, N * sizeof(unsigned), cudaMemcpyHostToDevice);", 1)
        self.emit("cudaMemcpy(d_f[0], h_f, N * sizeof(float), cudaMemcpyHostToDevice);", 1)
        self.emit("cudaMemcpy(d_acc, h_acc, 8 * sizeof(unsigned), cudaMemcpyHostToDevice);", 1)
        self.emit("cudaMemcpy(d_emi, h_emi, 4 * sizeof(int), cudaMemcpyHostToDevice);", 1)
        for k in range(K):
            self.emit(f"k{k}<<<NB, NT>>>(d_i[{k}], d_u[{k}], d_f[{k}], d_i[{k + 1}], d_u[{k + 1}], d_f[{k + 1}], "
                      f"d_acc, d_emi);", 1)
        self.emit("unsigned long long h = 14695981039346656037ull;", 1)
        self.emit(f"for (int k = 1; k <= {K}; ++k) {{", 1)
        self.emit("cudaMemcpy(h_i, d_i[k], N * sizeof(int), cudaMemcpyDeviceToHost);", 2)
        self.emit("cudaMemcpy(h_u, d_u[k], N * sizeof(unsigned), cudaMemcpyDeviceToHost);", 2)
        self.emit("cudaMemcpy(h_f, d_f[k], N * sizeof(float), cudaMemcpyDeviceToHost);", 2)
        self.emit("h = fnv(h, h_i, sizeof(h_i)); h = fnv(h, h_u, sizeof(h_u)); h = fnv(h, h_f, sizeof(h_f));", 2)
        self.emit("}", 1)
        self.emit("cudaMemcpy(h_acc, d_acc, 8 * sizeof(unsigned), cudaMemcpyDeviceToHost);", 1)
        self.emit("h = fnv(h, h_acc, sizeof(h_acc));", 1)
        self.emit("cudaError_t err = cudaDeviceSynchronize();", 1)
        self.emit(f"if (err != cudaSuccess) {{ printf(\"program {seed} cuda error %d\\n\", (int)err); return 3; }}", 1)
        self.emit(f"printf(\"program {seed} checksum %016llx\\n\", h);", 1)
        self.emit("return 0;", 1)
        self.emit("}", 0)


def generate(seed: int, opts: Options | None = None, emi: bool = False) -> Program:
    o = opts or Options()
    if o.threads < 32 or o.threads & (o.threads - 1) or o.threads > 1024:
        raise ValueError("threads must be a power of two from 32 to 1024")
    g = _Gen(seed, o, emi)
    g.lines = [f"namespace gp{seed} {{", "#undef NB", "#undef NT", "#undef N",
               f"#define NB {o.blocks}", f"#define NT {o.threads}", "#define N (NB * NT)", ""]
    for i in range(o.functions):
        g.device_function(i)
    for k in range(o.kernels):
        g.kernel(k)
    g.host(seed)
    g.lines.append(f"}}  // namespace gp{seed}")
    return Program(seed, g.lines, g.barriers, dict(g.phase_lines), sorted(g.features), emi)
