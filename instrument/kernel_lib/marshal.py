"""Python values -> kernel arguments, checked against the kernel's parameters.

Pointer parameters take a C-contiguous numpy array (or None for a null pointer) whose
dtype matches the element type; the array is copied to the device before the launch and
back after it, unless the element is const. Scalar parameters take Python or numpy
numbers that fit the C type. Every mismatch names the kernel and the parameter."""
from __future__ import annotations

from dataclasses import dataclass

from .signatures import KernelSig, Param


class KernelArgumentError(TypeError):
    """A launch whose arguments do not fit the kernel's parameters."""


@dataclass
class Prepared:
    param: Param
    array: object = None       # pointer parameters: the caller's array (None: null pointer)
    scalar: object = None      # scalar parameters: a numpy scalar of the parameter's type
    copy_back: bool = False


def dims(value, what: str, kernel: str) -> tuple[int, int, int]:
    """A grid or block size: an int or a tuple of 1 to 3 positive ints."""
    t = (value,) if isinstance(value, int) and not isinstance(value, bool) else value
    try:
        t = tuple(int(v) for v in t)
    except (TypeError, ValueError):
        raise KernelArgumentError(f"kernel '{kernel}': {what} must be an int or a tuple of up to 3 ints, "
                                  f"not {value!r}") from None
    if not 1 <= len(t) <= 3 or any(v < 1 for v in t):
        raise KernelArgumentError(f"kernel '{kernel}': {what} must have 1 to 3 positive sizes, not {value!r}")
    return t + (1,) * (3 - len(t))


def _describe(p: Param) -> str:
    return f"parameter '{p.name}' ({p.type})"


def prepare(sig: KernelSig, args: tuple) -> list[Prepared]:
    import numpy as np

    if sig.problem:
        raise KernelArgumentError(f"kernel '{sig.qualified}' cannot be launched from Python: {sig.problem}")
    if len(args) != len(sig.params):
        names = ", ".join(p.name for p in sig.params)
        raise KernelArgumentError(f"kernel '{sig.qualified}' takes {len(sig.params)} arguments ({names}), "
                                  f"got {len(args)}")
    out = []
    for p, v in zip(sig.params, args):
        if p.kind == "pointer":
            if v is None:
                out.append(Prepared(p))
                continue
            if not isinstance(v, np.ndarray):
                raise KernelArgumentError(f"kernel '{sig.qualified}': {_describe(p)} takes a numpy array, "
                                          f"not {type(v).__name__}")
            if not v.flags.c_contiguous:
                raise KernelArgumentError(f"kernel '{sig.qualified}': {_describe(p)}: the array is not "
                                          "C-contiguous (pass np.ascontiguousarray(a))")
            if p.dtype.startswith("record"):
                if v.dtype.itemsize != p.elem_size:
                    raise KernelArgumentError(
                        f"kernel '{sig.qualified}': {_describe(p)}: element size is {p.elem_size} bytes, "
                        f"the array's dtype {v.dtype} has {v.dtype.itemsize}")
            elif p.dtype and v.dtype != np.dtype(p.dtype):
                raise KernelArgumentError(f"kernel '{sig.qualified}': {_describe(p)} takes an array of "
                                          f"{p.dtype}, got {v.dtype}")
            if not p.const and not v.flags.writeable:
                raise KernelArgumentError(f"kernel '{sig.qualified}': {_describe(p)}: the kernel may write "
                                          "the array, but it is read-only")
            out.append(Prepared(p, array=v, copy_back=not p.const))
            continue
        dt = np.dtype(p.dtype)
        if isinstance(v, np.ndarray) or not isinstance(v, (int, float, bool, np.number, np.bool_)):
            raise KernelArgumentError(f"kernel '{sig.qualified}': {_describe(p)} takes a number, "
                                      f"not {type(v).__name__}")
        if dt.kind in "iub":
            if isinstance(v, (float, np.floating)):
                raise KernelArgumentError(f"kernel '{sig.qualified}': {_describe(p)} is an integer; "
                                          f"got the float {v!r}")
            iv = int(v)
            if dt.kind == "b":
                if iv not in (0, 1):
                    raise KernelArgumentError(f"kernel '{sig.qualified}': {_describe(p)} takes a bool, got {v!r}")
            else:
                info = np.iinfo(dt)
                if not info.min <= iv <= info.max:
                    raise KernelArgumentError(f"kernel '{sig.qualified}': {_describe(p)}: {iv} does not fit "
                                              f"(range {info.min}..{info.max})")
            out.append(Prepared(p, scalar=dt.type(iv)))
        else:
            out.append(Prepared(p, scalar=dt.type(v)))
    return out
