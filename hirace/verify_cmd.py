"""`hirace verify-fsm`: check the state machine against the happens-before oracle."""
from __future__ import annotations

import argparse
import csv
import io
import re
import time

from instrument.cli_support import positive_int
from instrument.errors import UserError
from instrument.files import Output, check_outputs
from instrument.output import atomic_write_text

from . import fsm
from .modelcheck import check
from .oracle import Grid


def setup(p: argparse.ArgumentParser) -> None:
    p.add_argument("--events", "-k", type=positive_int, default=5, metavar="K",
                   help="check every trace of up to K events (default 5)")
    p.add_argument("--grid", default="2x2x2", metavar="BxWxT",
                   help="blocks x warps per block x threads per warp (default 2x2x2)")
    p.add_argument("--export", metavar="FILE.csv",
                   help="also write the transition table as CSV (access,sync,relation,state,new_state)")
    p.add_argument("--masks", action="store_true",
                   help="traces with syncs of part of a warp too (tiles, __syncwarp(mask), coalesced groups; "
                        "needs a power of two threads per warp)")
    p.add_argument("--memory", action="store_true",
                   help="traces with fences of both scopes and strong reads, writes and read-modify-writes of a "
                        "flag too: synchronisation through memory (docs/memory-model.md)")
    p.add_argument("--no-header", action="store_true",
                   help="skip replaying the traces through the CUDA header's routine (needs g++)")


def parse_grid(text: str) -> Grid:
    m = re.fullmatch(r"(\d+)x(\d+)x(\d+)", text)
    if not m or min(map(int, m.groups())) < 1:
        raise UserError(f"--grid must look like 2x2x2 (blocks x warps x threads), not '{text}'")
    return Grid(*map(int, m.groups()))


def export_csv(path: str) -> int:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["access", "sync", "relation", "state", "new_state"])
    n = 0
    for row in fsm.rows():
        w.writerow(row)
        n += 1
    atomic_write_text(path, buf.getvalue())
    return n


def run(args: argparse.Namespace, _extra) -> int:
    grid = parse_grid(args.grid)
    if not 1 <= args.events <= 12:
        raise UserError("--events must be between 1 and 12")
    check_outputs([Output("--export", args.export)])
    if args.export:
        n = export_csv(args.export)
        print(f"wrote {n} transitions over {len(fsm.STATES)} states to {args.export}")
    t0 = time.monotonic()
    if args.masks and (grid.lanes < 4 or grid.lanes & (grid.lanes - 1)):
        raise UserError(f"--masks needs a power of two threads per warp, 4 or more (the grid has {grid.lanes})")
    header = not args.no_header
    res = check(grid, args.events, with_header=header, masks=args.masks, memory=args.memory)
    dt = time.monotonic() - t0
    print(f"grid {grid.blocks}x{grid.warps}x{grid.lanes}, traces of up to {args.events} events "
          f"(threads, warps and blocks taken in order of first use)")
    print(f"  traces checked:     {res.traces:,} ({res.maximal:,} maximal, {res.racy:,} with a race)")
    print(f"  false alarms:       {res.disagreements['false alarm']}" +
          (" (allowed after a sync of part of a warp: see hirace/fsm.py, Lane groups)" if args.masks else ""))
    print(f"  missed races:       {res.disagreements['missed race']}")
    if header:
        print(f"  header replay:      {res.header_traces:,} traces, {res.header_disagreements} differ" +
              (" (built with HIRACE_MEMORY_SYNC=1)" if args.memory else ""))
    for cls, ex in res.examples.items():
        print(f"  first {cls}: {ex}")
    print(f"  states: {len(fsm.STATES)}, time: {dt:.1f}s")
    print(("OK: no race missed on any trace" if args.masks else
           "OK: the state machine agrees with the oracle on every trace") if res.ok else "FAILED: disagreements found")
    return 0 if res.ok else 1
