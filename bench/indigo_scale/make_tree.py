"""Write an Indigo-sized tree of codes (590 by default) from a smaller labelled tree.

The real Indigo suite is kept for independent evaluation, so the sweep's time at its size is
measured on a stand-in: each code of the source tree (examples/indigo_mini/codes) is copied in
turn, under its own pattern folder, as `<pattern>_s<k>[_<tags>].cu` until `--count` codes exist.
A copy carries its number in a comment and a macro, so every copy is a distinct source that is
instrumented and compiled on its own (nothing is shared between copies but the headers); its
labels are the original's (the tags after the copy number).

  python3 bench/indigo_scale/make_tree.py --from examples/indigo_mini/codes --count 590 --out DIR
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from indigo_bench.codes import discover  # noqa: E402


def copy_name(stem: str, pattern: str, k: int) -> str:
    base = Path(pattern).name
    rest = stem[len(base):] if stem.startswith(base) else "_" + stem
    return f"{base}_s{k:03d}{rest}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--from", dest="src", required=True, type=Path)
    p.add_argument("--count", type=int, default=590)
    p.add_argument("--out", required=True, type=Path)
    a = p.parse_args(argv)
    codes, _ = discover(a.src)
    if a.out.exists() and any(a.out.iterdir()):
        print(f"make_tree: {a.out} is not empty; give a new folder", file=sys.stderr)
        return 2
    for i in range(a.count):
        c = codes[i % len(codes)]
        k = i // len(codes)
        dest = a.out / c.pattern / (copy_name(c.name, c.pattern, k) + ".cu")
        dest.parent.mkdir(parents=True, exist_ok=True)
        text = c.path.read_text()
        dest.write_text(f"// stand-in copy {k} of {c.name}.cu (bench/indigo_scale)\n"
                        f"#define INDIGO_SCALE_COPY {k}\n" + text)
    print(f"{a.count} codes from {len(codes)} in {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
