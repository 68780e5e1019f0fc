"""What a unit built by cltc-cc carries of its own: its table (coverage items, mutants) as text of its
own object, registered by a call at the end of its main file when the program starts
(runtime/include/cltc/coverage_unit.h and mutate.h `register_this_unit`). Both planners in
`unit_mode` write that call here."""
from __future__ import annotations

from instrument.frontend.parse import Span
from instrument.frontend.query import Program
from instrument.frontend.rewrite import EditPlan


def c_strings(text: str, piece: int = 2000) -> str:
    """Text as adjacent C++ string literals of at most `piece` bytes each (no compiler limits one
    string's length then): its UTF-8 bytes, quotes, backslashes and `?` (trigraphs) escaped, every
    byte outside printable ASCII as a three-digit octal escape."""
    data = text.encode("utf-8", "surrogateescape")
    esc = {ord('"'): '\\"', ord("\\"): "\\\\", ord("?"): "\\?"}

    def byte(b: int) -> str:
        return esc.get(b) or (chr(b) if 32 <= b < 127 else f"\\{b:03o}")
    parts = [data[i:i + piece] for i in range(0, len(data), piece)] or [b""]
    return " ".join('"' + "".join(byte(b) for b in part) + '"' for part in parts)


def register_at_end(prog: Program, plan: EditPlan, call: str, what: str) -> None:
    """`namespace { const unsigned NAME = CALL; }` at the end of the unit's main file: the unit's
    registration, run when the program starts (`call` names the constant: `cltc_unit_first_ = ...`)."""
    main = prog.unit.main
    data = prog.unit.source(main).data
    text = f"\nnamespace {{ [[maybe_unused]] const unsigned {call}; }}\n"
    end = Span(main, len(data), len(data), data.count(b"\n") + 1, 1)
    plan.insert(end, len(data), text, what, allow_macro=True)
