"""The host side of cltc's runtimes for kernels launched from Python on a GPU.

In a program, runtime/include/cltc/{coverage,mutate,schedule}.h run host code around
launches and at exit. Kernels launched from a Python test have no such host code, so
this module does the same work through the library's driver (cuda-python or pycuda:
instrument/kernel_lib/drivers.py), reading the same environment variables
and writing the same files: the active mutant goes into each module before its first
launch, every launch gets its block schedule, and at the end the coverage flags and
reached mutation sites are read back. The device variables have external names in
these modules (CLTC_KERNEL_MODULE), found under their Itanium-mangled names."""
from __future__ import annotations

import os
import struct

from instrument import logs
from instrument.kernel_lib.drivers import DriverError
from instrument.protocol import (COVERAGE_LOG, REACH_LOG, SCHEDULE_LOG, Env, ScheduleMode, SerialOrder,
                                 bit_row_words, parse_schedule)

MASK64 = (1 << 64) - 1


def mangled(*parts: str) -> str:
    """The mangled name of a namespace-scope variable: mangled('cltc', 'cov', 'g_flags')."""
    return "_ZN" + "".join(f"{len(p)}{p}" for p in parts) + "E"


def make_schedule(mode: int, first: int, seed: int, n: int, launch: int) -> list[int]:
    """ticket -> logical block, exactly as schedule.h's host::make_schedule (a test
    compares the two)."""
    order = list(range(n))
    if mode == ScheduleMode.FIRST and n:
        w = first % n
        order = [w] + [i for i in range(n) if i != w]
    elif mode == ScheduleMode.SERIAL and first == SerialOrder.DESC:
        order.reverse()
    elif mode == ScheduleMode.SERIAL and first == SerialOrder.RANDOM:
        x = (seed * 0x9E3779B97F4A7C15 + launch + 1) & MASK64
        for i in range(n, 1, -1):
            x ^= x >> 12
            x ^= (x << 25) & MASK64
            x ^= x >> 27
            j = (((x * 0x2545F4914F6CDD1D) & MASK64) >> 33) % i
            order[i - 1], order[j] = order[j], order[i - 1]
    return order


class ToolHost:
    """Hooks for instrument.kernel_lib.load.GpuLibrary: module_loaded, before_launch, finish."""

    def __init__(self, tools: list[str], env=os.environ):
        self.tools = set(tools)
        self.cov_log = env.get(Env.CLTC_COV_LOG, "")
        self.mutant = int(env.get(Env.CLTC_MUTANT, "0") or 0)
        self.reach_log = env.get(Env.CLTC_MUT_REACH, "")
        self.sched_log = env.get(Env.CLTC_SCHED_LOG, "")
        sched = parse_schedule(env.get(Env.CLTC_SCHEDULE))   # (as schedule.h's host::init reads it)
        self.mode, self.first, self.seed = int(sched.mode), sched.first, sched.seed
        self.launch_blocks: list[int] = []
        self.launches = 0
        self._gate_allocs: list = []
        self._done = False

    # -- hooks ---------------------------------------------------------------
    def module_loaded(self, lib, src, mod) -> None:
        if "mutate" in self.tools:
            ptr, _ = lib.driver.global_of(mod, mangled("cltc", "mut", "g_active_dev"))
            lib.driver.htod(ptr, struct.pack("<I", self.mutant))

    def before_launch(self, lib, kernel, grid) -> None:
        self.launches += 1
        n = grid[0] * grid[1] * grid[2]
        launch = len(self.launch_blocks)
        self.launch_blocks.append(n)
        if "amplify" not in self.tools:
            return
        drv = lib.driver
        self._free_gate(lib)
        ptrs = [0, 0, 0]
        if self.mode != ScheduleMode.NONE:
            import numpy as np
            order = np.array(make_schedule(self.mode, self.first, self.seed, n, launch), dtype=np.uint32)
            tickets, exits, sched = drv.alloc(8), drv.alloc(4 * n), drv.alloc(4 * n)
            self._gate_allocs = [tickets, exits, sched]
            drv.memset32(tickets, 0, 2)
            drv.memset32(exits, 0, n)
            drv.htod(sched, order)
            ptrs = [tickets, exits, sched]
        gate, _ = drv.global_of(lib.module(kernel.source), mangled("cltc", "sched", "g_gate"))
        drv.htod(gate, struct.pack("<I4xQQQ", self.mode, *ptrs))

    def finish(self, lib) -> None:
        if self._done:
            return
        self._done = True
        self._free_gate(lib)
        if "coverage" in self.tools and self.cov_log:
            self._write_coverage(lib)
        if "mutate" in self.tools and self.reach_log:
            self._write_reach(lib)
        if "amplify" in self.tools and self.sched_log:
            logs.write(self.sched_log, SCHEDULE_LOG,
                       [("launch", {"blocks": n}) for n in self.launch_blocks] + [("end", {})])

    # -- helpers -------------------------------------------------------------
    def _free_gate(self, lib) -> None:
        for a in self._gate_allocs:
            lib.driver.free(a)
        self._gate_allocs = []

    @staticmethod
    def _read(lib, mod, name: str) -> bytes:
        import numpy as np
        ptr, size = lib.driver.global_of(mod, name)
        buf = np.empty(size, dtype=np.uint8)
        lib.driver.dtoh(buf, ptr)
        return buf.tobytes()

    @classmethod
    def _counts(cls, lib, mod, name: str) -> dict[int, int]:
        """The nonzero 64-bit counters of cltc::cov::name ({} for a module without them: the
        compiler may drop counters that are never used)."""
        try:
            raw = cls._read(lib, mod, mangled("cltc", "cov", name))
        except DriverError:
            return {}
        return {i: n for i, (n,) in enumerate(struct.iter_unpack("<Q", raw)) if n}

    def _write_coverage(self, lib) -> None:
        flags: set[int] = set()
        bflags: set[int] = set()
        divs, total = [], 0
        counts: dict[int, int] = {}
        barrier_counts: dict[int, int] = {}
        for mod in lib.modules.values():
            item_flags = self._read(lib, mod, mangled("cltc", "cov", "g_flags"))
            barrier_flags = self._read(lib, mod, mangled("cltc", "cov", "g_barrier_flags"))
            flags |= {i for i, b in enumerate(item_flags) if b}
            bflags |= {i for i, b in enumerate(barrier_flags) if b}
            # what kernels noted in registers: bits in rows, one per SM (coverage.h, g_bits)
            row = bit_row_words(len(item_flags), len(barrier_flags))
            raw_bits = self._read(lib, mod, mangled("cltc", "cov", "g_bits"))
            seen = 0
            for r in range(0, len(raw_bits), 8 * row):
                seen |= int.from_bytes(raw_bits[r:r + 8 * row], "little")
            flags |= {i for i in range(len(item_flags)) if seen >> i & 1}
            bflags |= {i for i in range(len(barrier_flags)) if seen >> (len(item_flags) + i) & 1}
            # counts: zeros unless built with CLTC_COV_COUNTS=1 (then an item's count is set, not its flag)
            for i, n in self._counts(lib, mod, "g_counts").items():
                counts[i] = counts.get(i, 0) + n
                flags.add(i)
            for b, n in self._counts(lib, mod, "g_barrier_counts").items():
                barrier_counts[b] = barrier_counts.get(b, 0) + n
            count = struct.unpack("<I", self._read(lib, mod, mangled("cltc", "cov", "g_divergence_count")))[0]
            raw = self._read(lib, mod, mangled("cltc", "cov", "g_divergence"))
            cap = len(raw) // 24
            for k in range(min(count, cap)):
                b, bx, by, bz, arrived, threads = struct.unpack_from("<6I", raw, 24 * k)
                divs.append(("divergence", {"barrier": b, "block": [bx, by, bz], "arrived": arrived,
                                            "threads": threads}))
            total += count
        logs.write(self.cov_log, COVERAGE_LOG,
                   [("flag", {"id": i}) for i in sorted(flags)] + [("count", {"id": i, "n": n}) for i, n in sorted(counts.items())]
                   + [("barrier_flag", {"id": i}) for i in sorted(bflags)]
                   + [("barrier_count", {"barrier": b, "n": n}) for b, n in sorted(barrier_counts.items())]
                   + divs + [("end", {"launches": self.launches, "divergence_total": total})])

    def _write_reach(self, lib) -> None:
        reached: set[int] = set()
        for mod in lib.modules.values():
            reached |= {i for i, b in enumerate(self._read(lib, mod, mangled("cltc", "mut", "g_reached_dev"))) if b}
        logs.write(self.reach_log, REACH_LOG, [("reached", {"site": i}) for i in sorted(reached)] + [("end", {})])
