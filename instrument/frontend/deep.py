"""Sources whose syntax nests deeper than Python's default recursion limit.

The parser's cursors, the query and the planners follow a source's syntax tree by recursion, one
level per nested expression or statement: a generated kernel that sums 1,200 terms nests 1,200
deep. Work on one source runs here in a thread with a large stack and a raised recursion limit,
and a tree deeper still is a UserError naming the source, never an internal error."""
from __future__ import annotations

import sys
import threading

from ..errors import UserError

STACK_BYTES = 512 << 20   # reserved address space; pages are only used as deep as the tree goes
RECURSION_LIMIT = 50_000  # Python frames; a nested expression costs a few (cursor visits included)

_lock = threading.Lock()
_active = 0


def run_deep(fn, source):
    """fn(), with room for `source`'s deepest syntax; its result, or its exception re-raised."""
    global _active
    out: dict = {}

    def body():
        try:
            out["value"] = fn()
        except BaseException as exc:   # (re-raised in the caller's thread)
            out["error"] = exc

    with _lock:
        _active += 1
        if _active == 1:
            out["limit"] = sys.getrecursionlimit()
            sys.setrecursionlimit(max(RECURSION_LIMIT, out["limit"]))
        previous = threading.stack_size()
        threading.stack_size(STACK_BYTES)
        try:
            worker = threading.Thread(target=body, name="deep-syntax", daemon=True)
            worker.start()
        finally:
            threading.stack_size(previous)
    try:
        worker.join()
    finally:
        with _lock:
            _active -= 1
            if _active == 0 and "limit" in out:
                sys.setrecursionlimit(out["limit"])
    error = out.get("error")
    if isinstance(error, RecursionError):
        raise UserError(f"{source}: the source nests expressions or statements deeper than the tools can follow "
                        f"(about {RECURSION_LIMIT // 10:,} levels)",
                        hint="split the deepest expression into several statements") from None
    if error is not None:
        raise error
    return out["value"]
