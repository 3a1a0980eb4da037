"""The fold without entries (``Fold(entries=False)``, what the offline auditor folds with):
the same books as the fold that keeps every entry, but for the entries, for any order of
placements, settlements, voids and corrections - repeats and a bet settled before it is
placed included - and what it holds of a day's bets once they are settled."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from audit.record.corrections import struck_events
from ledger.books import UnbalancedEntry, fold
from ledger.books.fold import FOLDED, Books, Fold

from .helpers import DAY, Table

BETS = ["b0", "b1", "b2"]  # few: the same bet comes back often

step = st.one_of(
    st.tuples(
        st.just("place"),
        st.sampled_from(BETS),
        st.sampled_from([500, 2_500, 10_000]),
        st.sampled_from(["main", "insurance"]),
    ),
    st.tuples(
        st.just("settle"),
        st.lists(
            st.tuples(st.sampled_from(BETS), st.sampled_from([-2_500, 0, 2_500, 3_750])),
            min_size=1,
            max_size=3,
        ),
    ),
    st.tuples(st.just("void")),
    st.tuples(st.just("correct"), st.sampled_from(BETS), st.sampled_from([-500, 0, 1_000])),
    st.tuples(st.just("repeat")),  # the last event again, its id and all
    st.tuples(st.just("next_day")),
)


def messy(steps: list[tuple[Any, ...]]) -> list[dict[str, Any]]:
    """A record of one round's bets in any order: nothing in it is in the right place."""
    t = Table()
    t.open()
    day = 29
    for kind, *args in steps:
        if kind == "place":
            bet, amount, bet_kind = args
            t.add(
                "bet.placed",
                {
                    "round": 1,
                    "bet": bet,
                    "box": 1,
                    "hand": 0,
                    "player": "P-1",
                    "amount": amount,
                    "kind": bet_kind,
                    "parent": None,
                },
            )
        elif kind == "settle":
            t.add(
                "round.settled",
                {
                    "round": 1,
                    "settlements": [{"bet": b, "outcome": "win", "net": n} for b, n in args[0]],
                },
            )
        elif kind == "void":
            t.add("round.voided", {"round": 1, "reason": "misdeal", "authorised_by": "PB-1"})
        elif kind == "correct":
            t.correct(1, args[0], args[1])
        elif kind == "repeat":
            t.events.append(dict(t.events[-1]))
        else:
            day += 1
            t.open(f"2026-11-{day}")
    return t.events


def lean_books(events: list[dict[str, Any]], **books: Any) -> Books:
    state = Fold(struck=struck_events(events), entries=False)
    for event in events:
        state.apply(event)
    return state.books(entries=False, **books)


def same_but_entries(lean: Books, whole: Books) -> None:
    assert lean.entries == () and not lean.has_entries
    assert lean.findings == whole.findings
    assert dict(lean.shifts) == dict(whole.shifts)
    assert [lean.day(d) for d in lean.days()] == [whole.day(d) for d in whole.days()]
    assert (lean.slips, lean.markers, lean.drops, lean.games) == (
        whole.slips,
        whole.markers,
        whole.drops,
        whole.games,
    )
    assert (lean.round_shifts, lean.counts) == (whole.round_shifts, whole.counts)
    assert lean.balances == whole.balances
    for day in whole.days():
        assert lean.balances_of(day) == whole.trial_balance(day)


@settings(max_examples=150, deadline=None)
@given(st.lists(step, max_size=14))
def test_the_lean_fold_gives_the_books_of_the_whole_fold_but_the_entries(
    steps: list[tuple[Any, ...]],
) -> None:
    events = messy(steps)
    same_but_entries(lean_books(events), fold(events))


def test_a_correction_of_a_bet_settled_a_day_before_finds_its_net_and_day() -> None:
    """The placement of a settled bet is let go; its net and where stay for a correction."""
    t = Table()
    t.open()
    [bet] = t.play((10_000, -10_000))
    t.open("2026-11-30")
    t.correct(1, bet, 5_000)
    lean, whole = lean_books(t.events), fold(t.events)
    same_but_entries(lean, whole)
    assert lean.day(DAY).corrections == -15_000 and lean.days() == [
        DAY
    ]  # the day of the settlement


def test_a_bet_placed_again_after_its_settlement_counts_once_and_one_settled_first_counts_when_placed() -> (
    None
):
    t = Table()
    t.open()
    [bet] = t.play((10_000, 10_000))
    t.add(
        "bet.placed",
        {
            "round": 1,
            "bet": bet,
            "box": 1,
            "hand": 0,
            "player": "P-1",
            "amount": 10_000,
            "kind": "main",
            "parent": None,
        },
    )
    t.add(
        "round.settled",
        {"round": 2, "settlements": [{"bet": "early", "outcome": "win", "net": 500}]},
    )
    for _ in range(2):
        t.add(
            "bet.placed",
            {
                "round": 2,
                "bet": "early",
                "box": 1,
                "hand": 0,
                "player": "P-1",
                "amount": 2_500,
                "kind": "main",
                "parent": None,
            },
        )
    lean, whole = lean_books(t.events), fold(t.events)
    same_but_entries(lean, whole)
    assert (lean.day(DAY).handle, lean.day(DAY).bets) == (12_500, 2)


def test_a_long_day_of_settled_rounds_leaves_no_placement_and_no_round_held() -> None:
    """What grows with the rounds is one record per settled bet (a correction may name it),
    not its placement or its round's list of bets, and no entry."""
    t = Table()
    t.open()
    for _ in range(50):
        t.play((1_000, 1_000), (2_000, -2_000), (500, 0))
    state = Fold(entries=False)
    for event in t.events:
        state.apply(event)
    assert (state.entries, state.bets, state.round_bets) == ([], {}, {})
    assert len(state.settled) == 150
    assert state.books(entries=False).day(DAY).settled_win == 50 * (2_000 - 1_000)


def test_the_lean_fold_has_no_entries_to_give() -> None:
    state = Fold(entries=False)
    with pytest.raises(ValueError, match="keeps no entries"):
        state.books()


def test_the_lean_fold_refuses_an_amount_that_is_not_an_integer_as_an_entry_does() -> None:
    t = Table()
    t.open()
    t.add(
        "bet.placed",
        {
            "round": 1,
            "bet": "b",
            "box": 1,
            "hand": 0,
            "player": "P-1",
            "amount": 25.0,
            "kind": "main",
            "parent": None,
        },
    )
    for entries in (True, False):
        state = Fold(entries=entries)
        with pytest.raises(UnbalancedEntry, match="stake b: a non-integer amount -25.0"):
            for event in t.events:
                state.apply(event)


def test_a_void_after_some_bets_are_settled_returns_only_the_others() -> None:
    t = Table()
    t.open()
    t.add("round.started", {"round": 1, "shoe": "S-1"})
    for bet, amount in (("b1", 1_000), ("b2", 4_000)):
        t.add(
            "bet.placed",
            {
                "round": 1,
                "bet": bet,
                "box": 1,
                "hand": 0,
                "player": "P-1",
                "amount": amount,
                "kind": "main",
                "parent": None,
            },
        )
    t.add(
        "round.settled",
        {"round": 1, "settlements": [{"bet": "b1", "outcome": "lose", "net": -1_000}]},
    )
    t.add("round.voided", {"round": 1, "reason": "misdeal", "authorised_by": "PB-1"})
    lean, whole = lean_books(t.events), fold(t.events)
    same_but_entries(lean, whole)
    figures = lean.day(DAY)
    assert (figures.handle, figures.bets, figures.settled_win) == (1_000, 1, 1_000)
    assert lean.balances_of(DAY)["layout:BJ-01"] == 0


def test_the_kinds_the_fold_does_not_fold_change_nothing_so_a_caller_may_skip_them() -> None:
    """``FOLDED``: the offline auditor hands the fold only these kinds. A day with every
    other kind of event in it (cards, decisions, offers) gives the same books as the day
    without them, to the entries."""
    t = Table()
    t.open()
    t.play((10_000, 10_000), (2_500, -2_500))
    others = [
        dict(e, id=f"{e['id']}-x", type=kind)
        for e in t.events[1:4]
        for kind in (
            "card.dealt",
            "decision.made",
            "cashout.offered",
            "shoe.shuffled",
            "betting.closed",
        )
    ]
    assert not {e["type"] for e in others} & FOLDED and {e["type"] for e in t.events} <= FOLDED
    assert fold(t.events + others) == fold(t.events)
    assert set(FOLDED) >= {
        "table.opened",
        "bet.placed",
        "round.settled",
        "round.voided",
        "correction.recorded",
        "drop.counted",
        "chips.filled",
    }
