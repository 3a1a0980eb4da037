"""PostgreSQL, a file written as it is planned - with one planner, planned in this process
and written by a thread beside it; with more, planned in child processes and written by
this one: the rows go in one transaction that commits only once every line is checked,
and is rolled back - the good streams then written from the spools in chunks, as the
two-pass ingest writes them - when a stream has a bad line, a stream moved meanwhile, or
the ingest dies."""

from __future__ import annotations

import io
import itertools
import json
import os
import sys
import threading
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connections

from audit.integrity.chains import verify_chains
from audit.models import Event, IngestRun
from audit.store.ingest import ingest_file, strategy, unfinished_ingests
from audit.store.ingest import plan as planning
from audit.store.ingest import write as writing
from audit.store.streams import events_append
from tests.samples import round_events, table_opened

from .tampering import empty_store

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
# one planning process beside the writer (a two-core machine's default), and two
PLANNERS = pytest.mark.parametrize("planners", [1, 2])


def _file(
    tmp_path: Path, streams: tuple[str, ...] = ("T1", "T2", "T3", "T4")
) -> tuple[Path, list[dict], list[str]]:
    """The streams' events, exported (position order: the streams interleaved), the
    store emptied; the rows and the hashes in position order."""
    for stream in streams:
        events_append(stream=stream, expected_version=0, events=[table_opened(stream)])
    for r in range(3):
        for k, stream in enumerate(streams):
            events_append(
                stream=stream, expected_version=1 + 25 * r, events=round_events(r + 1, rng_seed=k)
            )
    out = tmp_path / "events.jsonl"
    call_command("export_events", "--out", str(out), stderr=io.StringIO())
    hashes = list(Event.objects.order_by("position").values_list("hash", flat=True))
    empty_store()
    return out, [json.loads(line) for line in out.read_text().splitlines()], hashes


def _spy(monkeypatch, module, name: str) -> list[int]:
    calls: list[int] = []
    real = getattr(module, name)

    def spy(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, spy)
    return calls


@PLANNERS
def test_a_good_file_is_written_as_it_is_planned_and_committed_once(
    on_postgres, tmp_path, monkeypatch, planners
):
    path, rows, hashes = _file(tmp_path)
    written = _spy(monkeypatch, writing, "_write_planned")
    chunked = _spy(monkeypatch, writing, "_write_chunk")
    checked, progress = [], []
    report = ingest_file(
        str(path),
        processes=planners,
        overlap=True,
        chunk=20,
        checked=checked.append,
        progress=progress.append,
    )
    assert report.ok and report.stored == len(rows) == sum(progress) and checked[-1] == len(rows)
    assert written == [1] and chunked == []
    assert list(Event.objects.order_by("position").values_list("hash", flat=True)) == hashes
    run = IngestRun.objects.get()
    assert run.finished_at is not None and run.stored == len(rows) and run.line == len(rows)
    assert verify_chains().ok
    # again: every line is stored already, nothing is stored twice
    again = ingest_file(str(path), processes=planners, overlap=True, chunk=20)
    assert again.ok and again.stored == 0 and again.already_stored == len(rows)
    assert Event.objects.count() == len(rows) and unfinished_ingests() == []


def test_the_ids_of_fresh_streams_are_not_looked_up_and_a_file_again_is_stored_once(
    on_postgres, tmp_path, monkeypatch
):
    """A stream without a stored event can have none of its lines stored already: the
    plan written as it goes asks the store about none of their ids. Ingested again, every
    stream has stored events, so every id is asked, and every line found stored."""
    path, rows, _ = _file(tmp_path)
    asked: list[int] = []
    real = planning.stored_rows

    def counted(ids, texts=None):
        asked.append(len(ids))
        return real(ids, texts)

    monkeypatch.setattr(planning, "stored_rows", counted)
    report = ingest_file(str(path), processes=1, overlap=True, chunk=20)
    assert report.ok and report.stored == len(rows)
    assert asked and set(asked) == {0}
    asked.clear()
    again = ingest_file(str(path), processes=1, overlap=True, chunk=20)
    assert again.ok and again.stored == 0 and again.already_stored == len(rows) == sum(asked)


@PLANNERS
def test_a_fresh_streams_line_stored_in_another_stream_is_refused_by_the_database_and_named(
    on_postgres, tmp_path, monkeypatch, planners
):
    """The id of T3's last line is stored already, in another stream. The plan did not ask
    (T3 has no stored event): the key's unique index refuses the row in the transaction
    written as planned, which is undone; planned again with every id asked, the line is
    named as the two-pass ingest names it, and the other streams are stored."""
    path, rows, hashes = _file(tmp_path)
    (taken,) = events_append(stream="T9", expected_version=0, events=[table_opened("T9")])
    last_t3 = max(i for i, row in enumerate(rows) if row["stream"] == "T3")
    line = {
        k: v
        for k, v in rows[last_t3].items()
        if k not in ("recorded_at", "hash", "prev_hash", "position")
    }
    rows[last_t3] = {**line, "id": str(taken.event_id)}
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    copies = _spy(monkeypatch, writing, "copy_rows")
    report = ingest_file(str(path), processes=planners, overlap=True, chunk=20)
    assert [bad.number for bad in report.bad_lines] == [last_t3 + 1]
    assert f"id: {taken.event_id} is already stored with different" in report.bad_lines[0].reason
    assert set(report.failed_streams) == {"T3"}
    good = [h for h, row in zip(hashes, rows, strict=True) if row["stream"] != "T3"]
    assert report.stored == len(good) and report.lines == len(rows) and report.already_stored == 0
    assert len(copies) > 1  # written as planned, undone, written again
    assert (
        list(Event.objects.exclude(stream="T9").order_by("position").values_list("hash", flat=True))
        == good
    )
    assert Event.objects.get(event_id=taken.event_id).stream == "T9"
    assert IngestRun.objects.get().finished_at is not None and verify_chains().ok


def test_one_planner_plans_in_this_process_and_a_thread_writes_beside_it(
    on_postgres, tmp_path, monkeypatch
):
    """No process to start for one planner (a two-core machine's default): it plans here,
    with this process's warm caches, while another thread of it COPYs the planned rows."""
    path, rows, hashes = _file(tmp_path)
    where: dict[str, set[tuple[int, str]]] = {"plan": set(), "copy": set()}
    plan, copy = planning._Planner.plan, writing.copy_rows

    switches = set()

    def planned_where(self, lines):
        where["plan"].add((os.getpid(), threading.current_thread().name))
        switches.add(sys.getswitchinterval())
        plan(self, lines)

    def copied_where(batch):
        where["copy"].add((os.getpid(), threading.current_thread().name))
        copy(batch)

    monkeypatch.setattr(planning._Planner, "plan", planned_where)
    monkeypatch.setattr(writing, "copy_rows", copied_where)
    before = sys.getswitchinterval()
    report = ingest_file(str(path), processes=1, overlap=True, chunk=20)
    assert report.ok and report.stored == len(rows)
    here = (os.getpid(), threading.current_thread().name)
    assert where["plan"] == {here}
    assert (
        len(where["copy"]) == 1
        and where["copy"] != {here}
        and next(iter(where["copy"]))[0] == os.getpid()
    )
    assert list(Event.objects.order_by("position").values_list("hash", flat=True)) == hashes
    assert IngestRun.objects.get().finished_at is not None and verify_chains().ok
    # the writer gets its turns at the interpreter sooner while the planner runs, and the
    # process's switch interval is its own again after
    assert switches == {strategy._WRITER_SWITCH} and sys.getswitchinterval() == before


def test_the_switch_interval_is_put_back_also_when_the_planning_fails(
    on_postgres, tmp_path, monkeypatch
):
    path, _, _ = _file(tmp_path)
    before = sys.getswitchinterval()

    def fails(self, lines):
        assert sys.getswitchinterval() == strategy._WRITER_SWITCH
        raise RuntimeError("planning failed")

    monkeypatch.setattr(planning._Planner, "plan", fails)
    with pytest.raises(RuntimeError, match="planning failed"):
        ingest_file(str(path), processes=1, overlap=True, chunk=20)
    assert sys.getswitchinterval() == before
    assert not Event.objects.filter(stream__in=["T1", "T2"]).exists()


@PLANNERS
def test_a_bad_line_undoes_what_was_written_and_only_the_good_streams_are_stored(
    on_postgres, tmp_path, monkeypatch, planners
):
    path, rows, hashes = _file(tmp_path)
    # the last line of T2 breaks its schema: everything before it was written already
    last_t2 = max(i for i, row in enumerate(rows) if row["stream"] == "T2")
    rows[last_t2]["payload"] = {**rows[last_t2]["payload"], "unknown": 1}
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    copies = _spy(monkeypatch, writing, "copy_rows")
    chunked = _spy(monkeypatch, writing, "_write_chunk")
    report = ingest_file(str(path), processes=planners, overlap=True, chunk=20)
    assert [bad.number for bad in report.bad_lines] == [last_t2 + 1]
    assert set(report.failed_streams) == {"T2"}
    good = [h for h, row in zip(hashes, rows, strict=True) if row["stream"] != "T2"]
    assert report.stored == len(good)
    assert len(copies) > len(chunked) > 0  # written as planned, undone, written again in chunks
    assert not Event.objects.filter(stream="T2").exists()
    assert list(Event.objects.order_by("position").values_list("hash", flat=True)) == good
    assert IngestRun.objects.get().finished_at is not None and verify_chains().ok


@PLANNERS
def test_a_file_whose_streams_are_all_bad_from_their_first_line_stores_nothing(
    on_postgres, tmp_path, planners
):
    """Nothing was planned to write (each stream's first line is bad): undone, and the
    chunked write after it has nothing to write - no planned record, no spool to read."""
    path, rows, _ = _file(tmp_path, streams=("T1", "T2"))
    for stream in ("T1", "T2"):
        first = next(i for i, row in enumerate(rows) if row["stream"] == stream)
        rows[first]["payload"] = {**rows[first]["payload"], "unknown": 1}
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    report = ingest_file(str(path), processes=planners, overlap=True, chunk=20)
    assert (
        set(report.failed_streams) == {"T1", "T2"}
        and report.stored == 0
        and len(report.bad_lines) == 2
    )
    assert not Event.objects.exists() and IngestRun.objects.get().finished_at is not None


@PLANNERS
def test_an_ingest_killed_while_writing_as_it_plans_leaves_nothing_to_resume(
    on_postgres, tmp_path, monkeypatch, planners
):
    path, rows, hashes = _file(tmp_path)
    real = writing.copy_rows
    calls = []

    def dies_on_the_third(batch):
        if len(calls) == 2:
            raise KeyboardInterrupt  # as a kill would stop it, its transaction open
        calls.append(len(batch))
        real(batch)

    monkeypatch.setattr(writing, "copy_rows", dies_on_the_third)
    with pytest.raises(KeyboardInterrupt):
        ingest_file(str(path), processes=planners, overlap=True, chunk=20)
    assert calls == [20, 20]
    assert (
        Event.objects.count() == 0 and not IngestRun.objects.exists() and unfinished_ingests() == []
    )
    monkeypatch.setattr(writing, "copy_rows", real)
    report = ingest_file(str(path), processes=planners, overlap=True, chunk=20)
    assert report.ok and report.stored == len(rows) and report.already_stored == 0
    assert list(Event.objects.order_by("position").values_list("hash", flat=True)) == hashes


@PLANNERS
def test_a_stream_appended_to_while_planning_fails_from_there_and_the_rest_is_stored(
    on_postgres, tmp_path, monkeypatch, planners
):
    """Another writer appends to T1 after its head was read for the plan, before this
    ingest's lock: the transaction written as planned is undone and T1 is refused from
    its first line, as the two-pass ingest refuses it; the other streams are stored."""
    path, rows, _ = _file(tmp_path)
    real = writing._write_planned

    def another_writer_first(records, chunk, reached):
        records = iter(records)
        first = next(records)  # a row from each process: each has planned its first chunk

        def append() -> None:
            events_append(stream="T1", expected_version=0, events=[table_opened("T1")])
            connections.close_all()

        writer = threading.Thread(target=append)
        writer.start()
        writer.join()
        return real(itertools.chain([first], records), chunk, reached)

    monkeypatch.setattr(writing, "_write_planned", another_writer_first)
    report = ingest_file(str(path), processes=planners, overlap=True, chunk=20)
    first_t1 = next(i for i, row in enumerate(rows) if row["stream"] == "T1")
    assert [bad.number for bad in report.bad_lines] == [first_t1 + 1]
    assert "was appended to since this ingest began" in report.bad_lines[0].reason
    assert set(report.failed_streams) == {"T1"}
    assert report.stored == sum(1 for row in rows if row["stream"] != "T1")
    assert Event.objects.filter(stream="T1").count() == 1
    assert verify_chains().ok


@PLANNERS
def test_a_planning_process_that_fails_stores_nothing_and_its_error_is_raised(
    on_postgres, tmp_path, monkeypatch, planners
):
    path, _, _ = _file(tmp_path)
    real = planning._Planner.plan
    planned = []

    def fails_on_the_second_chunk(self, lines):
        if planned:
            raise RuntimeError("the planning process failed")
        planned.append(True)
        real(self, lines)

    # (inherited by the forked processes)
    monkeypatch.setattr(planning._Planner, "plan", fails_on_the_second_chunk)
    with pytest.raises(RuntimeError, match="the planning process failed"):
        ingest_file(str(path), processes=planners, overlap=True, chunk=20)
    assert Event.objects.count() == 0 and not IngestRun.objects.exists()
