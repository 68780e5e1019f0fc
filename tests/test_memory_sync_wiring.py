"""Synchronisation through memory, wired into programs (issue 45, docs/memory-model.md "The device
wiring"): which units follow it (HIRACE_MEMORY_SYNC=1) and what their edits are, the hooks' constants
shared with the runtime, and the labelled corpus of fences, flags and locks (tests/cuda/races/ms_*.cu,
also run by test_hirace_corpus.py) with every verdict right on the cpu backend."""
import re

import pytest

from hirace import planner as hplanner
from hirace.config import Config
from hirace.planner import HiracePlanner
from instrument.compile import pipeline

from conftest import CUDA, ROOT
from test_hirace_corpus import _check, expected_lines

MS = sorted((CUDA / "races").glob("ms_*.cu"))
HOOKS = ROOT / "runtime" / "include" / "hirace" / "memory_sync_hooks.h"


def _instrument(src, tmp_path, lower_cpu=True):
    planner = HiracePlanner(Config(), lower_cpu=lower_cpu)
    ins = pipeline.instrument_sources([src], tmp_path, [planner], include_dirs=[src.parent], lower_cpu=lower_cpu)
    text = "".join(p.read_text() for p in ins.sources if p.suffix == ".cu")
    return planner, text


def test_the_hooks_constants_are_the_runtimes():
    enum = re.search(r"enum How : unsigned \{(.*?)\};", HOOKS.read_text(), re.S).group(1)
    header = {m.group(1): int(m.group(2)) for m in re.finditer(r"k(\w+) = (\d+)", enum)}
    names = {"OpMask": None, "Cas": "cas", "DeviceScope": "device", "ReleaseBefore": "release_before",
             "FullBefore": "full_before", "AcquireAfter": "acquire_after", "Strong": "strong", "ThenStore": "then_store",
             "Volatile": "volatile", "Held": "held"}
    for k, v in header.items():
        if names[k]:
            assert hplanner.MEMORY_HOW[names[k]] == v, k
    assert set(hplanner.MEMORY_HOW) - {"load", "store", "rmw"} == {n for n in names.values() if n}
    assert set(names) == set(header)
    assert hplanner.MEMORY_HOW["load"] == 0 and hplanner.MEMORY_HOW["store"] == 1 and hplanner.MEMORY_HOW["rmw"] == 2


def test_the_corpus_covers_the_patterns():
    names = {p.stem for p in MS}
    racy = {p.stem for p in MS if expected_lines(p)}
    for pattern in ("mp_blocks", "mp_warps", "lock_blocks", "lock_warps", "last_block_reduction", "lookback_scan"):
        assert any(n.startswith("ms_" + pattern) and n not in racy for n in names), pattern
        assert any(n.startswith("ms_" + pattern) and n in racy for n in names), pattern
    assert "ms_mp_blocks_fence_block_race" in racy and "ms_mp_blocks_block_atomic_race" in racy


@pytest.mark.parametrize("src", [CUDA / "races" / "sh_reduce_ok.cu", CUDA / "races" / "at_atomics_only.cu",
                                 CUDA / "races" / "lib_atomic_thread_scope_race.cu"], ids=lambda p: p.stem)
def test_units_without_fences_are_planned_as_before(src, tmp_path):
    planner, text = _instrument(src, tmp_path)
    assert not planner.memory_sync
    assert "HIRACE_MEMORY_SYNC=1" not in planner.defines()
    assert not re.search(r"before_block_barrier|after_fence|strong_(block|device)|lib_sync|::hirace::v(rd|wr)", text)


def test_units_with_fences_hook_fences_barriers_and_strong_accesses(tmp_path):
    planner, text = _instrument(CUDA / "races" / "ms_last_block_reduction_ok.cu", tmp_path)
    assert planner.memory_sync and "HIRACE_MEMORY_SYNC=1" in planner.defines()
    assert "(__threadfence(), ::hirace::after_fence(20u))" in text
    assert "(::hirace::before_block_barrier(), __syncthreads(), ::hirace::after_block_barrier())" in text
    # a CUDA atomic keeps the record's lock on the GPU until it happened (kHeld: 512; strong_done)
    assert re.search(r"::hirace::strong_done\(atomicInc\(::hirace::strong_device\(count, ::hirace::ran\(\d+u\), 582u", text)
    _, text = _instrument(CUDA / "races" / "ms_mp_blocks_volatile_ok.cu", tmp_path / "v")
    assert "::hirace::vwr(" in text and "::hirace::vrd(" in text
    _, text = _instrument(CUDA / "races" / "ms_mp_blocks_atomic_ref_ok.cu", tmp_path / "r")
    # a release store: a strong store of device scope with a releasing fence before; an acquire load
    release = 64 | 1 | 4 | 8
    acquire = 64 | 0 | 4 | 32
    assert f"lib_sync_ref(flag, ::hirace::ran(" in text
    assert re.search(rf"lib_sync_ref\(flag, ::hirace::ran\(\d+u\), {release}u\)\.store", text)
    assert re.search(rf"lib_sync_ref\(flag, ::hirace::ran\(\d+u\), {acquire}u\)\.load", text)


def test_orders_of_libcu_operations():
    class La:
        def __init__(self, use, order, scope="device", name="op"):
            self.use, self.order, self.scope, self.name = use, order, scope, name
    H = hplanner.MEMORY_HOW
    assert hplanner.lib_atomic_how(La("read", "relaxed")) == H["strong"] | H["load"] | H["device"]
    assert hplanner.lib_atomic_how(La("write", "seq_cst", "block")) == H["strong"] | H["store"] | H["full_before"]
    assert hplanner.lib_atomic_how(La("rmw", "acq_rel")) == \
        H["strong"] | H["rmw"] | H["device"] | H["release_before"] | H["acquire_after"]
    assert hplanner.lib_atomic_how(La("rmw", "seq_cst", name="compare_exchange_strong")) == \
        H["strong"] | H["cas"] | H["device"] | H["full_before"] | H["acquire_after"]
    assert hplanner.fence_how("block", "acquire") == H["acquire_after"]
    assert hplanner.fence_how("system", "seq_cst") == H["device"] | H["full_before"]


# (each program's verdict: tests/test_hirace_corpus.py, which runs every tests/cuda/races program)


@pytest.fixture(scope="module")
def lookback_scans(tmp_path_factory):
    """The look-back scans, race-free and under-fenced, built once (the block order is the run's)."""
    from hirace import runner
    from instrument.backends.cpu import CpuBackend
    config = Config(prior_sites=True)
    out = tmp_path_factory.mktemp("lookback")
    return config, {stem: runner.build([CUDA / "races" / f"{stem}.cu"], CpuBackend(), out / stem, config)
                    for stem in ("ms_lookback_scan_ok", "ms_lookback_scan_underfenced_race")}


@pytest.mark.parametrize("order", ["desc", "random:1", "random:2"])
def test_several_readers_of_one_release_under_other_block_orders(order, lookback_scans, monkeypatch):
    """The look-back scan's successors read one predecessor's aggregate and prefix (several readers of one
    release, docs/memory-model.md): with blocks run last to first or at random, the race-free scan reports
    nothing (it reported lines 30/36 and 33/22 before the readers' rule), and the scan whose prefix is
    published without a fence reports its labelled lines and no others (it added lines 20 and 31)."""
    from hirace import runner
    name, _, seed = order.partition(":")
    monkeypatch.setenv("CUDAEMU_BLOCK_ORDER", name)
    if seed:
        monkeypatch.setenv("CUDAEMU_SEED", seed)
    config, built = lookback_scans
    for stem, program in built.items():
        proc, res = runner.execute(program, config, timeout=120)
        assert res is not None and res.program_exit == 0, proc.stderr[-2000:]
        lines = {r.site.line for r in res.races} | {r.prior_site.line for r in res.races if r.prior_site}
        expect = expected_lines(CUDA / "races" / f"{stem}.cu")
        assert expect == ({28, 34} if stem.endswith("_race") else set())
        assert lines == expect, (stem, sorted(lines))
