"""Side by side: cltc on the example pytest suite, gpu (pycuda) against cpu."""
from __future__ import annotations

import json
import sys
from pathlib import Path


def load(out: Path, name: str):
    p = out / name
    return json.loads(p.read_text()) if p.is_file() else None


def main(out: Path) -> None:
    for name in ("binding.txt", "pycuda.txt", "plain_gpu.txt", "plain_cpu.txt", "compare_backends.txt"):
        p = out / name
        print(f"== {name}\n" + ("\n".join(p.read_text().strip().splitlines()[-6:]) if p.is_file() else "(missing)"))
    cg, cc = load(out, "coverage_gpu.json"), load(out, "coverage_cpu.json")
    print("== coverage (gpu | cpu)")
    if cg and cc:
        for k in ("branches", "loops", "barriers"):
            print(f"  {k:9s} {cg['total'][k]['covered']}/{cg['total'][k]['total']} | "
                  f"{cc['total'][k]['covered']}/{cc['total'][k]['total']}")
        ig = [(i['file'], i['line'], i['label'], i['covered']) for i in cg["items"]]
        ic = [(i['file'], i['line'], i['label'], i['covered']) for i in cc["items"]]
        print(f"  items identical: {ig == ic}")
        for tg, tc in zip(cg["tests"], cc["tests"]):
            print(f"  {tg['test']}: covered {tg['covered']}/{tc['covered']} passed {tg['passed']}/{tc['passed']}")
    ag, ac = load(out, "amplify_gpu.json"), load(out, "amplify_cpu.json")
    print("== amplify verdicts (gpu | cpu)")
    if ag and ac:
        for tg, tc in zip(ag["tests"], ac["tests"]):
            print(f"  {tg['name']}: {tg['verdict']} | {tc['verdict']}")
    for kind in ("subset", "all"):
        mg, mc = load(out, f"mutate_{kind}_gpu.json"), load(out, f"mutate_{kind}_cpu.json")
        print(f"== mutate ({kind}) summary (gpu | cpu)")
        if not (mg and mc):
            print("  (missing)")
            continue
        print(f"  gpu {mg['summary']}\n  cpu {mc['summary']}")
        print(f"  judging took {mg['schemata']['judge_s']}s on gpu, {mc['schemata']['judge_s']}s on cpu")
        sc = {m["id"]: m for m in mc["mutants"]}
        diff = [(m, sc.get(m["id"])) for m in mg["mutants"] if sc.get(m["id"], {}).get("status") != m["status"]]
        print(f"  mutants with different outcomes: {len(diff)}")
        for g, c in diff:
            print(f"   #{g['id']} {Path(g['file']).name}:{g['line']} [{g['operator']}] {g.get('description', '')}: "
                  f"gpu {g['status']} ({g['reason'][:90]}) | cpu {c['status'] if c else '-'} ({(c or {}).get('reason', '')[:90]})")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
