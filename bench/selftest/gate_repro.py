"""Reproduce a schedule-gate failure of `hirace selftest` on a GPU: build one generated program
plain and with cltc amplify's gate, run it under several schedules, and under compute-sanitizer.
    python bench/selftest/gate_repro.py SEED [SEED...]"""
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from cltestcheck.amplify.planner import SchedulePlanner  # noqa: E402
from selftest.generate import assemble, generate  # noqa: E402
from instrument.backends import BuildRequest  # noqa: E402
from instrument.backends.gpu import GpuBackend  # noqa: E402
from instrument.compile.pipeline import instrument_sources  # noqa: E402
from instrument.protocol import Env  # noqa: E402
from runtime import include_dir  # noqa: E402

gpu = GpuBackend()
for seed in map(int, sys.argv[1:]):
    d = Path(tempfile.mkdtemp(prefix=f"gate-{seed}-"))
    src = d / "p.cu"
    src.write_text(assemble([generate(seed)])[0])
    plain = gpu.build(BuildRequest([src], d / "plain", [], [], ["-fmad=false"]))
    instrumented = instrument_sources([src], d / "gated-src", [SchedulePlanner(gate=True)])
    srcs, incs = instrumented.sources, instrumented.include_dirs
    gated = gpu.build(BuildRequest(srcs, d / "gated", list(incs) + [include_dir()], [], ["-fmad=false"]))
    print(f"== seed {seed}: plain", subprocess.run([str(plain)], capture_output=True, text=True).stdout.strip())
    for sched in ("none", "asc", "desc", "free", "first:2"):
        r = subprocess.run([str(gated)], capture_output=True, text=True, env={Env.CLTC_SCHEDULE: sched, "PATH": "/usr/bin:/bin"})
        print(f"   {sched:8}", r.returncode, r.stdout.strip()[-60:], r.stderr.strip()[-200:])
    r = subprocess.run(["compute-sanitizer", "--print-limit", "3", str(gated)], capture_output=True, text=True,
                       env={Env.CLTC_SCHEDULE: "desc", "PATH": "/usr/local/cuda/bin:/usr/bin:/bin"})
    print("   sanitizer:", "\n".join(r.stdout.splitlines()[:25]))
    print("   gated source kept in", d)
