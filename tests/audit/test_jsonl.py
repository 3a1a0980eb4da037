"""Export to JSON Lines, ingest back, verify: the same chain."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from audit.models import Event
from audit.store.ingest import ingest_file
from audit.store.streams import events_append, stream_version
from tests.samples import round_events, table_opened

from .tampering import empty_store

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


def _fill(first: str = "T1", second: str = "T2") -> None:
    events_append(stream=first, expected_version=0, events=[table_opened(first)])
    events_append(stream=second, expected_version=0, events=[table_opened(second)])
    for r in range(4):
        events_append(stream=first, expected_version=1 + 25 * r, events=round_events(r + 1))
        events_append(
            stream=second, expected_version=1 + 25 * r, events=round_events(r + 1, rng_seed=3)
        )


def _export(tmp_path: Path, name: str = "events.jsonl", *args: str) -> Path:
    out = tmp_path / name
    call_command("export_events", "--out", str(out), *args, stderr=io.StringIO())
    return out


def _empty_store() -> None:
    empty_store()
    assert Event.objects.count() == 0


def _manage(db_url: str, *args: str) -> subprocess.CompletedProcess:
    # the heads published beside the fresh database, not the checkout's (a head an earlier
    # export_package there signed, with a key this database never saw, would fail verify)
    digests = str(Path(db_url.removeprefix("sqlite:///")).parent / "digests")
    env = {
        **os.environ,
        "DATABASE_URL": db_url,
        "DJANGO_SETTINGS_MODULE": "casino.settings",
        "DIGEST_PUBLISHERS": digests,
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        check=False,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_export_lines_are_envelopes_in_position_order(tmp_path):
    _fill()
    lines = [json.loads(line) for line in _export(tmp_path).read_text().splitlines()]
    assert len(lines) == 202
    assert [line["position"] for line in lines] == sorted(line["position"] for line in lines)
    assert set(lines[0]) == {
        "id",
        "stream",
        "version",
        "position",
        "type",
        "schema_version",
        "occurred_at",
        "recorded_at",
        "actor",
        "source",
        "payload",
        "prev_hash",
        "hash",
    }
    one = _export(tmp_path, "t2.jsonl", "--stream", "T2").read_text().splitlines()
    assert len(one) == 101 and all(json.loads(l)["stream"] == "T2" for l in one)


def test_export_ingest_into_an_empty_database_verify_gives_the_same_hashes(tmp_path):
    """A fresh database (a separate SQLite file, through the real commands) takes the
    export, verifies clean, and exports the very same hashes in the same order."""
    _fill()
    exported = _export(tmp_path)
    db = f"sqlite:///{tmp_path / 'fresh.sqlite3'}"
    assert _manage(db, "migrate", "-v0").returncode == 0
    ingest = _manage(db, "ingest", str(exported))
    assert ingest.returncode == 0, ingest.stderr
    assert "202 events stored" in ingest.stdout
    # without a signed head verify fails (nothing to check a cut tail against): sign one
    assert _manage(db, "verify").returncode == 1
    assert _manage(db, "digest").returncode == 0
    verify = _manage(db, "verify")
    assert verify.returncode == 0 and "all chains intact" in verify.stdout
    again = tmp_path / "again.jsonl"
    assert _manage(db, "export_events", "--out", str(again)).returncode == 0
    strip = lambda path: [
        {k: v for k, v in json.loads(l).items() if k != "position"}
        for l in path.read_text().splitlines()
    ]
    assert strip(again)[:-1] == strip(exported)  # and the head signed after


def test_ingest_in_process_restores_the_chain(tmp_path):
    _fill()
    exported = _export(tmp_path)
    hashes = list(Event.objects.order_by("position").values_list("hash", flat=True))
    _empty_store()
    report = ingest_file(str(exported), chunk=37)
    assert report.ok and report.stored == 202
    assert list(Event.objects.order_by("position").values_list("hash", flat=True)) == hashes


def test_ingesting_the_same_file_twice_stores_it_once(tmp_path):
    _fill()
    exported = _export(tmp_path)
    report = ingest_file(str(exported))
    assert report.ok and report.stored == 0 and report.already_stored == 202
    assert Event.objects.count() == 202


def test_bad_lines_are_reported_by_number_and_reason_and_their_stream_is_not_stored(tmp_path):
    """Bad lines are named with their line number and reason; nothing of a stream with a
    bad line is stored, while the good streams are."""
    _fill()
    lines = _export(tmp_path).read_text().splitlines()
    _empty_store()
    rows = [json.loads(l) for l in lines]
    t1 = [i for i, r in enumerate(rows) if r["stream"] == "T1"]
    rows[t1[5]]["payload"]["surprise"] = 1
    bet = next(i for i in t1 if i > t1[5] and rows[i]["type"] == "bet.placed")
    rows[bet]["payload"]["amount"] = "10"
    text = [json.dumps(r) for r in rows]
    text[t1[12]] = "{not json"
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(text) + "\n")
    err = io.StringIO()
    with pytest.raises(CommandError) as caught:
        call_command("ingest", str(path), stdout=io.StringIO(), stderr=err)
    assert caught.value.returncode == 1
    messages = err.getvalue()
    assert f"bad.jsonl:{t1[5] + 1}: payload.surprise: Object contains unknown field" in messages
    assert f"bad.jsonl:{bet + 1}: payload.amount: Expected `int`, got `str`" in messages
    assert f"bad.jsonl:{t1[12] + 1}: line: not JSON" in messages
    assert stream_version("T1") == 0
    assert stream_version("T2") == 101


def test_a_tampered_export_line_is_refused_by_its_hash(tmp_path):
    _fill()
    rows = [json.loads(l) for l in _export(tmp_path).read_text().splitlines()]
    _empty_store()
    victim = next(
        i for i, r in enumerate(rows) if r["type"] == "round.settled" and r["stream"] == "T2"
    )
    rows[victim]["payload"]["settlements"][0]["net"] += 100
    path = tmp_path / "tampered.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    report = ingest_file(str(path))
    assert [b.number for b in report.bad_lines] == [victim + 1]
    assert "hash" in report.bad_lines[0].reason
    assert "T2" in report.failed_streams
    assert stream_version("T1") == 101


def test_lines_without_version_or_hash_are_appended_as_new_events(tmp_path):
    """A device's file (no version, no recorded_at, no hash) is appended to the stream's end."""
    events_append(stream="T5", expected_version=0, events=[table_opened("T5")])
    path = tmp_path / "device.jsonl"
    with path.open("w") as out:
        for event in round_events(1):
            out.write(
                json.dumps(
                    {
                        "id": str(event.id),
                        "stream": "T5",
                        "type": event.type,
                        "occurred_at": event.occurred_at.isoformat(),
                        "actor": event.actor,
                        "source": "shoe-reader",
                        "payload": event.payload,
                    }
                )
                + "\n"
            )
    report = ingest_file(str(path))
    assert report.ok and report.stored == 25
    assert stream_version("T5") == 26


def test_version_that_does_not_follow_the_stored_head_is_refused(tmp_path):
    _fill()
    rows = [
        json.loads(l)
        for l in _export(tmp_path, "x.jsonl", "--stream", "T1").read_text().splitlines()
    ]
    _empty_store()
    path = tmp_path / "late.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows[50:]))
    report = ingest_file(str(path))
    assert not report.ok and "T1" in report.failed_streams
    assert "version 0" in report.bad_lines[0].reason
    assert Event.objects.count() == 0


def test_the_planning_processes_share_the_lines_by_stream_and_evenly():
    """Each stream goes, whole, to the process with the fewest lines when it first
    appears: streams of unequal length one after another (a simulator's file, a table at
    a time), or of equal length interleaved (an export in the store's order), come out
    even where a hash of their names need not; a line without a readable stream goes to
    the first. (Streams of unequal length interleaved are shared out by their number,
    as a hash would share them: which is long is not known when they first appear.)"""
    from audit.store.ingest.plan import _Router

    def line(stream: str) -> bytes:
        return json.dumps({"stream": stream, "type": "x"}).encode()

    sizes = {"A": 500, "B": 100, "C": 100, "D": 100, "E": 100, "F": 100}
    one_by_one = [line(name) for name, size in sizes.items() for _ in range(size)]
    interleaved = [line(name) for _ in range(200) for name in "ABCDEF"]
    for lines in (one_by_one, interleaved):
        router = _Router(2)
        taken = [router.part_of(text) for text in lines]
        streams: dict[bytes, set[int]] = {}
        for text, part in zip(lines, taken, strict=True):
            streams.setdefault(text, set()).add(part)
        assert all(len(parts) == 1 for parts in streams.values())
        assert router.lines == [taken.count(0), taken.count(1)]
        assert abs(router.lines[0] - router.lines[1]) <= 100, router.lines
    assert _Router(2).part_of(b"not json") == 0


def test_missing_file_exits_2():
    with pytest.raises(CommandError) as caught:
        call_command("ingest", "/nonexistent.jsonl")
    assert caught.value.returncode == 2


@pytest.mark.django_db(transaction=True)
def test_planning_in_two_processes_stores_what_one_process_stores(tmp_path):
    """The same file, planned by two processes, gives the same chain, the same positions
    order and the same refusals - an id repeated across streams planned apart included."""
    from audit.store.ingest.plan import _Router

    _fill("T1", "T4")
    lines = _export(tmp_path).read_text().splitlines()
    rows = [json.loads(l) for l in lines]
    # T1 and T4 are planned by different processes
    router = _Router(2)
    parts = {
        stream: {
            router.part_of(l.encode())
            for l, r in zip(lines, rows, strict=True)
            if r["stream"] == stream
        }
        for stream in ("T1", "T4")
    }
    assert len(parts["T1"]) == len(parts["T4"]) == 1 and parts["T1"] != parts["T4"]
    hashes = list(Event.objects.order_by("position").values_list("hash", flat=True))
    t1 = [i for i, r in enumerate(rows) if r["stream"] == "T1"]
    t2 = [i for i, r in enumerate(rows) if r["stream"] == "T4"]
    good = tmp_path / "good.jsonl"
    good.write_text("".join(json.dumps(r) + "\n" for r in rows))
    _empty_store()
    report = ingest_file(str(good), processes=2, chunk=40)
    assert report.ok and report.stored == 202
    assert list(Event.objects.order_by("position").values_list("hash", flat=True)) == hashes
    # a repeated id in the other stream, and a bad payload: both streams are refused
    bad_rows = [dict(r) for r in rows]
    bad_rows[t2[10]] = {**bad_rows[t2[10]], "id": bad_rows[t1[3]]["id"]}
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps(r) + "\n" for r in bad_rows))
    _empty_store()
    one = ingest_file(str(bad), processes=1)
    _empty_store()
    two = ingest_file(str(bad), processes=2)
    assert [b.number for b in two.bad_lines] == [b.number for b in one.bad_lines] == [t2[10] + 1], (
        two.bad_lines,
        one.bad_lines,
    )
    assert set(two.failed_streams) == set(one.failed_streams)
    assert Event.objects.filter(stream__in=two.failed_streams).count() == 0
