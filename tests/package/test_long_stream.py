"""A long table's audit keeps little of what it read (issue 12): the event ids as 16 bytes
each, the rounds that nothing later can reach let go. What a late event says about an
early one must still count exactly as when everything was kept: a repeated id, a
correction or a void of an early round, an event a correction strikes."""
from __future__ import annotations

import copy
import uuid
from typing import Any

import pytest

from audit.record.ids import IdSet
from auditor.reports import StreamAudit, StreamReports
from ledger.books.fold import Fold
from tables.engine.presets import PRESETS
from tables.engine.replay import Replay
from tables.engine.simulate import deal_table
from tests.engine.helpers import START


def test_the_id_set_holds_each_id_exactly() -> None:
    ids = IdSet()
    canonical = [str(uuid.uuid5(uuid.NAMESPACE_URL, str(n))) for n in range(20_000)]
    for event_id in canonical[::2]:
        ids.add(event_id)
    assert all(event_id in ids for event_id in canonical[::2])
    assert not any(event_id in ids for event_id in canonical[1::2])
    # the upper-case text of a held UUID, a space for a digit, a short text: other ids
    held = canonical[0]
    for other in (held.upper(), held[:-1] + " ", held.replace("-", ""), "e1", held + "0"):
        assert other not in ids
        ids.add(other)
        assert other in ids
    assert len(ids) == 10_000 + 5
    ids.add(held)
    assert not ids.add_new(held.upper())
    assert len(ids) == 10_000 + 5
    assert sorted(ids) == sorted(canonical[::2] + [held.upper(), held[:-1] + " ", held.replace("-", ""), "e1",
                                                   held + "0"])


def test_a_match_across_two_held_ids_is_not_one_of_them() -> None:
    ids = IdSet()
    a, b = "00000000-0000-0000-0000-00000000abcd", "ef000000-0000-0000-0000-000000000000"
    ids.add(a)
    ids.add(b)  # another bucket; put both in one by their first 12 bits
    first = "00000000-0000-0000-0000-0000000000ab"
    ids.add(first)
    straddling = "0000abcd-0000-0000-0000-000000000000"  # the last bytes of one and the first of the next
    assert straddling not in ids


def _table(rounds: int = 160) -> list[dict[str, Any]]:
    return copy.deepcopy(deal_table(PRESETS["hoyle"], seed="long-stream", rounds=rounds, start=START).events)


def _event(after: dict[str, Any], kind: str, payload: dict[str, Any], version: int) -> dict[str, Any]:
    event = copy.deepcopy(after)
    event.update(type=kind, payload=payload, version=version, id=str(uuid.uuid5(uuid.NAMESPACE_OID, f"{kind}{version}")))
    return event


def _late_changes(events: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], set[str]]:
    """Late in the day: an early event read again, a correction of an early round's
    settlement, a void of another early round, a correction striking an early bet, a
    correction naming an event that is not in the record."""
    settled = [e for e in events if e["type"] == "round.settled" and e["payload"]["settlements"]]
    early, voided = settled[2], settled[5]
    placed = [e for e in events if e["type"] == "bet.placed" and e["payload"]["round"] == settled[8]["payload"]["round"]]
    last = events[-1]
    version = last["version"]
    bet = early["payload"]["settlements"][0]
    # an early event read twice more, far from it, and a late one again just after itself
    late: list[dict[str, Any]] = [copy.deepcopy(events[12]), copy.deepcopy(events[-4]), copy.deepcopy(events[12])]
    for kind, payload in (
        ("correction.recorded", {"round": early["payload"]["round"], "corrects": early["id"], "reason": "short pay",
                                 "authorised_by": "pitboss", "settlements": [{**bet, "net": bet["net"] + 5}]}),
        ("round.voided", {"round": voided["payload"]["round"], "reason": "misdeal"}),
        ("correction.recorded", {"round": None, "corrects": placed[0]["id"], "reason": "struck", "authorised_by": "pitboss",
                                 "settlements": []}),
        ("correction.recorded", {"round": None, "corrects": str(uuid.uuid4()), "reason": "nothing",
                                 "authorised_by": "pitboss", "settlements": []}),
    ):
        version += 1
        late.append(_event(last, kind, payload, version))
    return events[:-3] + late[:3] + events[-3:] + late[3:], {placed[0]["id"]} | {late[-1]["payload"]["corrects"]}


def _audit(events: list[dict[str, Any]], struck: set[str], *, kept: bool) -> StreamReports:
    audit = StreamAudit("T1", first_version=1, struck=struck)
    if kept:  # the reference: the engine's and the ledger's folds as they keep everything
        audit.replay = Replay(struck=audit.struck)
        audit.replay.skip_to(1)
        audit.fold = Fold(struck=audit.struck, entries=False)
    for event in events:
        audit.add(event)
    if not kept:  # the rounds before the last are held pickled, bar the one the late void thawed
        audit.replay.run(audit.pending)
        audit.pending = []
        values = list(audit.replay.rounds.values())
        assert sum(isinstance(value, bytes) for value in values) == len(values) - 2
    return audit.finish()


@pytest.mark.parametrize("rounds", [40, 160])
def test_late_events_about_early_rounds_count_as_when_everything_is_kept(rounds: int) -> None:
    events, struck = _late_changes(_table(rounds))
    lean = _audit(events, struck, kept=False)
    assert lean == _audit(events, struck, kept=True)
    kinds = [(row["owner"], row["kind"]) for row in lean.checks]
    assert kinds.count(("engine", "duplicate_event")) == 3  # the repeats, the first 150 rounds after its event
    assert ("engine", "invalid_correction") in kinds  # the correction of an event never recorded
    assert [row["status"] for row in lean.rounds].count("voided") >= 1
    assert any(row["recorded"] != row["recomputed"] for row in lean.rounds)  # the corrected round
