"""Draw the state machine from its specification: docs/fsm.png.

    python -m hirace.fsmdoc [--out docs/fsm.png]

One row per state, one column per input (access, sync, relation); each cell is
coloured by what the access does: stays, moves to another state (labelled with
the target's number), or reports a race."""
from __future__ import annotations

import argparse
import itertools
from pathlib import Path

from instrument.extras import require

from . import fsm


def draw(out: Path) -> None:
    require("python -m hirace.fsmdoc", "report", "matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap

    states = fsm.STATES[:-1]                       # RACE has no outgoing choices
    inputs = [(a, s, r) for a, s, r in itertools.product(fsm.ACCESSES, fsm.SYNCS, fsm.RELATIONS)]
    grid = []
    labels = []
    for st in states:
        row, lab = [], []
        for a, s, r in inputs:
            n = fsm.step(st, a, s, r)
            if n == fsm.RACE:
                row.append(2); lab.append("")
            elif n == st:
                row.append(0); lab.append("")
            else:
                row.append(1); lab.append(str(fsm.STATE_INDEX[n]))
        grid.append(row)
        labels.append(lab)
    fig, ax = plt.subplots(figsize=(22, 9))
    ax.imshow(grid, cmap=ListedColormap(["#e8eef4", "#9cc3e6", "#d9534f"]), aspect="auto")
    for i, lab in enumerate(labels):
        for j, text in enumerate(lab):
            if text:
                ax.text(j, i, text, ha="center", va="center", fontsize=6)
    ax.set_yticks(range(len(states)))
    ax.set_yticklabels([f"{fsm.STATE_INDEX[s]}: {s.name}" for s in states], fontsize=7)
    ax.set_xticks(range(len(inputs)))
    ax.set_xticklabels([f"{a} {s} {r}" for a, s, r in inputs], rotation=90, fontsize=6)
    for k in range(1, len(fsm.ACCESSES)):
        ax.axvline(k * len(fsm.SYNCS) * len(fsm.RELATIONS) - 0.5, color="black", lw=1)
    ax.set_xlabel("input: access (R W BA GA), sync (U W B), relation to the last accessor (S W B G)")
    ax.set_title(f"hirace access-history state machine: {len(fsm.STATES)} states. "
                 "Pale: state unchanged; blue: moves to the numbered state; red: RACE", fontsize=10)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m hirace.fsmdoc")
    ap.add_argument("--out", type=Path, default=Path("docs/fsm.png"))
    a = ap.parse_args(argv)
    draw(a.out)
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
