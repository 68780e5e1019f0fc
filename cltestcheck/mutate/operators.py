"""Mutation operators: their names, what they do, and the operator codes the runtime header uses."""
from __future__ import annotations

from instrument.protocol import MUTATION_OPS

OPERATORS = {
    "arithmetic": "+ - * / % swapped among themselves (% only between integers)",
    "relational": "< <= > >= == != swapped among themselves (boundary pairs included)",
    "bitwise": "& | ^ << >> swapped among themselves",
    "logical": "&& and || swapped; `!` dropped",
    "assignment": "+= -= *= /= %= (and &= |= ^= <<= >>=) swapped within their family and to `=`; `=` to `+=`",
    "unary": "++ and -- swapped; arithmetic negation dropped",
    "barrier": "__syncthreads() / __syncwarp() deleted",
    "loop": "loop skipped; loop bound moved by one (n-1 and n+1 iterations of a counted loop)",
    "atomic": "atomicAdd/Sub/Exch/Min/Max/Inc/Dec/And/Or/Xor/CAS made a plain read-modify-write",
    "thread-index": "threadIdx.c + 1, threadIdx.c - 1, threadIdx.c and blockIdx.c swapped",
    "shared-index": "index of a __shared__ array + 1 and - 1",
}

# the operator codes of runtime/include/cltc/mutate.h (generated from instrument/protocol.py)
CODE = {op: code for op, (code, _) in MUTATION_OPS.items()}

ARITH = ("+", "-", "*", "/", "%")
REL = ("<", "<=", ">", ">=", "==", "!=")
BITS = ("&", "|", "^", "<<", ">>")
ARITH_ASSIGN = ("+=", "-=", "*=", "/=", "%=")
BITS_ASSIGN = ("&=", "|=", "^=", "<<=", ">>=")

STRYKER_NAME = {
    "arithmetic": "ArithmeticOperator", "relational": "EqualityOperator", "bitwise": "BitwiseOperator",
    "logical": "LogicalOperator", "assignment": "AssignmentOperator", "unary": "UnaryOperator",
    "barrier": "BarrierDeletion", "loop": "LoopBoundary", "atomic": "AtomicToPlain",
    "thread-index": "ThreadIndex", "shared-index": "SharedIndex",
}


def parse_list(text: str | None) -> list[str]:
    """`--operators a,b` -> the list; unknown names are an error naming them."""
    from instrument.errors import UserError
    if not text:
        return list(OPERATORS)
    names = [n.strip() for n in text.split(",") if n.strip()]
    bad = [n for n in names if n not in OPERATORS]
    if bad:
        raise UserError(f"unknown mutation operator(s): {', '.join(bad)}",
                        hint="see `cltc mutate --list-operators`")
    return names
