"""What replay checks beyond the play itself (issue 14, "a replay that misses nothing"):
each check planted by editing a dealt record, and each giving exactly its finding."""

from __future__ import annotations

from typing import Any

import pytest

from tables.engine.presets import PRESETS
from tables.engine.replay import replay

from .helpers import Choices, Table, edit, find, kinds, layout, rewrap


def without(events: list[dict[str, Any]], *indexes: int) -> list[dict[str, Any]]:
    """The record with these events left out, re-chained (no version gap to report)."""
    return rewrap([e for i, e in enumerate(events) if i not in indexes])


def unsettled(events: list[dict[str, Any]], bet: str) -> list[dict[str, Any]]:
    """The record with ``bet`` left out of its round's settlement."""
    index = find(events, "round.settled")
    kept = [s for s in events[index]["payload"]["settlements"] if s["bet"] != bet]
    return edit(events, index, settlements=kept)


# --- 1. card faces -------------------------------------------------------------------------


def test_a_hole_card_dealt_face_up_in_a_peek_game() -> None:
    """Seed 001 (001:13): the dealer's second card is face down; dealt face up it is a
    wrong_face finding, and nothing else."""
    rules = PRESETS["it-classic"]
    table = Table(rules, layout(rules, ["TS 9H"], "7D TD"))
    table.deal([100])
    hole = find(table.events, "card.dealt", box=None, face="down")
    found = replay(edit(table.events, hole, face="up")).findings
    assert kinds(found) == ["wrong_face"]
    assert found[0].expected == "down" and "hole card" in found[0].message


def test_a_players_card_dealt_face_down() -> None:
    """Players' cards are dealt face up in every seed's deal (001:13, 002:11-12)."""
    rules = PRESETS["it-sabot"]
    table = Table(rules, layout(rules, ["TS 9H", "8S 8C"], "7D TD"))
    table.deal([100, 100])
    index = find(table.events, "card.dealt", box=2)
    found = replay(edit(table.events, index, face="down")).findings
    assert kinds(found) == ["wrong_face"]
    assert found[0].box == 2 and found[0].recorded == "down"


def test_the_card_of_a_double_dealt_face_up_where_it_goes_face_down() -> None:
    """Seeds 001 (001:29) and 004 (004:55): the double's one card is dealt face down."""
    for name in ("it-classic", "hoyle"):
        rules = PRESETS[name]
        table = Table(rules, layout(rules, ["6S 4H"], "7D TD", play="9C"))
        stake = max(100, rules.min_bet)
        table.deal([stake], "double")
        index = find(table.events, "card.dealt", card="9C")
        assert table.events[index]["payload"]["face"] == "down"
        assert table.replay().findings == ()
        found = replay(edit(table.events, index, face="up")).findings
        assert kinds(found) == ["wrong_face"], name
        assert "double" in found[0].message


# --- 2. stakes the decisions call for --------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "player", "play", "action", "stake", "hand"),
    [
        (
            "hoyle",
            "6S 4H",
            "9C",
            "double",
            "r1b1-d",
            0,
        ),  # the hand doubled for the main stake alone
        ("eu-online", "8S 8H", "TC 9C", "split", "r1b1-s1", 1),  # the split hand for free
    ],
)
def test_a_double_or_split_with_no_stake_placed(
    name: str, player: str, play: str, action: str, stake: str, hand: int
) -> None:
    """A double or split whose stake never reaches the record: missing_stake, once, for the
    bet that decided, on the hand the stake was owed to."""
    rules = PRESETS[name]
    table = Table(rules, layout(rules, [player], "7D TD", play=play))
    table.deal([200], action)
    index = find(table.events, "bet.placed", kind=action)
    found = replay(without(unsettled(table.events, stake), index)).findings
    assert kinds(found) == ["missing_stake"]
    assert (
        found[0].bet == "r1b1"
        and found[0].expected == f"a {action} stake"
        and found[0].hand == hand
    )


def test_insurance_decided_with_no_stake_and_staked_with_no_decision() -> None:
    """Insurance both ways: the decision without its stake is missing_stake; the stake
    without the decision is illegal_bet."""
    rules = PRESETS["hoyle"]
    table = Table(rules, layout(rules, ["TS 9H"], "AD 7D"))
    table.deal([200], choices=Choices(insure=lambda bet: 100))
    assert table.replay().findings == ()
    decision = find(table.events, "decision.made", action="insurance")
    stake = find(table.events, "bet.placed", kind="insurance")
    assert kinds(replay(without(unsettled(table.events, "r1b1-i"), stake)).findings) == [
        "missing_stake"
    ]
    found = replay(without(table.events, decision)).findings
    assert kinds(found) == ["illegal_bet"]
    assert "never decided to insure" in found[0].message


# --- 5. a card dealt to the wrong place ------------------------------------------------------


def test_a_card_to_the_wrong_place_is_reported_once_and_accuses_nothing_after_it() -> None:
    """One card recorded at another box is a deal_order finding where it happened; the
    card is played where the deal order puts it, so the hands after it - a surrender of
    box 3 recorded correctly among them - are settled as dealt, without a finding."""
    rules = PRESETS["eu-online"]
    table = Table(rules, layout(rules, ["TS 9H", "8S 8C", "TD 6H"], "9D TD"))
    dealt = table.deal([100, 200, 500], "stand", "stand", "surrender")
    assert {s.bet: s.net for s in dealt.settlements}["r1b3"] == -250
    assert table.replay().findings == ()
    for nth in (0, 1):  # box 2's first card, then its second
        index = find(table.events, "card.dealt", nth, box=2)
        found = replay(edit(table.events, index, box=3)).findings
        assert kinds(found) == ["deal_order"], nth
        assert found[0].event == table.events[index]["id"]


# --- 3. shoe facts against the rules -----------------------------------------------------------


def test_a_shoe_of_other_decks_than_the_table_deals() -> None:
    """An 8-deck shoe at a 6-deck table is a shoe_procedure finding (and not one per card)."""
    rules = PRESETS["hoyle"]
    table = Table(rules, layout(rules, ["TS 9H"], "7D TD"))
    table.deal([200])
    index = find(table.events, "shoe.shuffled")
    found = replay(edit(table.events, index, decks=8, order=None, commitment=None)).findings
    assert kinds(found) == ["shoe_procedure"]
    assert found[0].expected == "6" and found[0].recorded == "8"


def test_a_cut_card_beyond_the_shoe() -> None:
    """A cut card at 100000 of a 312-card shoe would switch off the cut card's check: it is
    a shoe_procedure finding, in a game with a penetration rule and in one without."""
    for name in ("hoyle", "eu-online"):
        rules = PRESETS[name]
        table = Table(rules, layout(rules, ["TS 9H"], "7D TD"))
        table.deal([max(100, rules.min_bet)])
        index = find(table.events, "shoe.cut")
        found = replay(edit(table.events, index, cut_card=100_000)).findings
        assert kinds(found) == ["shoe_procedure"], name
        assert "beyond its 312 cards" in found[0].message


# --- 4. a bet settled twice in one settlement ---------------------------------------------------


def test_the_same_bet_settled_twice_in_one_settlement() -> None:
    """The last entry no longer silently wins: the repeat is a duplicate_event finding,
    and the first entry is the one checked."""
    rules = PRESETS["hoyle"]
    table = Table(rules, layout(rules, ["TS 9H"], "7D TD"))
    table.deal([200])
    index = find(table.events, "round.settled")
    entry = table.events[index]["payload"]["settlements"][0]
    found = replay(edit(table.events, index, settlements=[entry, {**entry, "net": 400}])).findings
    assert kinds(found) == ["duplicate_event"]
    assert found[0].bet == "r1b1" and found[0].recorded == "win +400"
    assert kinds(replay(edit(table.events, index, settlements=[entry, entry])).findings) == [
        "duplicate_event"
    ]


# --- 9. messages that say what is wrong ---------------------------------------------------------


def test_a_reveal_before_the_hole_card_says_so() -> None:
    """A reveal in a peek game before the dealer holds two cards is not "a game that
    deals none"."""
    rules = PRESETS["hoyle"]
    table = Table(rules, layout(rules, ["TS 9H"], "7D TD"))
    table.deal([200])
    reveal = find(table.events, "card.revealed")
    first = find(table.events, "card.dealt", box=None)
    moved = (
        table.events[:first]
        + [table.events[reveal]]
        + [e for e in table.events[first:] if e is not table.events[reveal]]
    )
    found = [f for f in replay(rewrap(moved)).findings if f.kind == "unexpected_event"]
    assert len(found) == 1 and "the dealer held 0 cards" in found[0].message
    other = PRESETS["eu-online"]
    none = Table(other, layout(other, ["TS 9H"], "7D TD"))
    none.deal([100])
    extra = rewrap(
        none.events[:-1]
        + [{"type": "card.revealed", "payload": {"round": 1, "card": "TD"}}]
        + none.events[-1:]
    )
    assert [f.message for f in replay(extra).findings] == [
        "A hole card was revealed in a game that deals none."
    ]


def test_a_natural_recorded_as_a_win_for_the_right_amount_says_the_amount_is_right() -> None:
    rules = PRESETS["hoyle"]
    table = Table(rules, layout(rules, ["AS KH"], "7D TD"))
    table.deal([200])
    index = find(table.events, "round.settled")
    found = replay(
        edit(table.events, index, settlements=[{"bet": "r1b1", "outcome": "win", "net": 300}])
    ).findings
    assert kinds(found) == ["wrong_payout"]
    assert (
        "the right amount, +EUR 3.00" in found[0].message
        and "the rules say natural" in found[0].message
    )


def test_the_outcome_words_are_documented() -> None:
    """docs/events.md lists exactly the outcome words the catalogue accepts."""
    import pathlib
    import re
    from typing import get_args

    from audit.record.events.fields import Outcome

    text = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "events.md").read_text()
    section = text[text.index("| outcome | the bet |") :]
    section = section[: section.index("\n\n")]
    assert re.findall(r"^\| `([a-z_]+)` \|", section, re.MULTILINE) == list(get_args(Outcome))


# --- 6. the stream a table's record is in ---------------------------------------------------------


def test_two_streams_opening_one_table_stay_apart() -> None:
    """The report names each stream after its envelope, and a stream whose table.opened
    names another table is a stream_mismatch finding - the two no longer merge."""
    from tables.engine.envelope import EnvelopeWriter
    from tables.engine.offline import replay_events

    from .helpers import START

    rules = PRESETS["hoyle"]
    table = Table(rules, layout(rules, ["TS 9H"], "7D TD"))
    table.deal([200])
    writer = EnvelopeWriter("T2", start=START, name="copy")
    copy = [writer.write(e["type"], e["payload"]) for e in table.events]
    results = replay_events(table.events + copy)
    assert [r.stream for r in results] == ["T1", "T2"]
    assert results[0].findings == ()
    found = results[1].findings
    assert kinds(found) == ["stream_mismatch"]
    assert found[0].expected == "T2" and found[0].recorded == "T1"


# --- 8. rounds numbered again each gaming day ---------------------------------------------------


def _two_days(short: int = 0) -> list[dict[str, Any]]:
    """One stream, two gaming days, each numbering its rounds from 1; day 1's win paid
    ``short`` less than the rules give."""
    rules = PRESETS["hoyle"]
    days = []
    for day in ("2026-11-29", "2026-11-30"):
        table = Table(rules, layout(rules, ["TS 9H"], "7D TD"))
        table.deal([200])
        opened = find(table.events, "table.opened")
        events = edit(table.events, opened, gaming_day=day)
        if day == "2026-11-29" and short:
            settled = find(events, "round.settled")
            events = edit(
                events, settled, settlements=[{"bet": "r1b1", "outcome": "win", "net": 200 - short}]
            )
        days += events
    return rewrap(days)


def test_round_numbers_that_start_again_each_day_do_not_collide() -> None:
    """Rounds are known by gaming day and number: day 2's round 1 is not day 1's again."""
    result = replay(_two_days())
    assert result.findings == ()
    assert [(r.day, r.number) for r in result.rounds] == [("2026-11-29", 1), ("2026-11-30", 1)]


def test_a_correction_on_a_later_day_is_followed_back_to_its_round() -> None:
    """A correction recorded on day 2 that names day 1's settlement corrects day 1's round
    1 (the short pay it fixes is gone), not day 2's round of the same number."""
    events = _two_days(short=50)
    assert kinds(replay(events).findings) == ["wrong_payout"]
    first_settled = events[find(events, "round.settled")]
    correction = {
        "round": 1,
        "corrects": first_settled["id"],
        "settlements": [{"bet": "r1b1", "outcome": "win", "net": 200}],
        "reason": "short pay corrected",
        "authorised_by": "PB-7",
    }
    corrected = rewrap(events + [{"type": "correction.recorded", "payload": correction}])
    assert corrected[find(corrected, "round.settled")]["id"] == first_settled["id"]
    assert replay(corrected).findings == ()
