"""The fact table of one unit: what the analyses found, built once, consulted by every rule.

- barrier intervals (intervals.py, with tree_forms.py and apart.py): the shared accesses that share
  their interval with no conflicting access (`quiet`), the ones that name their thread's own words
  (`alone`, with the form that gives their launch condition), and (bounds.py) those whose index lies
  inside their array (`inside`, with the launch condition that needs);
- kernel parameters (readonly_params.py, own_index.py): read-only, own and atomic candidates, by
  access (`param_sites`), with each parameter's bit in the launch's quiet mask;
- what each kernel changes (`kept_params`: the parameters it never assigns, which point where the
  host said), and why a kernel or the whole unit was not analysed.

Where the unit has a form the analyses do not follow (an address given to a load/store intrinsic, a
reference a call returns, device memcpy/memset, libcu++ atomics) none runs: every access is checked
whole, and `off` says why.
"""
from __future__ import annotations

from dataclasses import dataclass

from instrument.frontend.query import Program

from .conditions import Inside, OwnIndex
from .intervals import KernelFacts, OwnWordForm, shared_intervals
from .readonly_params import KernelParams, KernelWrites, direct, member_or_element, readonly_params

Key = tuple[str, int, int]   # an access by (file, start, end)


def key(x) -> Key:
    return (x.span.file, x.span.start, x.span.end)


@dataclass(frozen=True)
class ParamSite:
    """An access through a kernel's quiet-parameter candidate: its bit, and whether the candidate
    is an own (or atomic) one, which the launch tests apart from read-only ones. `kernel`: its
    kernel's body (file, start): kernels of one name in two namespaces are two kernels."""
    kernel: tuple[str, int]
    param: str
    bit: int
    own: bool
    partner: str | None = None   # a read-only candidate's own partner, which a launch may pass its pointer (pairs)


class FactTable:
    def __init__(self, prog: Program, enabled: bool = True, global_proofs: bool = True):
        """`global_proofs` False (a program the stream relation follows): the proofs of accesses to declared
        shared memory (the intervals' facts of accesses whose space is `shared`: an access through a pointer may
        reach global memory) and the parameters' (readonly_params.py) stay. A launch's footprint is made of its
        global accesses, checked or quiet: a parameter's quiet access notes its words there too (check.h
        quiet_footprint), while the intervals' quiet forms of other accesses do not."""
        self.prog = prog
        self.off = "" if enabled else "the proofs are off (quiet_reads = false)"
        if enabled:
            self.off = _unit_off(prog)
        self.kernel_facts = KernelFacts(prog)
        self.kernels = {k.name for k in prog.kernels}
        self.quiet: set[Key] = set()
        self.alone: dict[Key, OwnWordForm] = {}
        self.intervals_why: dict[str, str] = {}
        self.inside: dict[Key, Inside] = {}   # shared accesses whose index lies inside their array (bounds.py)
        self.params_why: dict[str, str] = {}
        self.params: dict[tuple[str, int], KernelParams] = {}
        # kernels whose writes are known (readonly_params.py `writes`): their launches say which buffers
        # they may write, and the others keep no check state there (hirace/host_buffer_state.h)
        self.writes: dict[tuple[str, int], KernelWrites] = {}
        if not self.off:
            found = shared_intervals(prog, self.kernel_facts)
            self.quiet, self.alone, self.intervals_why = found.quiet, found.alone, found.not_analysed
            self.inside = {k: Inside(a.base, caps) for a in prog.accesses
                           if (k := key(a)) in found.inside for caps in (found.inside[k],)}
            self.params = readonly_params(prog, self.kernel_facts, self.params_why, self.writes)
            if not global_proofs:
                shared = {key(a) for a in prog.accesses if a.space == "shared"}
                self.quiet &= shared
                self.alone = {k: f for k, f in self.alone.items() if k in shared}
        # each kernel's parameters that it never assigns (they point where the host said: never to
        # shared memory)
        self.kept_params = {k.name: set(k.params) - (self.kernel_facts.changed(k.body) -
                                                     set(self.kernel_facts.rebased(k)))
                            for k in prog.kernels}
        self.param_sites: dict[Key, ParamSite] = {}
        self.atomic_bit: dict[tuple, int] = {}   # (kernel body, atomic parameter) -> its bit
        for kb, kp in self.params.items():
            body = kp.kernel.body
            for i in kp.atomic:
                self.atomic_bit[(kb, kp.kernel.params[i])] = kp.bits.index(i)
            partners = {r: kp.kernel.params[kp.bits[o]] for r, o in kp.pairs}
            for bit, i in enumerate(kp.bits):
                name, own = kp.kernel.params[i], bool(kp.own_mask >> bit & 1)
                names = {name} | {q for q, param in kp.aliases if param == name}   # (local pointers made from it)
                for a in prog.accesses:
                    if a.base in names and (a.bound == "pointer" or a.text.replace(" ", "") == "*" + a.base if own else
                                            a.kind == "read" and member_or_element(a)) and \
                            a.span.file == body.file and body.start <= a.span.start and a.span.end <= body.end:
                        self.param_sites[key(a)] = ParamSite(kb, name, bit, own, partners.get(bit))
        # (kernel body, own parameter) -> the kernel's variable holding its own-index test (and the
        # test): named by the planner, which inserts it (an own parameter whose variable could not be
        # inserted has none)
        self.own_var: dict[tuple, tuple[str, OwnIndex]] = {}
        # the accesses of the context functions the planner gave their flag (call_context.py), by key
        self.context_sites: set[Key] = set()
        # the atomics of the atomic functions the planner gave their arrays' parameters (shared_calls.py), by
        # key: the pointer parameter each reaches
        self.atomic_ctx_sites: dict[Key, str] = {}


    def launch_params(self, name: str) -> list[KernelParams]:
        """What a launch of the kernels named `name` passes (`quiet_params`): each one's candidates and
        written parameters, or only the written ones where it has no candidates but its writes are known
        (readonly_params.py `writes`); none where a kernel of that name has neither (a launch may be of
        it: two namespaces' kernels of one name)."""
        out = []
        for k in self.prog.kernels:
            if k.name == name:
                kb = (k.body.file, k.body.start)
                if kb not in self.writes:
                    return []
                out.append(self.params.get(kb) or KernelParams(k, (), self.writes[kb].written))
        return out

    def through_constant(self, a) -> bool:
        """Is access `a` a read straight through a local pointer into `__constant__` memory (intervals.py
        KernelFacts.constant_pointers: `dimBase[bit]` of `unsigned *dimBase = &c_Table[threadIdx.y][0]`)? It reads
        what no thread writes, as a read of the constant variable itself does, which no check follows."""
        if a.kind != "read" or a.space != "pointer" or not a.base or not direct(a.text, a.base):
            return False
        for f in self.prog.definitions:
            b = f.body
            if b is not None and a.span.file == b.file and b.start <= a.span.start and a.span.end <= b.end:
                return a.base in self.kernel_facts.constant_pointers(f)
        return False

    def kernel_of(self, x) -> tuple[str, int] | None:
        """The body (file, start) of the analysed kernel whose body holds `x`'s span, or None."""
        for kb, kp in self.params.items():
            b = kp.kernel.body
            if x.span.file == b.file and b.start <= x.span.start and x.span.end <= b.end:
                return kb
        return None

    def atomic_name(self, at) -> str:
        """The variable an atomic's address names (as KernelFacts.atomic_base)."""
        return self.kernel_facts.atomic_base(at)

    def why_whole(self, a) -> str:
        """Why no rule applied to access `a` (for the explanation)."""
        if self.off:
            return self.off
        if a.function not in self.kernels:
            return f"in device function '{a.function}' (the proofs read kernels' own bodies)"
        parts = []
        if a.space in ("shared", "pointer"):
            why = self.intervals_why.get(a.function)
            parts.append(f"barrier intervals of '{a.function}' not analysed: {why}" if why else
                         "another thread may access its word in its barrier interval")
        if a.space in ("pointer", "global"):
            why = self.params_why.get(a.function)
            parts.append(f"no quiet parameter in '{a.function}': {why}" if why else
                         "not through a read-only, own or atomic parameter")
        return "; ".join(parts) or "no rule covers its memory space"


def _unit_off(prog: Program) -> str:
    """Why no proof runs in this unit, or ''."""
    shared = [r for r in prog.ranges if not r.local]   # (one between the thread's own locals touches no memory the proofs follow)
    if shared:
        r = shared[0]
        return (f"the unit copies or sets memory in device code ({r.name} at {r.span.where()}): the proofs do "
                f"not follow the bytes it touches")
    if prog.lib_atomics:
        return f"the unit uses libcu++ atomics ({prog.lib_atomics[0].span.where()}), which the proofs do not follow"
    for a in prog.accesses:
        if a.form in ("address", "call"):
            what = "an address given to a load/store intrinsic" if a.form == "address" else \
                "a reference a call returns"
            return f"the unit reaches memory through {what} ({a.span.where()}), which the proofs do not follow"
    return ""
