"""Dealer performance on a simulated day with dealer errors planted at a rate: each
dealer's errors are the faults planted in the rounds that dealer dealt (found here from
the record independently), every round is someone's, and the time dealt adds up to the
tables' time open; rates per hour follow the table's pace."""

from __future__ import annotations

import io
import json
from collections import Counter

import pytest

from audit.record.chain import parse_timestamp
from audit.record.shifts import ShiftPlan
from tables.analytics.dealers import RoundFinding, performance
from tables.engine.replay import replay
from tables.simulator.config import SimConfig
from tables.simulator.run import FileSink, simulate

from .helpers import SEATED

PLAN = ShiftPlan.parse("8h", day_start="06:00")


@pytest.fixture(scope="module")
def day():
    config = SimConfig(
        tables=3,
        rounds=300,
        seed="dealers",
        presets=SEATED,
        rates={"short_pay": 0.02, "overpay": 0.01, "dealer_stands_16": 0.01},
    )
    out = io.BytesIO()
    manifest = simulate(config, FileSink(out, config))
    streams: dict[str, list[dict]] = {}
    for line in out.getvalue().splitlines():
        event = json.loads(line)
        streams.setdefault(event["stream"], []).append(event)
    findings = [
        RoundFinding(stream, f.round, f.kind)
        for stream, events in streams.items()
        for f in replay(events).findings
        if f.round is not None
    ]
    return streams, manifest, findings


def _dealer_of_rounds(events):
    dealer, out = None, {}
    for event in events:
        if event["type"] == "dealer.assigned":
            dealer = event["payload"]["dealer"]
        elif event["type"] == "round.started":
            out[event["payload"]["round"]] = dealer
    return out


def test_each_dealer_is_charged_with_the_faults_planted_in_their_rounds(day) -> None:
    streams, manifest, findings = day
    dealers = {s: _dealer_of_rounds(events) for s, events in streams.items()}
    planted = Counter(dealers[f["table"]][f["round"]] for f in manifest["faults"])
    assert sum(planted.values()) >= 10
    rows = performance(streams.values(), findings, PLAN)
    charged = Counter()
    for row in rows:
        charged[row.dealer] += row.errors
    assert +charged == planted
    kinds = Counter()
    for row in rows:
        kinds.update(row.kinds)
    assert kinds == Counter(f["finding"]["kind"] for f in manifest["faults"])


def test_every_round_and_every_minute_open_is_a_dealers(day) -> None:
    streams, manifest, findings = day
    rows = performance(streams.values(), findings, PLAN)
    assert sum(r.rounds for r in rows) == manifest["rounds"]
    open_seconds = 0
    for events in streams.values():
        times = [
            e["occurred_at"] for e in events if e["type"] in ("dealer.assigned", "table.closed")
        ]
        open_seconds += int(
            (parse_timestamp(times[-1]) - parse_timestamp(times[0])).total_seconds()
        )
    assert sum(r.seconds for r in rows) == open_seconds
    assert {r.shift for r in rows} <= set(PLAN.labels) and len(
        {r.shift for r in rows}
    ) == 2  # 12:00 to 17:00 UTC
    # the table's pace is 60 rounds an hour; the day opens ten minutes before its first round
    pace = sum(r.rounds for r in rows) * 3600 / sum(r.seconds for r in rows)
    assert 50 <= pace <= 60
    assert max(r.rounds_per_hour for r in rows) <= 61
    ranked = [r.errors_per_hour or 0 for r in rows]
    assert ranked == sorted(ranked, reverse=True)
