"""Two `cltc coverage --count-executions --json` reports of one suite (gpu, cpu): the executions of
every item must be equal (every thread is counted on both backends)."""
from __future__ import annotations

import json
import sys


def main(a: str, b: str) -> int:
    x, y = (json.load(open(p)) for p in (a, b))
    key = lambda i: (i["file"].rsplit("/", 1)[-1], i["line"], i["label"])  # noqa: E731
    ex = {key(i): i.get("executions") for i in x["items"]}
    ey = {key(i): i.get("executions") for i in y["items"]}
    diff = {k: (ex.get(k), ey.get(k)) for k in ex.keys() | ey.keys() if ex.get(k) != ey.get(k)}
    counted = sum(v is not None for v in ex.values())
    print(f"{a} vs {b}: {len(ex)} items, {counted} counted, {len(diff)} differ")
    for k, v in sorted(diff.items()):
        print(f"  {k}: {v[0]} | {v[1]}")
    return 1 if diff or not counted else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
