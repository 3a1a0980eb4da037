"""Straight into the event store, and the file through ingest: the store's checks agree
with the simulator's. Tampering in the store is an UPDATE past the triggers, and
``verify`` finds it where the manifest says."""

from __future__ import annotations

import io
from collections import Counter
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from audit.integrity.chains import verify_chains
from audit.models import Event
from audit.store.ingest import ingest_file
from audit.store.streams import envelope
from casino.simcheck import found_in_streams
from tables.simulator.config import SimConfig
from tables.simulator.faults import parse_at
from tables.simulator.run import simulate
from tables.simulator.store import StoreSink
from tests.audit.tampering import tamper_payload

from .helpers import events_of, expected, run

pytestmark = pytest.mark.django_db


def _stored() -> dict[str, list[dict]]:
    streams: dict[str, list[dict]] = {}
    for event in Event.objects.order_by("stream", "version"):
        streams.setdefault(event.stream, []).append(envelope(event, as_stored=True))
    return streams


def test_a_simulated_file_ingests_cleanly_and_verifies(tmp_path: Path) -> None:
    data, manifest = run(SimConfig(tables=7, rounds=15, seed="ingest", live_bets=30))
    path = tmp_path / "day.jsonl"
    path.write_bytes(data)
    report = ingest_file(str(path))
    assert report.ok, (report.bad_lines[:3], report.failed_streams)
    assert report.stored == manifest["events"] == Event.objects.count()
    assert verify_chains().ok
    # the store kept the file's hashes: the export is the file, line for line but positions
    lines = {event["id"]: event for event in events_of(data)}
    for stream in _stored().values():
        for event in stream:
            assert event["hash"] == lines[event["id"]]["hash"]


def test_a_tampered_line_is_refused_by_ingest(tmp_path: Path) -> None:
    data, manifest = run(
        SimConfig(tables=2, rounds=10, seed="t", live_bets=10, at=(parse_at("tamper@BJ-02:4"),))
    )
    path = tmp_path / "day.jsonl"
    path.write_bytes(data)
    fault = manifest["faults"][0]
    report = ingest_file(str(path))
    assert [bad.number for bad in report.bad_lines] == [fault["line"]]
    assert set(report.failed_streams) == {"BJ-02"}


def test_into_the_store_with_faults_each_found_where_the_manifest_says(tmp_path: Path) -> None:
    """Each fault planted into the store is found where the manifest says; tampering goes
    through the test suite's helper (the installed package cannot get past the triggers)."""
    at = tuple(
        parse_at(f)
        for f in (
            "tamper@BJ-02:5",
            "short_pay@BJ-03:4",
            "dealer_stands_16@BJ-05:2",
            "duplicate_event@BJ-01:7",
            "chip_variance@BJ-04:1",
            "tamper@BJ-06:30",
        )
    )
    config = SimConfig(tables=7, rounds=40, seed="store", live_bets=25, at=at)
    manifest = simulate(config, StoreSink(config, tamper=tamper_payload))
    assert len(manifest["faults"]) == 6 and manifest["not_planted"] == []
    assert Event.objects.count() == manifest["events"]
    report = verify_chains()
    problems = Counter((p.stream, p.kind, str(p.version), p.event_id) for p in report.problems)
    tampered = [f for f in manifest["faults"] if f["kind"] == "tamper"]
    assert problems == Counter(
        (f["table"], "altered", str(f["event"]["version"]), f["event"]["id"]) for f in tampered
    )
    found = found_in_streams(_stored())
    want = expected({"faults": [f for f in manifest["faults"] if f["kind"] != "tamper"]})
    assert found == want
    # the tampered row holds the manifest's player now
    for fault in tampered:
        row = Event.objects.get(event_id=fault["event"]["id"])
        assert row.payload["player"] == fault["altered"]["player"]


def test_tampering_into_the_store_is_refused_by_the_command() -> None:
    """``simulate --into-store`` cannot plant a tamper fault: exit 2, a line saying why,
    nothing written."""
    with pytest.raises(CommandError, match="tamper") as caught:
        call_command(
            "simulate",
            "--into-store",
            "--rounds",
            "5",
            "--fault",
            "tamper@BJ-02:2",
            stdout=io.StringIO(),
            stderr=io.StringIO(),
        )
    assert caught.value.returncode == 2
    assert Event.objects.count() == 0


def test_a_stream_already_in_the_store_is_refused() -> None:
    config = SimConfig(tables=1, rounds=2, seed="again", presets=("hoyle",))
    simulate(config, StoreSink(config))
    from tables.simulator.store import StreamExists

    with pytest.raises(StreamExists, match="BJ-01"):
        StoreSink(config)
