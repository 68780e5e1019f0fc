"""Mutation scores from a MutationResult: overall, per kernel, per operator."""
from __future__ import annotations

from collections import OrderedDict

from .outcomes import DETECTED, MutationResult, Status

STATUSES = tuple(s.value for s in Status)


def counts(outcomes) -> dict[str, int]:
    c = {s: 0 for s in STATUSES}
    for o in outcomes:
        c[Status(o.status).value] += 1
    c["total"] = len(outcomes)
    judged = len(outcomes) - c[Status.FAILED] - c[Status.IGNORED]   # not judged: counts neither way
    c["score"] = None if not judged else round(100.0 * sum(c[s] for s in DETECTED) / judged, 2)
    return c


def by(res: MutationResult, key: str) -> "OrderedDict[str, dict]":
    groups: OrderedDict[str, list] = OrderedDict()
    for o in res.outcomes:
        k = o.mutant.function if key == "function" else o.mutant.operator
        groups.setdefault(k, []).append(o)
    return OrderedDict((k, counts(v)) for k, v in groups.items())


def diff_line(o) -> tuple[str, str]:
    """The mutated source line before and after, for a one-line diff."""
    m = o.mutant
    try:
        data = open(m.file, "rb").read()
    except OSError:
        return m.original, m.replacement
    ls = data.rfind(b"\n", 0, m.start) + 1
    le = data.find(b"\n", m.end)
    le = len(data) if le < 0 else le
    before = data[ls:le].decode(errors="replace")
    after = (data[ls:m.start] + m.replacement.encode() + data[m.end:le]).decode(errors="replace")
    return before.strip(), after.strip()
