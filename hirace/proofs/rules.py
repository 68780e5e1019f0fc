"""The rules: each consults the fact table and proves, or not, that one access races with nothing.

A rule returns a `Proof` (the check it leaves, the launch condition it needs) or None; `decide` tries
them in order and falls back to the whole check, saying why. A rule never proves more than its
analysis found: the argument that each is sound is written at the top of the module that finds its
facts (intervals.py, tree_forms.py, apart.py, readonly_params.py, own_index.py), and each has a
model-checked test (tests/test_intervals.py, test_apart.py, test_readonly_params.py).
"""
from __future__ import annotations

from dataclasses import replace

from .facts import FactTable, key
from .proof import Proof, Rule, whole

ENTRY = {"read": "rd", "write": "wr", "rmw": "rmw"}   # the whole check of an access, by its kind


def quiet_shared_read(a, t: FactTable) -> Proof | None:
    """A read of a declared or dynamic shared array that no write shares its interval with."""
    if a.kind == "read" and a.bound in ("array", "dynamic") and key(a) in t.quiet:
        return Proof(Rule.QUIET_SHARED_READ, "rd_bounds")
    return None


def own_shared_words(a, t: FactTable) -> Proof | None:
    """An access of its thread's own words in its interval (own word, lanes apart, apart): the form
    found names its rule and its launch condition."""
    form = t.alone.get(key(a))
    if form is None or a.bound_base is None:
        return None
    return Proof(form.rule, ENTRY[a.kind] + form.entry_suffix, form.condition(a.base))


def own_param(a, t: FactTable) -> Proof | None:
    """An access through an own parameter whose own-index variable the kernel computes."""
    ps = t.param_sites.get(key(a))
    own = t.own_var.get((ps.kernel, ps.param)) if ps is not None and ps.own else None
    if own is None:
        return None
    var, test = own
    return Proof(Rule.OWN_PARAM, ENTRY[a.kind] + "_own", test, bit=ps.bit, own_var=var)


def readonly_param(a, t: FactTable) -> Proof | None:
    """A read through a read-only parameter."""
    ps = t.param_sites.get(key(a))
    if ps is None or ps.own or a.kind != "read":
        return None
    if ps.partner is not None:   # (passed the partner's pointer: quiet where the partner's index is own)
        own = t.own_var.get((ps.kernel, ps.partner))
        return Proof(Rule.READONLY_PARAM, "rd_paired", bit=ps.bit, own_var=own[0] if own else "false")
    return Proof(Rule.READONLY_PARAM, "rd_param", bit=ps.bit)


def call_context(a, t: FactTable) -> Proof | None:
    """An access through a context function's reference parameter, in a unit where some of its calls are
    proved (call_context.py): the call says whether it is checked."""
    if key(a) in t.context_sites:
        return Proof(Rule.CALL_CONTEXT, ENTRY[a.kind] + "_ctx")
    return None


ACCESS_RULES = (quiet_shared_read, own_shared_words, own_param, readonly_param, call_context)


def quiet_shared_atomic(at, t: FactTable) -> Proof | None:
    """An atomic on a shared array that only atomics touch in its interval."""
    if key(at) in t.quiet:
        return Proof(Rule.QUIET_SHARED_ATOMIC, _atomic_entry(at) + "_bounds")
    return None


def atomic_param(at, t: FactTable) -> Proof | None:
    """A device-scope atomic on an atomic parameter."""
    bit = t.atomic_bit.get((t.kernel_of(at), t.atomic_name(at))) if at.scope != "block" else None
    return Proof(Rule.ATOMIC_PARAM, "atomic_param", bit=bit) if bit is not None else None


def atomic_call(at, t: FactTable) -> Proof | None:
    """An atomic through a pointer parameter of an atomic function some of whose calls are proved
    (shared_calls.py): the call passes the array it may lie in, or nothing."""
    if key(at) in t.atomic_ctx_sites:
        return Proof(Rule.ATOMIC_CALL, _atomic_entry(at) + "_ctx")
    return None


ATOMIC_RULES = (quiet_shared_atomic, atomic_param, atomic_call)


def _atomic_entry(at) -> str:
    return "atomic_block" if at.scope == "block" else "atomic_device"


def decide(a, t: FactTable, host_device: bool = False) -> Proof:
    """The check of access `a`: the first rule that proves it, else the whole check. An access of a
    `__host__ __device__` function is checked whole where it runs in a kernel (`hd_` entries: no
    proof reads such a function, and its host calls stay as they are)."""
    if host_device:
        return whole("hd_" + ENTRY[a.kind], "in a __host__ __device__ function (checked whole where a kernel "
                                            "runs it; its host calls are not checked)")
    for rule in ACCESS_RULES:
        proof = rule(a, t)
        if proof is not None:
            return _in_bounds(proof, a, t)
    return whole(ENTRY[a.kind], t.why_whole(a))


def _in_bounds(proof: Proof, a, t: FactTable) -> Proof:
    """A shared access's proof, with its bounds proof where bounds.py found one and its check tests
    bounds (an own word's check tests none: its launch condition keeps it in bounds)."""
    inside = t.inside.get(key(a))
    if inside is None or proof.rule not in SHARED_RULES or proof.entry.endswith("_private"):
        return proof
    return replace(proof, inside=inside)


def decide_atomic(at, t: FactTable) -> Proof:
    """The check of an atomic: the first rule that proves it, else the whole check."""
    for rule in ATOMIC_RULES:
        proof = rule(at, t)
        if proof is not None:
            return proof
    return whole(_atomic_entry(at), _atomic_why(at, t))


def _atomic_why(at, t: FactTable) -> str:
    if t.off:
        return t.off
    if at.function not in t.kernels:
        return f"in device function '{at.function}' (the proofs read kernels' own bodies)"
    why = t.intervals_why.get(at.function)
    if why:
        return f"barrier intervals of '{at.function}' not analysed: {why}"
    return "another thread may access its word other than atomically in its interval, and it is not on an " \
           "atomic parameter"


# the rules whose accesses are to shared memory (a kernel whose every shared access has one of them
# never checks a shared word whole: hirace/planner.py _enter), and those on kernel parameters
SHARED_RULES = frozenset({Rule.QUIET_SHARED_READ, Rule.OWN_SHARED_WORD, Rule.LANES_APART, Rule.APART})
PARAM_RULES = frozenset({Rule.READONLY_PARAM, Rule.OWN_PARAM})
