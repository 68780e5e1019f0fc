"""Launch conditions: what a proof needs of a launch's shape, and the one place they are written.

A proof that an access races with nothing often holds only for some launches: the block must fit
the array that gives each thread its own word, the lanes' ranges must lie apart, a cap on a block
extent must hold. A condition is a typed value here; `device()` writes it as the kernel tests it
(the access falls back to the whole check where it fails), `host()` as the quiet version's host
test writes it for a launch (`__hirace_block`, `__hirace_grid`, extents of the kernel's shared
arrays), or None where it names something the host cannot evaluate.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

BLOCK, GRID = "__hirace_block", "__hirace_grid"   # the host test's names of the launch's shape
# words the host test may name besides the kernel's parameters and macros
_HOST_WORDS = {BLOCK, GRID, "x", "y", "z", "true", "false", "long", "hirace", "lanes_apart"}
_DIMS = "xyz"


class Condition:
    """What a launch must satisfy for a proof to hold."""

    def device(self, ns: str = "::hirace::") -> str:
        """As the kernel tests it (`ns`: the namespace of the runtime's helpers: the quiet version's
        own, `::hirace::q::`, where it calls them)."""
        raise NotImplementedError

    def host(self, extents: dict[str, list[str]], names: set[str]) -> str | None:
        """As the host tests it before a launch (see host_text)."""
        return host_text(self.device(), extents, names)


@dataclass(frozen=True)
class OwnWord(Condition):
    """A write `A[threadIdx.y][threadIdx.x]` (form 'yx'), `A[threadIdx.x]` ('x') ... is each thread's
    own word: the block's extent in the indexed dimensions fits the array's, and is 1 in the others."""
    array: str
    form: str

    def device(self, ns: str = "::hirace::") -> str:
        a = self.array
        rest = " && ".join(f"blockDim.{d} == 1" for d in _DIMS if d not in self.form)
        fits = [f"blockDim.{self.form[0]} <= sizeof({a}) / sizeof({a}[0])"]
        if len(self.form) == 2:
            fits.append(f"blockDim.{self.form[1]} <= sizeof({a}[0]) / sizeof({a}[0][0])")
        return "(" + " && ".join(filter(None, [rest, *fits])) + ")"


@dataclass(frozen=True)
class Inside(Condition):
    """An access to a declared array whose index a proof shows inside the array (bounds.py) where the
    block's extent in each dimension of `caps` fits the array's extent at its level, less l: `(d,
    level, l)`, `blockDim.d + l <= sizeof(A[0]...) / sizeof(A[0][0]...)` with `level` subscripts before
    the division's right operand. No caps: in every launch."""
    array: str
    caps: tuple[tuple[str, int, int], ...] = ()

    def device(self, ns: str = "::hirace::") -> str:
        a = self.array
        # (`blockDim.x + l <= extent`, not `blockDim.x <= extent - l`: an extent below l must not wrap)
        fits = [f"blockDim.{d}" + (f" + {less}" if less else "") +
                f" <= sizeof({a}{'[0]' * level}) / sizeof({a}{'[0]' * (level + 1)})" for d, level, less in self.caps]
        return "(" + (" && ".join(fits) or "true") + ")"


@dataclass(frozen=True)
class LanesApart(Condition):
    """Writes `A[lane + offset]` of threads whose lane is below a cap: each thread's words are its own
    where the ranges [offset, offset + min(cap, extent)) lie apart within the array (runtime
    `lanes_apart`) and the block is one lane wide. `ranges`: (offset, cap) C++ pairs."""
    array: str
    lane: str
    ranges: tuple[tuple[str, str], ...]

    def device(self, ns: str = "::hirace::") -> str:
        a = self.array
        rest = " && ".join(f"blockDim.{d} == 1" for d in _DIMS if d != self.lane)
        args = ", ".join(f"(long long)({off}), (long long)({cap})" for off, cap in self.ranges)
        return (f"({rest} && {ns}lanes_apart((long long)blockDim.{self.lane}, "
                f"(long long)(sizeof({a}) / sizeof({a}[0])), {args}))")


@dataclass(frozen=True)
class BlockBounds(Condition):
    """Conditions on the block's shape that an integer proof needed (`blockDim.x <= 16`, ...): of two
    caps on one extent the narrower holds both."""
    needs: frozenset

    def device(self, ns: str = "::hirace::") -> str:
        caps: dict[str, int] = {}
        rest = []
        for n in self.needs:
            m = re.fullmatch(r"blockDim\.([xyz]) <= (\d+)", n)
            if m:
                caps[m.group(1)] = min(caps.get(m.group(1), 1 << 30), int(m.group(2)))
            else:
                rest.append(n)
        parts = sorted(rest + [f"blockDim.{d} <= {c}" for d, c in caps.items()])
        return "(" + (" && ".join(parts) or "true") + ")"


@dataclass(frozen=True)
class OwnIndex(Condition):
    """An index `sum(c_i * coordinate_i) + offset` names one element per thread of the launch: the
    coefficients, sorted by size, each exceed the largest index the smaller ones reach (runtime
    `own_index`). `values`: the C++ of the six coefficients and the offset (and a counted loop's
    coefficient and count). `apart`: the 18 values (the index's, then another's) of each other index
    the kernel reads the parameter at, which must meet no element of this one (runtime
    `forms_apart`)."""
    values: tuple[str, ...]
    apart: tuple[tuple[str, ...], ...] = ()

    @property
    def test(self) -> str:
        """The runtime's test: `fold_index` for a butterfly's 17 values (own_index.Fold), else `own_index`."""
        return "fold_index" if len(self.values) == 17 else "own_index"

    def device(self, ns: str = "::hirace::") -> str:
        parts = [f"{ns}{self.test}({', '.join(self.values)})"]
        parts += [f"{ns}forms_apart({', '.join(pair)})" for pair in self.apart]
        return " && ".join(parts)

    def host(self, extents: dict[str, list[str]], names: set[str]) -> str | None:
        shape = lambda text: re.sub(r"\bblockDim\b", BLOCK, re.sub(r"\bgridDim\b", GRID, text))  # noqa: E731
        parts = [f"::hirace::host::{self.test}({BLOCK}, {GRID}, {shape(', '.join(self.values))})"]
        parts += [f"::hirace::host::forms_apart({BLOCK}, {GRID}, {shape(', '.join(pair))})" for pair in self.apart]
        return " && ".join(parts)


def host_text(cond: str, extents: dict[str, list[str]], names: set[str]) -> str | None:
    """A device condition (on blockDim, gridDim, `sizeof` of the kernel's shared arrays and `names`:
    its parameters, the macros its file expands and a kernel template's parameters, in scope in a
    template's test) as the host evaluates it for a launch, or None where it names anything else.
    `extents`: each shared array's declared extents as its type writes them (`16`; in a template,
    `T`), outermost first."""
    def extent(m: re.Match) -> str:
        dims = extents.get(m.group(1))
        k = len(m.group(2)) // 3   # (the subscripts "[0]" before the division's left operand)
        if not dims or k >= len(dims):
            return m.group(0)
        dim = str(dims[k]).strip()
        return dim if re.fullmatch(r"\d+", dim) else f"({dim})"
    out = re.sub(r"sizeof\((\w+)((?:\[0\])*)\)\s*/\s*sizeof\(\1(?:\[0\])*\)", extent, cond)
    out = re.sub(r"\bblockDim\b", BLOCK, re.sub(r"\bgridDim\b", GRID, out))
    words = set(re.findall(r"\b[A-Za-z_]\w*", out))   # (not a literal's suffix: `0ll`)
    return out if words <= _HOST_WORDS | names else None


def extents(type_text: str) -> list[str] | None:
    """A shared array type's extents as written in its type (`float[16][16]`; a template's
    `float[T][T + 1]`), outermost first, or None where they cannot be read."""
    at = type_text.find("[")
    if at < 0:
        return None
    out, depth, cur = [], 0, ""
    for ch in type_text[at:]:
        if ch == "[":
            depth += 1
            if depth == 1:
                cur = ""
                continue
        elif ch == "]":
            depth -= 1
            if depth == 0:
                out.append(cur.strip())
                continue
        elif depth == 0 and not ch.isspace():
            return None
        if depth > 0:
            cur += ch
    return out if depth == 0 and all(out) else None
