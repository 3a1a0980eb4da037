"""Straight into the event store, and the file through ingest: the store's checks agree
with the simulator's. Tampering in the store is an UPDATE past the triggers, and
``verify`` finds it where the manifest says."""
from __future__ import annotations

import io
import json
from collections import Counter
from pathlib import Path

import pytest
from django.core.management import call_command

from audit.ingest import ingest_file
from audit.models import Event
from audit.store import envelope
from audit.verify import verify_chains
from tables.engine.replay import replay
from tables.simulator.config import SimConfig
from tables.simulator.reconcile import reconcile
from tables.simulator.run import simulate
from tables.simulator.store import StoreSink

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
    data, manifest = run(SimConfig(tables=2, rounds=10, seed="t", live_bets=10, at=(
        __import__("tables.simulator.faults", fromlist=["parse_at"]).parse_at("tamper@BJ-02:4"),)))
    path = tmp_path / "day.jsonl"
    path.write_bytes(data)
    fault = manifest["faults"][0]
    report = ingest_file(str(path))
    assert [bad.number for bad in report.bad_lines] == [fault["line"]]
    assert set(report.failed_streams) == {"BJ-02"}


def test_into_the_store_with_faults_each_found_where_the_manifest_says(tmp_path: Path) -> None:
    manifest_path = tmp_path / "manifest.json"
    out = io.StringIO()
    call_command(
        "simulate", "--into-store", "--tables", "7", "--rounds", "40", "--seed", "store", "--live-bets", "25",
        "--fault", "tamper@BJ-02:5", "--fault", "short_pay@BJ-03:4", "--fault", "dealer_stands_16@BJ-05:2",
        "--fault", "duplicate_event@BJ-01:7", "--fault", "chip_variance@BJ-04:1", "--fault", "tamper@BJ-06:30",
        "--manifest", str(manifest_path), stdout=out, stderr=io.StringIO(),
    )
    manifest = json.loads(manifest_path.read_text())
    assert len(manifest["faults"]) == 6 and manifest["not_planted"] == []
    assert Event.objects.count() == manifest["events"]
    report = verify_chains()
    problems = Counter((p.stream, p.kind, str(p.version), p.event_id) for p in report.problems)
    tampered = [f for f in manifest["faults"] if f["kind"] == "tamper"]
    assert problems == Counter((f["table"], "altered", str(f["event"]["version"]), f["event"]["id"]) for f in tampered)
    found: Counter[tuple[str, ...]] = Counter()
    for stream, events in _stored().items():
        for f in replay(events).findings:
            found[("replay", stream, f.kind, str(f.round))] += 1
        for f in reconcile(events):
            found[("reconcile", stream, f.kind, f.gaming_day)] += 1
    want = expected({"faults": [f for f in manifest["faults"] if f["kind"] != "tamper"]})
    assert found == want
    # the tampered row holds the manifest's player now
    for fault in tampered:
        row = Event.objects.get(event_id=fault["event"]["id"])
        assert row.payload["player"] == fault["altered"]["player"]


def test_a_stream_already_in_the_store_is_refused() -> None:
    config = SimConfig(tables=1, rounds=2, seed="again", presets=("hoyle",))
    simulate(config, StoreSink(config))
    from tables.simulator.store import StreamExists

    with pytest.raises(StreamExists, match="BJ-01"):
        StoreSink(config)
