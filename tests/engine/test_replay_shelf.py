"""A replay whose rounds are put away on a shelf once the next starts (what the offline
auditor folds with, ``Replay(compact=True, shelf=...)``): it holds each round as a
16-byte handle, and gives the same rounds and findings as a replay that keeps them all -
a late event that names an early round thaws it from the shelf."""

from __future__ import annotations

import copy
import uuid
from typing import Any

import pytest

from audit.record import shelf as shelves
from audit.record.shelf import Shelf, ShelvedMap
from tables.engine import rounds as shelved_rounds
from tables.engine.presets import PRESETS
from tables.engine.replay import Replay, replay
from tables.engine.rounds import ShelvedRounds
from tables.engine.simulate import deal_table

from .helpers import START


def _late(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """An early round's settlement corrected, and another early round voided, at the end."""
    settled = [e for e in events if e["type"] == "round.settled" and e["payload"]["settlements"]]
    last = events[-1]
    bet = settled[1]["payload"]["settlements"][0]
    out = list(events)
    for kind, payload in (
        (
            "correction.recorded",
            {
                "round": settled[1]["payload"]["round"],
                "corrects": settled[1]["id"],
                "reason": "short pay",
                "authorised_by": "pitboss",
                "settlements": [{**bet, "net": bet["net"] - 5}],
            },
        ),
        ("round.voided", {"round": settled[3]["payload"]["round"], "reason": "misdeal"}),
    ):
        event = copy.deepcopy(last)
        event.update(
            type=kind,
            payload=payload,
            version=out[-1]["version"] + 1,
            id=str(uuid.uuid5(uuid.NAMESPACE_OID, kind)),
        )
        out.append(event)
    return out


def test_a_shelved_replay_gives_what_a_replay_that_keeps_every_round_gives() -> None:
    events = _late(
        copy.deepcopy(deal_table(PRESETS["hoyle"], seed="shelf", rounds=30, start=START).events)
    )
    whole = replay(events)
    shelf = Shelf()
    try:
        state = Replay(compact=True, shelf=shelf)
        state.run(events)
        handles = [value for value in state.rounds.values() if isinstance(value, bytes)]
        assert len(handles) == len(state.rounds) - 2  # the round in play and the one voided late
        assert {len(handle) for handle in handles} == {16} and len(shelf) > 16 * len(handles)
        findings, rounds = state.final()
        assert findings == whole.findings
        assert list(rounds) == sorted(whole.rounds, key=lambda r: r.number)
        assert state.view() == whole
    finally:
        shelf.close()


def test_a_compact_replay_follows_a_late_correction_to_its_pickled_round() -> None:
    """Without a shelf too: the correction at the end finds its early round among the
    pickled ones (the engine's compiled build once read them with the dict's own lookup,
    passing over the one that thaws them, and reported the round as never played)."""
    events = _late(
        copy.deepcopy(deal_table(PRESETS["hoyle"], seed="shelf", rounds=30, start=START).events)
    )
    whole = replay(events)
    state = Replay(compact=True)
    state.run(events)
    assert any(isinstance(value, bytes) for value in state.rounds.values())
    findings, rounds = state.final()
    assert findings == whole.findings
    assert any(f.kind == "wrong_payout" for f in findings)
    assert not any(f.kind == "invalid_correction" for f in findings)
    assert list(rounds) == sorted(whole.rounds, key=lambda r: r.number)


def _event(like: dict[str, Any], kind: str, payload: dict[str, Any], name: str) -> dict[str, Any]:
    event = copy.deepcopy(like)
    event.update(type=kind, payload=payload, id=str(uuid.uuid5(uuid.NAMESPACE_OID, name)))
    return event


def _two_days() -> list[dict[str, Any]]:
    """Two gaming days of one table, each numbering its rounds from 1 (30 rounds, then
    20), with late events in the second day: a correction of a round only the first day
    played (by number, so the latest round of that number is looked for), the first
    day's round voided in the middle of the second, that round's settlement given again,
    a round of the second day started twice, and a correction that names the first day's
    settlement event."""
    first = copy.deepcopy(
        deal_table(PRESETS["hoyle"], seed="two-days", rounds=30, start=START).events
    )
    second = copy.deepcopy(
        deal_table(PRESETS["hoyle"], seed="two-days-2", rounds=20, start=START).events
    )
    for event in second:
        event["id"] = str(uuid.uuid5(uuid.NAMESPACE_OID, "day2-" + event["id"]))
        if event["type"] == "table.opened":
            event["payload"]["gaming_day"] = "2026-11-30"
    settled = {e["payload"]["round"]: e for e in first if e["type"] == "round.settled"}
    started = [n for n, e in enumerate(second) if e["type"] == "round.started"]
    late = [
        _event(
            second[0],
            "correction.recorded",
            {
                "round": 25,
                "corrects": None,
                "reason": "short pay",
                "authorised_by": "pitboss",
                "settlements": [
                    {**s, "net": s["net"] + 5} for s in settled[25]["payload"]["settlements"][:1]
                ],
            },
            "late-correction",
        ),
        _event(second[0], "round.voided", {"round": 27, "reason": "misdeal"}, "late-void"),
        _event(settled[27], "round.settled", dict(settled[27]["payload"]), "late-settled"),
        _event(
            second[0],
            "correction.recorded",
            {
                "round": None,
                "corrects": settled[4]["id"],
                "reason": "short pay",
                "authorised_by": "pitboss",
                "settlements": [
                    {**s, "net": s["net"] - 5} for s in settled[4]["payload"]["settlements"][:1]
                ],
            },
            "late-by-event",
        ),
    ]
    again = copy.deepcopy(second[started[2]])
    again["id"] = str(uuid.uuid5(uuid.NAMESPACE_OID, "started-again"))
    events = [*first, *second[: started[6]], *late, again, *second[started[6] :], late[1]]
    events[-1] = {**late[1], "id": str(uuid.uuid5(uuid.NAMESPACE_OID, "late-void-again"))}
    for version, event in enumerate(events, 1):
        event["version"] = version
    return events


@pytest.mark.parametrize("runs", [64, 1])
def test_a_replay_of_rounds_shelved_a_few_at_a_time_gives_what_one_of_a_dict_gives(
    monkeypatch: pytest.MonkeyPatch, runs: int
) -> None:
    """Batches of 4 rounds (and of 4 settlements' rounds), the index on the shelf every 8
    entries: two days of rounds
    numbered from 1 come out in the order of their numbers (the days merged, or sorted
    when there are more runs than the merge takes), the late events find their rounds,
    and every round and finding is the dict's."""
    monkeypatch.setattr(shelved_rounds, "BATCH", 4)
    monkeypatch.setattr(shelved_rounds, "RUNS", runs)
    monkeypatch.setattr(shelves, "ENTRIES", 8)
    monkeypatch.setattr(shelves, "BATCH", 4)  # the round.settled events' rounds
    events = _two_days()
    whole = replay(events)
    assert {"duplicate_event", "wrong_payout"} <= {f.kind for f in whole.findings}
    for by_number in (True, False):
        plain = Replay(compact=True)
        plain.run(events)
        shelf = Shelf()
        try:
            state = Replay(compact=True, shelf=shelf)
            state.run(events)
            assert isinstance(state.rounds, ShelvedRounds) and len(state.rounds.shelved.batches) > 8
            assert (
                isinstance(state.settled_events, ShelvedMap)
                and len(state.settled_events.batches) > 8
            )
            assert len(state.rounds) == len(plain.rounds)
            findings, rounds = state.final(by_number=by_number)
            expected_findings, expected = plain.final(by_number=by_number)
            assert findings == expected_findings == whole.findings
            assert list(rounds) == list(expected)
            assert state.view() == whole
        finally:
            shelf.close()
