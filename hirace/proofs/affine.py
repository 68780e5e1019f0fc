"""Integer linear forms and whether a system of them has a solution.

`Lin` is sum(coef * var) + const over integers. `feasible(eqs, ineqs)` says whether some
assignment of the variables meets every `eq == 0` and `ineq >= 0`: it answers False only when it
has proved there is none (a greatest-common-divisor test on each equation, then Fourier-Motzkin
elimination over the rationals with each inequality tightened to integers); True means "maybe",
which is also its answer where the elimination grows past a bound. Used to prove that two
threads' accesses never name the same word (hirace/proofs/apart.py).
"""
from __future__ import annotations

from math import gcd

_MAX_ROWS = 4000   # inequalities an elimination may hold before it gives up ("maybe")


class Lin:
    __slots__ = ("coef", "const")

    def __init__(self, coef: dict[str, int] | None = None, const: int = 0):
        self.coef = {v: c for v, c in (coef or {}).items() if c}
        self.const = const

    @staticmethod
    def var(name: str) -> "Lin":
        return Lin({name: 1})

    def __add__(self, o: "Lin") -> "Lin":
        coef = dict(self.coef)
        for v, c in o.coef.items():
            coef[v] = coef.get(v, 0) + c
        return Lin(coef, self.const + o.const)

    def __sub__(self, o: "Lin") -> "Lin":
        return self + o.scale(-1)

    def scale(self, k: int) -> "Lin":
        return Lin({v: c * k for v, c in self.coef.items()}, self.const * k)

    def shift(self, k: int) -> "Lin":
        return Lin(self.coef, self.const + k)

    def is_const(self) -> bool:
        return not self.coef

    def rename(self, f) -> "Lin":
        out: dict[str, int] = {}
        for v, c in self.coef.items():
            out[f(v)] = out.get(f(v), 0) + c
        return Lin(out, self.const)

    def subst(self, v: str, by: "Lin") -> "Lin":
        if v not in self.coef:
            return self
        rest = Lin({k: c for k, c in self.coef.items() if k != v}, self.const)
        return rest + by.scale(self.coef[v])

    def key(self) -> tuple:
        return tuple(sorted(self.coef.items())), self.const

    def __eq__(self, o) -> bool:
        return isinstance(o, Lin) and self.key() == o.key()

    def __hash__(self) -> int:
        return hash(self.key())

    def __repr__(self) -> str:
        parts = [f"{c}*{v}" for v, c in sorted(self.coef.items())]
        return " + ".join(parts + [str(self.const)])


def _tighten(row: Lin) -> Lin | None:
    """`row >= 0` with the variables' coefficients divided by their gcd and the constant rounded
    down (integer solutions are kept); None when it holds for every assignment (no variable and
    a constant >= 0). A constant row < 0 is returned as it is (the system has no solution)."""
    if not row.coef:
        return None if row.const >= 0 else row
    g = 0
    for c in row.coef.values():
        g = gcd(g, abs(c))
    if g > 1:
        return Lin({v: c // g for v, c in row.coef.items()}, row.const // g)
    return row


def feasible(eqs: list[Lin], ineqs: list[Lin]) -> bool:
    """Maybe a solution of `eq == 0` for each eq and `ineq >= 0` for each ineq (see the module)."""
    eqs = list(eqs)
    rows = list(ineqs)
    while eqs:
        e = eqs.pop()
        if not e.coef:
            if e.const != 0:
                return False
            continue
        g = 0
        for c in e.coef.values():
            g = gcd(g, abs(c))
        if e.const % g:
            return False   # no integer solution
        # eliminate the variable of smallest coefficient (a unit one keeps the integers exact)
        v = min(e.coef, key=lambda x: (abs(e.coef[x]), x))
        c = e.coef[v]
        rest = Lin({k: x for k, x in e.coef.items() if k != v}, e.const)   # c*v + rest == 0
        sign = 1 if c > 0 else -1

        def elim(row: Lin) -> Lin:
            a = row.coef.get(v, 0)
            if not a:
                return row
            base = Lin({k: x for k, x in row.coef.items() if k != v}, row.const)
            return base.scale(abs(c)) - rest.scale(a * sign)   # |c| * row with c*v replaced by -rest

        eqs = [elim(x) for x in eqs]
        rows = [elim(x) for x in rows]
    return _fourier_motzkin(rows)


def _fourier_motzkin(rows: list[Lin]) -> bool:
    current: dict[tuple, Lin] = {}
    for r in rows:
        t = _tighten(r)
        if t is None:
            continue
        if not t.coef:
            return False
        current[t.key()] = t
    while True:
        vars_ = {v for r in current.values() for v in r.coef}
        if not vars_:
            return True

        def cost(v: str) -> tuple:
            # a variable whose coefficients are all +-1 first: its elimination loses no integer
            # solution, and the rows it leaves are tightened (a 32-wide tile row, a stride of 8)
            pos = sum(1 for r in current.values() if r.coef.get(v, 0) > 0)
            neg = sum(1 for r in current.values() if r.coef.get(v, 0) < 0)
            unit = all(abs(r.coef.get(v, 1)) == 1 for r in current.values())
            return (not unit, pos * neg - pos - neg, v)

        v = min(vars_, key=cost)
        pos = [r for r in current.values() if r.coef.get(v, 0) > 0]
        neg = [r for r in current.values() if r.coef.get(v, 0) < 0]
        nxt = {k: r for k, r in current.items() if v not in r.coef}
        for p in pos:
            for n in neg:
                a, b = p.coef[v], -n.coef[v]
                t = _tighten(p.scale(b) + n.scale(a))
                if t is None:
                    continue
                if not t.coef:
                    return False
                nxt[t.key()] = t
                if len(nxt) > _MAX_ROWS:
                    return True
        current = nxt
