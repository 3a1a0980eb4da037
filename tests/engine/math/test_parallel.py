"""The exact house edge computed in forked workers (up cards shared among them) and in
one process give the same floats; and where processes cannot or may not be made, the
analysis runs in one process (:mod:`tables.engine.math.processes` decides).

The runs that compare the two paths each go in a fresh interpreter: the analysis from
nothing clears every cache, which this test process shares with the other tests."""

import json
import multiprocessing
import subprocess
import sys
from pathlib import Path

import pytest

from tables.engine.math import cdz, processes

ROOT = Path(__file__).resolve().parents[3]

# one deck, resplits to three hands, doubles after splits, late surrender, H17: the split
# hands beyond the stand table (PairRemoval) are used; then two rule sets on the same shoe,
# served from what the first one left (received from the workers or not). Each mode from
# nothing, in one fresh interpreter
SCRIPT = r"""
import dataclasses, gc, json, multiprocessing, os, pickle
from tables.engine.math import cdz, dealer_removal, processes
from tables.engine.math.house_edge import clear_caches, house_edge
from tables.engine.presets import PRESETS

class Refused:
    def __init__(self, *args, **kwargs):
        raise OSError(11, "Resource temporarily unavailable")

pool = cdz.process_pool
calls = []
parallel = cdz._parallel
def counted(*args):
    calls.append(1)
    return parallel(*args)
cdz._parallel = counted
base = dataclasses.replace(PRESETS["vegas-s17-das-ls"], name="one-deck", decks=1, dealer_hits_soft_17=True,
                           max_split_hands=3)
later = [dataclasses.replace(base, name="no-surrender", surrender="none"),
         dataclasses.replace(base, name="no-das", double_after_split=False, max_split_hands=2)]
up_task = cdz._up_task
def dying(up):
    if up == 5:  # after the up cards before it were received: those are kept
        os._exit(1)
    return up_task(up)
def collector_off(up):  # a worker's collector is off (its error would be the caller's)
    assert not gc.isenabled(), "the collector runs in a worker"
    return up_task(up)

out = {}
for mode, asked in (("serial", "1"), ("parallel", "2"), ("refused", "2"), ("busy", "2"), ("dies", "2")):
    os.environ[processes.ENV] = asked
    cdz.process_pool = Refused if mode == "refused" else pool
    cdz._up_task = {"dies": dying, "parallel": collector_off}.get(mode, up_task)
    calls.clear()
    clear_caches()
    if mode == "busy":  # another thread forking for its own analysis
        cdz._FORKING.acquire()
    figures = [house_edge(rules).as_dict() for rules in [base, *later]]
    if mode == "busy":
        cdz._FORKING.release()
    table = dealer_removal.stand_table(1, True)
    out[mode] = {"figures": figures, "parallel_calls": len(calls),
                 "stand_table": pickle.dumps((table.probs, table.beyond)).hex(), "collector": gc.isenabled()}

# the chart is computed in this process once the workers are forked (they walk their rows
# meanwhile): when it is asked, the workers are there; and if it fails, the error comes
# through here, the workers stopped (not left waiting for it)
chart_for = cdz.chart_for
seen = []
def watched(rules):
    seen.append(len(multiprocessing.active_children()))
    return chart_for(rules)
class Failing(Exception):
    pass
def failing(rules):
    raise Failing("no chart")
os.environ[processes.ENV] = "2"
clear_caches()
cdz.chart_for = watched
out["chart"] = {"figures": [house_edge(base).as_dict()], "children_when_asked": seen}
clear_caches()
cdz.chart_for = failing
try:
    house_edge(base)
    out["chart_fails"] = "no error"
except Failing as error:
    out["chart_fails"] = str(error)
cdz.chart_for = chart_for
out["chart_fails_then"] = [house_edge(base).as_dict()]
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def runs() -> dict[str, dict[str, object]]:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    result: dict[str, dict[str, object]] = json.loads(done.stdout)
    return result


@pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="no fork on this platform"
)
def test_parallel_and_serial_give_the_same_floats(runs: dict[str, dict[str, object]]) -> None:
    serial, parallel = runs["serial"], runs["parallel"]
    assert serial["parallel_calls"] == 0
    assert (
        parallel["parallel_calls"] == 1
    )  # the first rule set only: the others find the shoe known
    # every figure, the same float (JSON keeps a float's shortest repr: equal text, equal bits)
    assert json.dumps(parallel["figures"]) == json.dumps(serial["figures"])
    assert parallel["stand_table"] == serial["stand_table"]
    # the workers' collector is off (their tasks assert it: see SCRIPT), this process's is not
    assert parallel["collector"] is True


@pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="no fork on this platform"
)
def test_no_process_can_be_made_falls_back_to_serial(runs: dict[str, dict[str, object]]) -> None:
    refused, serial = runs["refused"], runs["serial"]
    assert refused["parallel_calls"] == 1  # tried, refused, done here
    assert json.dumps(refused["figures"]) == json.dumps(serial["figures"])
    assert refused["stand_table"] == serial["stand_table"]


@pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="no fork on this platform"
)
def test_a_worker_dying_falls_back_to_serial(runs: dict[str, dict[str, object]]) -> None:
    dies, serial = runs["dies"], runs["serial"]
    assert dies["parallel_calls"] == 1  # begun in two processes, ended here
    assert json.dumps(dies["figures"]) == json.dumps(serial["figures"])
    assert dies["stand_table"] == serial["stand_table"]


@pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="no fork on this platform"
)
def test_another_thread_forking_means_serial(runs: dict[str, dict[str, object]]) -> None:
    busy, serial = runs["busy"], runs["serial"]
    assert busy["parallel_calls"] == 1  # asked, found the workers taken, done here
    assert json.dumps(busy["figures"]) == json.dumps(serial["figures"])
    assert busy["stand_table"] == serial["stand_table"]


@pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="no fork on this platform"
)
def test_the_chart_is_computed_while_the_workers_start(runs: dict[str, dict[str, object]]) -> None:
    chart = runs["chart"]
    assert chart["children_when_asked"] == [
        2
    ]  # asked once, in this process, the two workers forked
    assert json.dumps(chart["figures"]) == json.dumps(runs["serial"]["figures"][:1])


@pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="no fork on this platform"
)
def test_a_chart_that_fails_stops_the_workers(runs: dict[str, dict[str, object]]) -> None:
    """The error is the caller's (the run above would hang, its timeout fail, if the workers
    waited for the chart for ever), and the next analysis is whole."""
    assert runs["chart_fails"] == "no chart"
    assert json.dumps(runs["chart_fails_then"]) == json.dumps(runs["serial"]["figures"][:1])


def test_the_environment_decides(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(processes, "cpus", lambda: 8)
    monkeypatch.delenv(processes.ENV, raising=False)
    assert processes.processes() == processes.DEFAULT_LIMIT
    for asked, expected in (("1", 1), ("0", 1), ("", 1), (" 3 ", 3)):
        monkeypatch.setenv(processes.ENV, asked)
        assert processes.processes() == expected
    monkeypatch.setenv(processes.ENV, "two")
    with pytest.raises(ValueError, match=processes.ENV):
        processes.processes()


def test_one_cpu_means_one_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(processes.ENV, raising=False)
    monkeypatch.setattr(processes, "cpus", lambda: 1)
    assert processes.processes() == 1


def test_no_fork_means_one_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(processes.ENV, "2")
    monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: ["spawn"])
    assert processes.processes() == 1


def _report(queue: "multiprocessing.Queue[int]") -> None:
    queue.put(processes.processes())


@pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="no fork on this platform"
)
def test_a_daemon_process_analyses_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """A daemon process (a Celery prefork worker's child) may not have children: one
    process, whatever the environment asks."""
    monkeypatch.setenv(processes.ENV, "2")
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_report, args=(queue,), daemon=True)
    child.start()
    try:
        assert queue.get(timeout=60) == 1
    finally:
        child.join(timeout=60)
    assert processes.processes() == 2  # and this process, not a daemon, may


def test_the_parallel_orders_cover_every_up_card() -> None:
    assert sorted(cdz.PARALLEL_ORDER) == list(range(1, 11))
    assert sorted(cdz.RESPLIT_ORDER) == list(range(1, 11))
