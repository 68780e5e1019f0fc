"""Memory ratio (program + hirace) / program of bench/realworld programs on the cpu backend, for a tree.
usage: python mem_cpu.py TREE OUT.csv NAME..."""
import csv, sys, tempfile
from pathlib import Path
tree = Path(sys.argv[1]).resolve()
sys.path.insert(0, str(tree))
from bench.realworld.run import load_spec, prepare_run
from hirace import runner
from hirace.config import Config
from instrument import logs
from instrument.backends import get_backend
from instrument.protocol import HIRACE_LOG, Env
roots = {"samples": Path("/work/main/.realworld/samples"), "rodinia": Path("/work/main/.realworld/rodinia")}
spec = {p.name: p for p in load_spec(tree / "bench/realworld/programs.toml")}
be = get_backend("cpu", announce=False)
rows = []
for name in sys.argv[3:]:
    p = spec[name]
    base = roots[p.root]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        args = prepare_run(p, base, tmp / "run")
        try:
            exe = runner.build([base / s for s in p.sources], be, tmp / "hr", Config(), [base / d for d in p.include], p.defines).exe
        except Exception as e:
            print(name, "build failed", str(e)[:200], flush=True); continue
        log = tmp / "log.jsonl"
        r = be.run(exe, args, env={Env.HIRACE_LOG: str(log)}, cwd=tmp / "run", timeout=300)
        try:
            recs = logs.read(log, HIRACE_LOG, "log")
            end = recs["end"][-1]
            state = sum(((b.size + b.granularity - 1) // b.granularity) * 24 for b in recs["buffer"]
                        if getattr(b, "checked", 1))
            user = sum(b.size for b in recs["buffer"])
            ratio = (user + state) / user
            races = len(recs["race"])
        except Exception as e:
            print(name, "no log", r.returncode, str(e)[:200], flush=True); continue
        row = dict(program=name, exit=r.returncode, user=user, tool=state, ratio=round(ratio, 2), races=races)
        print(row, flush=True)
        rows.append(row)
with open(sys.argv[2], "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=["program", "exit", "user", "tool", "ratio", "races"])
    w.writeheader(); w.writerows(rows)
