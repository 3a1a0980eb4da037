"""A replay whose rounds are put away on a shelf once the next starts (what the offline
auditor folds with, ``Replay(compact=True, shelf=...)``): it holds each round as a
16-byte handle, and gives the same rounds and findings as a replay that keeps them all -
a late event that names an early round thaws it from the shelf."""
from __future__ import annotations

import copy
import uuid
from typing import Any

from audit.record.shelf import Shelf
from tables.engine.presets import PRESETS
from tables.engine.replay import Replay, replay
from tables.engine.simulate import deal_table

from .helpers import START


def _late(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """An early round's settlement corrected, and another early round voided, at the end."""
    settled = [e for e in events if e["type"] == "round.settled" and e["payload"]["settlements"]]
    last = events[-1]
    bet = settled[1]["payload"]["settlements"][0]
    out = list(events)
    for kind, payload in (
        ("correction.recorded", {"round": settled[1]["payload"]["round"], "corrects": settled[1]["id"],
                                 "reason": "short pay", "authorised_by": "pitboss",
                                 "settlements": [{**bet, "net": bet["net"] - 5}]}),
        ("round.voided", {"round": settled[3]["payload"]["round"], "reason": "misdeal"}),
    ):
        event = copy.deepcopy(last)
        event.update(type=kind, payload=payload, version=out[-1]["version"] + 1,
                     id=str(uuid.uuid5(uuid.NAMESPACE_OID, kind)))
        out.append(event)
    return out


def test_a_shelved_replay_gives_what_a_replay_that_keeps_every_round_gives() -> None:
    events = _late(copy.deepcopy(deal_table(PRESETS["hoyle"], seed="shelf", rounds=30,
                                            start=START).events))
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
    events = _late(copy.deepcopy(deal_table(PRESETS["hoyle"], seed="shelf", rounds=30,
                                            start=START).events))
    whole = replay(events)
    state = Replay(compact=True)
    state.run(events)
    assert any(isinstance(value, bytes) for value in state.rounds.values())
    findings, rounds = state.final()
    assert findings == whole.findings
    assert any(f.kind == "wrong_payout" for f in findings)
    assert not any(f.kind == "invalid_correction" for f in findings)
    assert list(rounds) == sorted(whole.rounds, key=lambda r: r.number)
