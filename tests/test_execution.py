"""The execution layer (instrument/execution): builds shared per host, failures reported with
their reason, a dead worker's task retried at most twice on a Dask LocalCluster; and a mutation
campaign giving the same rows on 2 Dask workers as locally, also when a worker is killed in the
middle (the sweep's twin of that test is in test_indigo_bench.py, beside the local sweep it
compares with)."""
from __future__ import annotations

import csv
import os
import sys
import time
from pathlib import Path

import pytest

from instrument.errors import UserError
from instrument.execution import Campaign, HostBuild, Task, open_executor
from instrument.execution.host_builds import scratch_root

from conftest import ROOT

pytest.importorskip("distributed", reason="the Dask tests need dask[distributed] (the test extra installs it)")
import cloudpickle  # noqa: E402  (comes with dask)

# the workers of a LocalCluster cannot import this test module: send its functions by value
cloudpickle.register_pickle_by_value(sys.modules[__name__])


def _count_build(work: Path, counter: str, fail: bool):
    with open(counter, "a") as fh:
        fh.write("built\n")
    time.sleep(0.2)           # long enough for the other workers to queue up on the lock
    if fail:
        raise UserError("the compiler said no")
    (work / "prog").write_text("binary")
    return work / "prog"


def _use_build(built, i):
    if built.error:
        return f"{i}: {built.error}"
    return f"{i}: {Path(built.value).read_text()}"


def _ok(_built, i):
    return i * 2


def _boom(_built, i):
    raise ValueError(f"task {i} went wrong")


def _on_device(_built, log, i):
    """Note when this run holds its turn on the device (start, end)."""
    t0 = time.time()
    time.sleep(0.15)
    with open(log, "a") as fh:
        fh.write(f"{t0} {time.time()}\n")
    return i


def _most_at_once(log: Path) -> int:
    spans = [tuple(map(float, line.split())) for line in log.read_text().splitlines()]
    return max(sum(1 for a, b in spans if a <= t < b) for t, _ in spans)


@pytest.mark.parametrize("processes,slots", [(True, 1), (True, 2), (False, 1)])
def test_device_runs_take_turns_across_workers(tmp_path, processes, slots):
    """Runs that use the device hold one of `slots` turns, whether the workers are threads or
    processes: one at a time by default (clean timings), a few at once when asked."""
    log = tmp_path / "turns"
    tasks = [Task(str(i), _on_device, (str(log), i), device=True, device_slots=slots) for i in range(6)]
    with Campaign(open_executor(None, 3, "gpu", processes=processes), "turns") as c:
        done = {d.key: d for d in c.run(tasks)}
    assert all(done[str(i)].ok and done[str(i)].value == i for i in range(6))
    assert _most_at_once(log) == slots


@pytest.mark.parametrize("fail", [False, True])
def test_a_host_build_is_made_once_and_shared_even_when_it_fails(tmp_path, fail):
    counter = tmp_path / "count"
    build = HostBuild("prog", _count_build, (str(counter), fail))
    tasks = [Task(str(i), _use_build, (i,), build) for i in range(8)]
    ex = open_executor(None, 4, "cpu")
    with Campaign(ex, "t") as c:
        done = {d.key: d for d in c.run(tasks)}
        root = scratch_root(c.id)
    assert counter.read_text() == "built\n"
    assert c.stats.builds == 1 and c.stats.tasks == 8 and c.stats.failed == 0
    want = "the compiler said no" if fail else "binary"
    assert all(done[str(i)].value == f"{i}: {want}" for i in range(8))
    assert not root.exists()              # the campaign's scratch is removed at the end


def test_an_exception_in_a_task_is_its_failure_not_the_campaign(tmp_path):
    ex = open_executor(None, 2, "cpu")
    with Campaign(ex, "t") as c:
        done = {d.key: d for d in c.run([Task("a", _boom, (1,)), Task("b", _ok, (2,))])}
    assert not done["a"].ok and "ValueError: task 1 went wrong" in done["a"].error
    assert done["b"].ok and done["b"].value == 4
    assert c.stats.failed == 1 and c.stats.tasks == 2


def test_bad_jobs_and_unreachable_scheduler_are_clear_errors(monkeypatch):
    with pytest.raises(UserError, match="at least 1"):
        open_executor(None, 0, "cpu")
    from instrument.execution import dask_cluster
    monkeypatch.setattr(dask_cluster, "CONNECT_TIMEOUT", "2s")
    with pytest.raises(UserError, match="cannot reach the dask scheduler at tcp://127.0.0.1:9"):
        open_executor("tcp://127.0.0.1:9", 1, "cpu")


def test_dask_missing_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)     # import distributed -> ImportError
    with pytest.raises(UserError, match="needs Dask's distributed scheduler") as e:
        open_executor("local", 2, "cpu")
    assert "pip install" in e.value.hint


# ---------------------------------------------------------------- a dead worker's task on a LocalCluster

def _die_once(_built, marker: str):
    if not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(3)               # the worker process dies in the middle of the task
    return os.getpid()


def _always_die(_built):
    os._exit(3)


@pytest.fixture(scope="module")
def cluster():
    ex = open_executor("local", 2, "cpu")
    yield ex
    ex.close()


def test_a_task_whose_worker_dies_is_retried_elsewhere(cluster, tmp_path):
    with Campaign(cluster, "t") as c:
        done = list(c.run([Task("x", _die_once, (str(tmp_path / "died"),)), Task("y", _ok, (1,))]))
    x = next(d for d in done if d.key == "x")
    assert x.ok and x.attempts == 2 and isinstance(x.value, int)
    assert c.stats.retried == 1 and c.stats.failed == 0


def test_a_task_that_kills_every_worker_fails_after_two_retries(cluster):
    with Campaign(cluster, "t") as c:
        (d,) = list(c.run([Task("z", _always_die, ())]))
    assert not d.ok and d.attempts == 3 and "the worker running it died 3 times" in d.error
    assert c.stats.failed == 1


# ---------------------------------------------------------------- campaigns: dask rows == local rows

def test_mutation_campaign_on_two_dask_workers_matches_local_after_a_worker_is_killed(tmp_path, with_killer, tidy):
    from cltestcheck import suite as suite_mod
    from cltestcheck.mutate import engine
    s = suite_mod.load(ROOT / "tests" / "suites" / "mut_racy")
    local = engine.run(s, "cpu", None, runs=8, jobs=2, progress=False, results=tmp_path / "local.csv")
    # A kill can land between a worker's tasks (its result sent, the next not yet given), or the
    # campaign can end before the killer runs (a loaded machine): nothing to retry then. Try again
    # (at most four times) until a kill interrupts a task.
    for attempt in range(4):
        rows = tmp_path / f"dask{attempt}.csv"
        res, killed = with_killer(rows, 2, lambda: engine.run(s, "cpu", None, runs=8, jobs=2, progress=False,
                                                               dask="local", results=rows))
        assert res.execution.failed == 0
        if killed and res.execution.retried >= 1:
            break
    assert killed and res.execution.retried >= 1, "four tries, and no kill interrupted a task"
    status = lambda r: [(o.mutant.id, o.status, o.killed_by, o.covered_by, o.kills) for o in r.outcomes]  # noqa: E731
    assert status(res) == status(local) and len(res.outcomes) == 22
    # the rows too (not the reason's text: the first killing run of a racy or out-of-bounds mutant
    # prints whatever it read)
    with open(tmp_path / "local.csv") as a, open(rows) as b:
        assert tidy(csv.DictReader(b), ("reason",)) == tidy(csv.DictReader(a), ("reason",))
