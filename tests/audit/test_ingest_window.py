"""A planning process holds a window of the ids it has seen, not every id of the file:
past the window it writes them out, sorted, and the parent's merge finds an id met
again further on. The same chain is stored, and the same refusals made, as with every
id in memory."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command

from audit.models import Event
from audit.store.ingest import ingest_file, plan
from audit.store.streams import events_append
from tests.samples import round_events, table_opened

from .tampering import empty_store


def _rows(tmp_path: Path) -> list[dict]:
    """Two tables' streams (T1 and T4: planned by different processes), exported."""
    for stream, seed in (("T1", 0), ("T4", 3)):
        events_append(stream=stream, expected_version=0, events=[table_opened(stream)])
        for r in range(4):
            events_append(
                stream=stream,
                expected_version=1 + 25 * r,
                events=round_events(r + 1, rng_seed=seed),
            )
    out = tmp_path / "events.jsonl"
    call_command("export_events", "--out", str(out), stderr=io.StringIO())
    return [json.loads(line) for line in out.read_text().splitlines()]


def _write(tmp_path: Path, name: str, rows: list[dict]) -> str:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


# (processes, overlap): the two-pass plan in one process; two planning processes (on
# PostgreSQL: written as planned, in one transaction); one planner beside a writing thread
# (PostgreSQL; SQLite plans in two passes whatever is asked). Written as planned, the
# windows are sorted and merged only if the transaction is rolled back: an id met again
# past the window is otherwise the database's unique key's to refuse
HOW = pytest.mark.parametrize(
    "processes, overlap", [(1, None), (2, None), (1, True)], ids=["one", "two", "beside"]
)


def _ingest(path: str, processes: int, overlap: bool | None = None) -> plan.IngestReport:
    empty_store()
    return ingest_file(path, processes=processes, chunk=5, overlap=overlap)


@pytest.fixture
def windows(monkeypatch, tmp_path) -> Path:
    """A window of 12 ids; a file where each window's size is noted as it is written
    out (by whichever planning process: they are forked)."""
    noted = tmp_path / "windows"
    noted.touch()
    write_ids = plan._Planner.write_ids

    def counted(self):
        with noted.open("a") as out:
            out.write(f"{len(self.seen)}\n")
        write_ids(self)

    monkeypatch.setattr(plan, "_SEEN_WINDOW", 12)
    monkeypatch.setattr(plan._Planner, "write_ids", counted)
    return noted


@pytest.mark.django_db(transaction=True)
@HOW
def test_a_file_past_the_window_is_stored_as_with_every_id_in_memory(
    tmp_path, windows, processes, overlap
):
    rows = _rows(tmp_path)
    hashes = list(Event.objects.order_by("position").values_list("hash", flat=True))
    report = _ingest(_write(tmp_path, "good.jsonl", rows), processes, overlap)
    assert report.ok and report.stored == len(rows) == 202
    assert list(Event.objects.order_by("position").values_list("hash", flat=True)) == hashes
    # the ids were held a window at a time (a window, plus the chunk that filled it)
    sizes = [int(n) for n in windows.read_text().split()]
    assert len(sizes) > 202 // (12 + 5) and max(sizes) <= 12 + 5


@pytest.mark.django_db(transaction=True)
@HOW
@pytest.mark.parametrize("restore", [True, False], ids=["restore", "device"])
def test_an_id_met_again_past_the_window_is_refused_as_one_met_within_it(
    tmp_path, monkeypatch, processes, overlap, restore
):
    """A restore's line (version and hash given) and a device's (neither: appended as new
    events). A restore's hash covers the id, so a repeated id there past the window is
    refused for its hash (it is chained before the merge finds it twice), as one planned
    by the other process always was: the same lines and streams refused; a device's line
    is refused for the repeated id, with the same reason."""
    rows = _rows(tmp_path)
    if not restore:
        keep = ("id", "stream", "type", "occurred_at", "actor", "source", "payload")
        rows = [{k: r[k] for k in keep} for r in rows]
    t1 = [i for i, r in enumerate(rows) if r["stream"] == "T1"]
    t4 = [i for i, r in enumerate(rows) if r["stream"] == "T4"]
    # an id of T1's fourth line again, far on in T1 (the same process) and in T4 (the other)
    far = [dict(r) for r in rows]
    far[t1[90]] = {**far[t1[90]], "id": far[t1[3]]["id"]}
    far[t4[80]] = {**far[t4[80]], "id": far[t1[4]]["id"]}
    path = _write(tmp_path, "far.jsonl", far)
    every_id = _ingest(path, processes, overlap)  # the window holds the whole file
    monkeypatch.setattr(plan, "_SEEN_WINDOW", 12)
    windowed = _ingest(path, processes, overlap)
    assert [b.number for b in every_id.bad_lines] == sorted([t1[90] + 1, t4[80] + 1])
    assert [b.number for b in windowed.bad_lines] == [b.number for b in every_id.bad_lines]
    if not restore:
        assert all("appears twice in the file" in b.reason for b in windowed.bad_lines), (
            windowed.bad_lines
        )
        assert [b.reason for b in windowed.bad_lines] == [b.reason for b in every_id.bad_lines]
    else:  # (so is a restore's line repeating an id planned by the other process, as before)
        assert all(
            b.reason.startswith(("hash: ", "id: "))
            for b in [*every_id.bad_lines, *windowed.bad_lines]
        )
    assert set(windowed.failed_streams) == set(every_id.failed_streams) == {"T1", "T4"}
    assert Event.objects.filter(stream__in=["T1", "T4"]).count() == 0


@pytest.mark.django_db(transaction=True)
@HOW
def test_an_id_met_again_past_the_window_after_a_bad_line_is_named_too(
    tmp_path, monkeypatch, processes, overlap
):
    """T4's line 50 breaks its schema, and its line 80 repeats the id of T1's fourth line
    (a device's lines: nothing else wrong with them). Written as planned, T4 is not written
    on from its bad line, so the database never sees the repeat: the transaction is rolled
    back for the bad line, and only then are the planners' windows (written unsorted)
    sorted and merged - the repeat is named as with every id in memory, and T1 stored."""
    keep = ("id", "stream", "type", "occurred_at", "actor", "source", "payload")
    rows = [{k: r[k] for k in keep} for r in _rows(tmp_path)]
    t1 = [i for i, r in enumerate(rows) if r["stream"] == "T1"]
    t4 = [i for i, r in enumerate(rows) if r["stream"] == "T4"]
    rows[t4[50]] = {
        **rows[t4[50]],
        "payload": {**rows[t4[50]]["payload"], "tip": 5},
    }  # not in its schema
    rows[t4[80]] = {**rows[t4[80]], "id": rows[t1[3]]["id"]}
    path = _write(tmp_path, "both.jsonl", rows)
    every_id = _ingest(path, processes, overlap)
    assert [b.number for b in every_id.bad_lines] == [t4[50] + 1, t4[80] + 1]
    assert "appears twice in the file" in every_id.bad_lines[1].reason
    monkeypatch.setattr(plan, "_SEEN_WINDOW", 12)
    windowed = _ingest(path, processes, overlap)
    assert [(b.number, b.reason) for b in windowed.bad_lines] == [
        (b.number, b.reason) for b in every_id.bad_lines
    ]
    assert set(windowed.failed_streams) == set(every_id.failed_streams) == {"T4"}
    assert Event.objects.filter(stream="T1").count() == len(t1)
    assert Event.objects.filter(stream="T4").count() == 0
