"""Replay of the record as a whole: corrections, voids, duplicates, gaps, the shoe."""

from __future__ import annotations

from audit.record.events import read_current
from tables.engine.illegal import KINDS, Finding
from tables.engine.presets import PRESETS
from tables.engine.replay import replay

from .helpers import Table, edit, find, kinds, layout, rewrap

RULES = PRESETS["hoyle"]
STAKE = 1000


def _table() -> Table:
    table = Table(RULES, layout(RULES, ["TS 9H", "TC 7C"], "7D TD"))
    table.deal([STAKE, STAKE])
    return table


def test_an_authorised_correction_replaces_a_wrong_settlement() -> None:
    """The design, corrections: a wrong payout stands as a finding until an authorised
    correction.recorded gives the right settlement for that bet."""
    table = _table()
    settled = find(table.events, "round.settled")
    wrong = [
        {"bet": "r1b1", "outcome": "lose", "net": -STAKE},
        {"bet": "r1b2", "outcome": "push", "net": 0},
    ]
    events = edit(table.events, settled, settlements=wrong)
    assert kinds(replay(events).findings) == ["wrong_payout"]
    fix = {
        "type": "correction.recorded",
        "payload": {
            "round": 1,
            "corrects": events[settled]["id"],
            "settlements": [{"bet": "r1b1", "outcome": "win", "net": STAKE}],
            "reason": "paid the wrong box",
            "authorised_by": "pit1",
        },
    }
    assert replay(events + [{**fix, "id": "fix-1"}]).findings == ()


def test_a_correction_strikes_an_event_recorded_by_mistake() -> None:
    """A correction that names an event and gives no settlements strikes that event from
    the replay, as if the dealer had never recorded it."""
    table = _table()
    settled = find(table.events, "round.settled")
    stray = {
        "type": "card.dealt",
        "payload": {"round": 1, "box": None, "hand": None, "card": "4C", "face": "up"},
    }
    events = rewrap(table.events[:settled] + [stray] + table.events[settled:])
    assert "dealer_procedure" in kinds(replay(events).findings)
    strike = {
        "id": "fix-2",
        "type": "correction.recorded",
        "payload": {
            "round": 1,
            "corrects": events[settled]["id"],
            "settlements": [],
            "reason": "keyed twice",
            "authorised_by": "pit1",
        },
    }
    assert replay(events + [strike]).findings == ()


def test_a_correction_naming_nothing_known_is_a_finding() -> None:
    """A correction for an event or bet the record does not hold is invalid."""
    table = _table()
    bad = {
        "id": "fix-3",
        "type": "correction.recorded",
        "payload": {
            "round": 1,
            "corrects": "no-such-event",
            "settlements": [{"bet": "ghost", "outcome": "win", "net": 5}],
            "reason": "x",
            "authorised_by": "pit1",
        },
    }
    assert kinds(replay(table.events + [bad]).findings) == [
        "invalid_correction",
        "invalid_correction",
    ]


def test_duplicate_event_and_version_gap() -> None:
    """The same event twice is a duplicate_event; a jump in the stream's versions is a
    missing_event."""
    table = _table()
    events = table.events
    assert kinds(replay(events[:10] + [events[9]] + events[10:]).findings) == ["duplicate_event"]
    gap = (
        events[:10]
        + [{**events[10], "version": events[10]["version"] + 1}]
        + [{**e, "version": e["version"] + 1} for e in events[11:]]
    )
    assert kinds(replay(gap).findings) == ["missing_event"]


def test_a_round_never_settled_is_missing() -> None:
    """A round still open at the end of the record is a missing_event."""
    table = _table()
    assert kinds(replay(table.events[:-1]).findings) == ["missing_event"]


def test_missing_and_unknown_settlements() -> None:
    """A bet without a settlement, or a settlement for a bet never placed, is a finding."""
    table = _table()
    settled = find(table.events, "round.settled")
    only_one = [
        {"bet": "r1b1", "outcome": "win", "net": STAKE},
        {"bet": "zz", "outcome": "win", "net": 1},
    ]
    assert kinds(replay(edit(table.events, settled, settlements=only_one)).findings) == [
        "missing_settlement",
        "unknown_bet",
    ]


def test_a_voided_round_returns_every_stake() -> None:
    """round.voided: every stake of the round goes back; no settlement is then expected."""
    table = _table()
    voided = rewrap(
        table.events[:-1]
        + [
            {
                "type": "round.voided",
                "payload": {"round": 1, "reason": "misdeal", "authorised_by": "pit1"},
            }
        ]
    )
    result = replay(voided)
    assert result.findings == ()
    assert {b: (s.outcome, s.net) for b, s in result.rounds[0].expected.items()} == {
        "r1b1": ("push", 0),
        "r1b2": ("push", 0),
    }


def test_impossible_card_without_a_recorded_order() -> None:
    """Seed 004 (six decks): with only the composition known, a seventh ace of spades is a
    card the shoe cannot hold."""
    table = Table(RULES, layout(RULES, ["TS 9H"], "7D TD"), known=False)
    table.deal([STAKE])
    first = find(table.events, "card.dealt")
    burn = {
        "type": "card.burned",
        "payload": {"shoe": "S1", "round": 1, "card": "AS", "face": "up", "reason": "other"},
    }
    spliced = rewrap(table.events[:first] + [burn] * 6 + table.events[first:])
    assert replay(spliced).findings == ()
    tampered = edit(spliced, find(spliced, "card.dealt"), card="AS")
    assert kinds(replay(tampered).findings) == ["impossible_card"]


def test_an_old_bet_placed_version_is_upcast() -> None:
    """bet.placed v1 (no ``parent``) is read through the catalogue's upcaster, as every
    reader hands events to the fold (:func:`audit.record.events.read_current`)."""
    table = _table()
    events = list(table.events)
    index = find(events, "bet.placed")
    payload = {k: v for k, v in events[index]["payload"].items() if k != "parent"}
    events[index] = {**events[index], "schema_version": 1, "payload": payload}
    assert replay([read_current(dict(e)) for e in events]).findings == ()


def test_every_finding_kind_is_documented() -> None:
    """Findings carry one of the documented kinds, and refuse any other."""
    assert {
        "wrong_payout",
        "illegal_decision",
        "dealer_procedure",
        "card_out_of_sequence",
        "impossible_card",
        "missing_event",
        "duplicate_event",
        "misdeal",
    } <= set(KINDS)
    try:
        Finding(kind="oops", message="x")
    except ValueError:
        pass
    else:  # pragma: no cover
        raise AssertionError("an unknown kind was accepted")


def test_a_dealer_who_stands_on_16_is_a_procedure_error() -> None:
    """Every seed: the dealer must draw on 16; a round settled with the dealer on 16 is a
    dealer procedure finding, and the stakes are recomputed against the 16 that stood."""
    table = Table(RULES, layout(RULES, ["TS 9H"], "TD 6S", draws="3C"))
    table.deal([STAKE])
    draw = find(table.events, "card.dealt", 4)
    assert table.events[draw]["payload"]["card"] == "3C"
    found = replay(rewrap(table.events[:draw] + table.events[draw + 1 :])).findings
    assert kinds(found) == ["dealer_procedure", "wrong_payout"]
    assert found[1].expected == f"win +{STAKE}" and found[1].recorded == "push +0"


def test_cards_without_betting_closed() -> None:
    """A round dealt without betting.closed is missing that event; the round is checked
    all the same."""
    table = _table()
    closed = find(table.events, "betting.closed")
    assert kinds(replay(rewrap(table.events[:closed] + table.events[closed + 1 :])).findings) == [
        "missing_event"
    ]


def test_an_unknown_rule_set_is_a_finding() -> None:
    """A table.opened naming a rule set the engine does not know is reported; the rounds
    are still checked with a stand-in."""
    table = _table()
    events = edit(table.events, 0, ruleset="martian-21")
    assert kinds(replay(events).findings) == ["unknown_rule_set"]
