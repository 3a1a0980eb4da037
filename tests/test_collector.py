"""The collector's policy (audit.record.collector): a bulk block raises generation 0's
threshold, an acyclic block pauses the collector, and either puts the thresholds back
however it ends, nested or across threads; the bulk phases - the simulator's dealing, the
offline auditor's verify - run inside a bulk block and ingest and a table's replay inside
an acyclic one (each seen from inside the phase's own work, so that taking the block away
fails its test); and the acyclic phases make no cyclic garbage that grows with their work."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from audit.record import collector
from audit.record.collector import BULK_THRESHOLD, PAUSE, acyclic_work, bulk_work, freeze_startup

# thresholds no process starts with: what is put back is this, not the default
OUTSIDE = (701, 11, 12)


@pytest.fixture(autouse=True)
def thresholds() -> Iterator[None]:
    before = gc.get_threshold()
    gc.set_threshold(*OUTSIDE)
    try:
        yield
    finally:
        gc.set_threshold(*before)


def test_a_block_raises_generation_0_only_and_puts_it_back() -> None:
    with bulk_work():
        assert gc.get_threshold() == (BULK_THRESHOLD, 11, 12)
    assert gc.get_threshold() == OUTSIDE
    assert BULK_THRESHOLD > 700


def test_the_thresholds_come_back_after_an_exception() -> None:
    with pytest.raises(ZeroDivisionError), bulk_work():
        assert gc.get_threshold()[0] == BULK_THRESHOLD
        _ = 1 / 0
    assert gc.get_threshold() == OUTSIDE
    # and the next block starts from them again
    with bulk_work(5000):
        assert gc.get_threshold() == (5000, 11, 12)
    assert gc.get_threshold() == OUTSIDE


def test_blocks_nest() -> None:
    with bulk_work(5000):
        assert gc.get_threshold() == (5000, 11, 12)
        with bulk_work(20_000):
            assert gc.get_threshold() == (20_000, 11, 12)
            with bulk_work(1000):  # never lowered inside a block
                assert gc.get_threshold() == (20_000, 11, 12)
            assert gc.get_threshold() == (20_000, 11, 12)
        assert gc.get_threshold() == (5000, 11, 12)
    assert gc.get_threshold() == OUTSIDE
    with bulk_work(300):  # nor below the process's own
        assert gc.get_threshold() == OUTSIDE


def test_blocks_of_two_threads_ending_out_of_order_leave_nothing_raised() -> None:
    """A block opened first ends first, while one opened after it is still open: a
    save-and-restore per block would put back the thresholds from before both (under the
    open block) and then, at the second block's end, the first block's - raised for good."""
    entered, leave = threading.Event(), threading.Event()
    seen: list[tuple[int, int, int]] = []

    def first() -> None:
        with bulk_work(30_000):
            entered.set()
            leave.wait(5)
        seen.append(gc.get_threshold())

    thread = threading.Thread(target=first)
    thread.start()
    assert entered.wait(5)
    with bulk_work(5000):
        assert gc.get_threshold() == (30_000, 11, 12)
        leave.set()
        thread.join(5)
        # the first block ended: the one still open holds its own threshold
        assert seen == [(5000, 11, 12)] and gc.get_threshold() == (5000, 11, 12)
    assert gc.get_threshold() == OUTSIDE


def test_an_acyclic_block_pauses_the_collector_and_puts_it_back() -> None:
    with acyclic_work():
        assert gc.get_threshold() == (PAUSE, 11, 12) and PAUSE == 0
    assert gc.get_threshold() == OUTSIDE
    with pytest.raises(ZeroDivisionError), acyclic_work():
        _ = 1 / 0
    assert gc.get_threshold() == OUTSIDE


def test_a_pause_wins_over_bulk_blocks_open_beside_it_and_ends_with_its_block() -> None:
    with bulk_work(5000):
        with acyclic_work():
            assert gc.get_threshold() == (PAUSE, 11, 12)
            with bulk_work(20_000):  # a bulk phase inside a paused one stays paused
                assert gc.get_threshold() == (PAUSE, 11, 12)
        assert gc.get_threshold() == (5000, 11, 12)
    assert gc.get_threshold() == OUTSIDE


def test_a_pause_of_another_thread_ending_first_leaves_this_threads_block() -> None:
    entered, leave = threading.Event(), threading.Event()

    def pausing() -> None:
        with acyclic_work():
            entered.set()
            leave.wait(5)

    thread = threading.Thread(target=pausing)
    thread.start()
    assert entered.wait(5)
    with bulk_work(5000):
        assert gc.get_threshold() == (PAUSE, 11, 12)
        leave.set()
        thread.join(5)
        assert gc.get_threshold() == (5000, 11, 12)
    assert gc.get_threshold() == OUTSIDE and not collector._open


def test_a_bulk_block_never_pauses() -> None:
    with pytest.raises(ValueError, match="positive"), bulk_work(0):
        pass
    assert gc.get_threshold() == OUTSIDE and not collector._open


def test_a_collector_turned_off_by_threshold_stays_off() -> None:
    gc.set_threshold(0, 11, 12)
    with bulk_work():
        assert gc.get_threshold() == (0, 11, 12)
    assert gc.get_threshold() == (0, 11, 12)


def test_freeze_startup_freezes_what_is_alive() -> None:
    gc.unfreeze()
    try:
        freeze_startup()
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


def test_the_celery_processes_freeze_their_start_up_heap() -> None:
    from celery.signals import worker_init, worker_process_init

    from casino import celery

    connected = [
        receiver() for _, receiver in worker_init.receivers + worker_process_init.receivers
    ]
    assert celery._freeze_main in connected and celery._freeze_child in connected
    for receiver in (celery._freeze_main, celery._freeze_child):
        gc.unfreeze()
        try:
            receiver()
            assert gc.get_freeze_count() > 0
        finally:
            gc.unfreeze()
    assert not collector._open


# --- the phases run inside a block ----------------------------------------------------------


def _spy(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[int]:
    """``owner.name`` wrapped to note generation 0's threshold each time it is called."""
    seen: list[int] = []
    original = getattr(owner, name)

    def noting(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.get_threshold()[0])
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, noting)
    return seen


@pytest.fixture
def dealt_file(tmp_path, monkeypatch) -> tuple[str, list[int]]:
    """A simulated table's day (two live rounds) in a file; the threshold each round was
    dealt with."""
    from tables.simulator.config import SimConfig
    from tables.simulator.day import TableSim
    from tables.simulator.run import FileSink, simulate

    dealing = _spy(monkeypatch, TableSim, "play_round")
    config = SimConfig(
        tables=1, presets=("it-live",), rounds=2, seed="collector", live_bets=20, prefix="GC-"
    )
    path = tmp_path / "day.jsonl"
    with path.open("wb") as out:
        simulate(config, FileSink(out, config))
    assert gc.get_threshold() == OUTSIDE
    return str(path), dealing


def test_the_simulator_deals_in_a_block(dealt_file) -> None:
    _, dealing = dealt_file
    assert dealing and set(dealing) == {BULK_THRESHOLD}


def test_a_round_dealt_by_the_table_alone_is_in_a_block(monkeypatch) -> None:
    """TableSim.run itself, without simulate() around it (the live-round bench's way)."""
    from tables.simulator.config import SimConfig
    from tables.simulator.day import TableSim

    dealing = _spy(monkeypatch, TableSim, "play_round")
    config = SimConfig(
        tables=1, presets=("it-live",), rounds=1, seed="collector", live_bets=10, prefix="GC-"
    )
    chunks = list(TableSim(config, config.table_specs()[0]).run())
    assert chunks and dealing == [BULK_THRESHOLD] and gc.get_threshold() == OUTSIDE


@pytest.mark.django_db
def test_ingest_and_replay_run_in_a_block(dealt_file, monkeypatch, settings) -> None:
    from audit.store.ingest import ingest_file, plan, write
    from tables import projections, replay_service
    from tables.replay_service import replay_table

    settings.PROJECT_ON_APPEND = False
    path, _ = dealt_file
    planning = _spy(monkeypatch, plan._Planner, "plan")
    writing = _spy(monkeypatch, write, "_write_chunk")
    report = ingest_file(path, processes=1)
    assert report.ok and report.stored
    assert planning and set(planning) == {PAUSE}
    assert writing and set(writing) == {PAUSE}
    assert gc.get_threshold() == OUTSIDE

    folding = _spy(monkeypatch, projections, "fold_stream")
    recording = _spy(
        monkeypatch, replay_service, "findings_record"
    )  # after the fold: its rows' findings
    summary = replay_table(stream="GC-01", day=None, full=True, trigger="command")
    assert summary["rounds"] == 2 and summary["findings"] == 0
    assert folding == [PAUSE] and recording == [PAUSE]
    assert gc.get_threshold() == OUTSIDE

    rebuilding = _spy(monkeypatch, projections, "_project_stream")
    projections.rebuild("GC-01")
    assert rebuilding == [PAUSE] and gc.get_threshold() == OUTSIDE


def _simulated(folder: Any, rounds: int) -> str:
    from tables.simulator.config import SimConfig
    from tables.simulator.run import FileSink, simulate

    config = SimConfig(
        tables=2,
        presets=("hoyle", "it-live"),
        rounds=rounds,
        seed="acyclic",
        live_bets=20,
        prefix=f"AC{rounds}-",
    )
    path = folder / f"day-{rounds}.jsonl"
    with path.open("wb") as out:
        simulate(config, FileSink(out, config))
    return str(path)


def _garbage(work: Any) -> int:
    """The cyclic garbage ``work`` leaves: what a collection finds after it, with the
    collector off while it runs."""
    gc.collect()
    gc.disable()
    try:
        work()
        return gc.collect()
    finally:
        gc.enable()


@pytest.mark.django_db
def test_the_acyclic_phases_make_no_garbage_that_grows_with_their_work(tmp_path, settings) -> None:
    """Ingest and a table's replay run with the collector paused: the cyclic garbage
    they leave is the same for 12 rounds a table as for 60 (any cycle made per event or
    per round would grow with them, and a paused collector would never free it)."""
    from audit.store.ingest import ingest_file
    from tables import projections
    from tables.replay_service import replay_table

    settings.PROJECT_ON_APPEND = False
    warm = _simulated(tmp_path, 3)
    assert ingest_file(warm, processes=1).ok  # the first queries' one-time set-up, left out
    replay_table(stream="AC3-01", full=True, trigger="command")
    left: dict[str, list[int]] = {"ingest": [], "replay": [], "rebuild": []}
    for rounds in (12, 60):
        path = _simulated(tmp_path, rounds)
        left["ingest"].append(_garbage(lambda path=path: ingest_file(path, processes=1)))
        left["replay"].append(
            _garbage(
                lambda rounds=rounds: [
                    replay_table(stream=f"AC{rounds}-{table:02d}", full=True, trigger="command")
                    for table in (1, 2)
                ]
            )
        )
        left["rebuild"].append(
            _garbage(lambda rounds=rounds: projections.rebuild(f"AC{rounds}-02"))
        )
    for phase, (small, large) in left.items():
        assert large <= small + 10, (phase, small, large)


def test_the_offline_auditor_verifies_in_a_block(monkeypatch) -> None:
    from auditor import check

    verifying: list[int] = []
    monkeypatch.setattr(
        check, "_verify", lambda *a, **k: verifying.append(gc.get_threshold()[0]) or "outcome"
    )
    assert check.verify_package("package.zip") == "outcome"
    assert verifying == [BULK_THRESHOLD]
    tables = []
    monkeypatch.setattr(
        check, "_table_checked", lambda job: tables.append(gc.get_threshold()[0]) or job
    )
    assert check._table("job") == "job"  # type: ignore[arg-type]
    assert tables == [BULK_THRESHOLD]
    assert gc.get_threshold() == OUTSIDE


def test_a_file_replayed_offline_folds_in_a_block(monkeypatch) -> None:
    from tables.engine.replay import Replay
    from tables.replay_file import replay_stream

    folding = _spy(monkeypatch, Replay, "run")
    replay_stream("T1", iter(()), set())
    assert folding == [BULK_THRESHOLD] and gc.get_threshold() == OUTSIDE
