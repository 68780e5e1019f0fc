"""One new input from a parent: one to four changes stacked (AFL's havoc stage), each chosen among what
the input holds: a numeric argument, a text file's numbers or lines, a binary file's bytes and words,
an Indigo graph's structure (graphs.py), the standard input's numbers."""
from __future__ import annotations

import numpy as np

from . import graphs, values
from .inputs import Input

STACK = (1, 1, 1, 2, 2, 3, 4)


def formats(inp: Input) -> dict[str, str]:
    """Each file of the input by format: graph (ECLgraph), text or binary."""
    return {rel: "graph" if graphs.parse(data) is not None else "text" if values.is_text(data) else "binary"
            for rel, data in inp.files}


# how often each kind of thing is chosen, against a numeric argument's 1: a file is the larger part of
# an input, and a declared format's structure (a graph) what a size argument cannot change
WEIGHTS = {"arg": 1, "stdin": 1, "text": 2, "binary": 2, "graph": 4}


def _choices(inp: Input, kinds: dict[str, str]) -> list[tuple[str, str]]:
    out = [("arg", str(i)) for i, a in enumerate(inp.args) if values.is_number(a)]
    out += [(kinds[rel], rel) for rel, _ in inp.files]
    if inp.stdin:
        out.append(("stdin", ""))
    return out


def mutate(rng: np.random.Generator, parent: Input, parent_name: str, kinds: dict[str, str]) -> Input | None:
    """A child of `parent` (None: the parent holds nothing to change)."""
    choices = _choices(parent, kinds)
    if not choices:
        return None
    weights = np.array([WEIGHTS[kind] for kind, _ in choices], dtype=float)
    weights /= weights.sum()
    child, how = parent, []
    for _ in range(STACK[int(rng.integers(len(STACK)))]):
        kind, where = choices[int(rng.choice(len(choices), p=weights))]
        if kind == "arg":
            i = int(where)
            old = child.args[i]
            new = values.new_number(rng, old)
            child = child.with_arg(i, new)
            how.append(f"{child.arg_name(i)}: {old} -> {new}")
        elif kind == "stdin":
            data, what = values.mutate_text(rng, child.stdin.encode())
            child = _with_stdin(child, data.decode("utf-8", errors="replace"))
            how.append(f"stdin: {what}")
        else:
            change = {"graph": graphs.mutate_graph, "text": values.mutate_text, "binary": values.mutate_bytes}[kind]
            data, what = change(rng, child.file(where))
            child = child.with_file(where, data)
            how.append(f"{where}: {what}")
    return child.derived(parent_name, how)


def _with_stdin(inp: Input, text: str) -> Input:
    from dataclasses import replace
    return replace(inp, stdin=text)
