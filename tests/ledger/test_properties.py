"""Laws of the books for any valid sequence of custody and round events."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.books import fold, reconcile
from ledger.books import journal as j

from .helpers import Table

DENOMINATIONS = (100_000, 5_000, 100)
LABELS = ("06:00", "14:00", "22:00")

money = st.integers(min_value=1, max_value=1_000).map(
    lambda n: n * 200
)  # halves and 3:2 stay whole 1.00 chips
chips = st.dictionaries(
    st.sampled_from(DENOMINATIONS), st.integers(min_value=1, max_value=20), min_size=1, max_size=3
)


@st.composite
def bet(draw: Any) -> tuple[int, int]:
    stake = draw(money)
    net = draw(st.sampled_from([-stake, 0, stake, stake * 3 // 2, -(stake // 2)]))
    return stake, net


action = st.one_of(
    st.tuples(st.just("buyin"), money),
    st.tuples(st.just("marker"), money),
    st.tuples(st.just("fill"), chips),
    st.tuples(st.just("credit"), chips),
    st.tuples(st.just("void_fill"), chips),
    st.tuples(st.just("round"), st.lists(bet(), min_size=1, max_size=4)),
    st.tuples(st.just("voided_round"), st.lists(bet(), min_size=1, max_size=3)),
)
# days -> shifts -> actions
record = st.lists(
    st.lists(st.lists(action, max_size=12), min_size=1, max_size=3), min_size=1, max_size=2
)


def breakdown(value: int) -> dict[int, int]:
    out = {}
    for d in DENOMINATIONS:
        out[d], value = divmod(value, d)
    assert value == 0
    return {d: n for d, n in out.items() if n}


def build(days: list[list[list[tuple[str, Any]]]]) -> Table:
    """A table's record of these days with every step right: counts that match the tray,
    every slip's lifecycle, each shift's drop compartment counted and posted as filled."""
    t = Table()
    tray = 40_000_000  # the imprest: plenty, so the tray never runs dry
    slips = markers = 0
    for index, shifts in enumerate(days):
        day = f"2026-11-{index + 1:02d}"
        t.open(day)
        for label, actions in zip(LABELS, shifts):
            t.count("opening", breakdown(tray), shift=label, day=day)
            cash = marker_total = 0
            for kind, arg in actions:
                if kind == "buyin":
                    t.buyin(arg)
                    tray -= arg
                    cash += arg
                elif kind == "marker":
                    markers += 1
                    t.marker(f"M-{markers}", arg)
                    tray -= arg
                    marker_total += arg
                elif kind in ("fill", "credit", "void_fill"):
                    slips += 1
                    value = sum(d * n for d, n in arg.items())
                    if kind == "fill":
                        t.fill(f"F-{slips}", arg)
                        tray += value
                    elif kind == "credit":
                        t.credit(f"C-{slips}", arg)
                        tray -= value
                    else:
                        t.fill(f"F-{slips}", arg, steps=("requested", "issued"))
                        t.void("fill", f"F-{slips}")
                elif kind == "round":
                    t.play(*arg)
                    tray -= sum(net for _, net in arg)
                else:
                    t.round += 1
                    t.add("round.started", {"round": t.round, "shoe": "S-1"})
                    for box, (stake, _) in enumerate(arg, start=1):
                        t.add(
                            "bet.placed",
                            {
                                "round": t.round,
                                "bet": f"r{t.round}-b{box}",
                                "box": box,
                                "hand": 0,
                                "player": None,
                                "amount": stake,
                                "kind": "main",
                                "parent": None,
                            },
                        )
                    t.add(
                        "round.voided",
                        {"round": t.round, "reason": "misdeal", "authorised_by": "PB-1"},
                    )
            t.count("closing", breakdown(tray), shift=label, day=day)
            t.drop(cash, marker_total, shift=label, day=day)
        t.close(day)
    return t


@settings(max_examples=60, deadline=None)
@given(record)
def test_the_books_balance_and_the_chips_agree_with_the_record_when_nothing_is_wrong(
    days: Any,
) -> None:
    """Every trial balance - per table, shift and gaming day - sums to zero; with every
    count right, no duplicate slip and every buy-in dropped, nothing is found, nothing is
    over or short, and the chip-count win equals the recorded win per shift and per day."""
    t = build(days)
    books = fold(t.events)
    assert books.findings == ()
    assert sum(books.trial_balance().values()) == 0
    for day in books.days():
        assert sum(books.trial_balance(day).values()) == 0
        for figures in books.shifts_of(day):
            assert sum(books.trial_balance(day, figures.shift or "").values()) == 0
            assert figures.chip_win is not None and figures.chip_win == figures.recorded_win
            result = reconcile(figures)
            assert result.findings == () and result.chip_variance == 0
        whole = books.day(day)
        assert whole.chip_win == whole.recorded_win
        assert reconcile(whole).findings == ()
    balances = books.trial_balance()
    assert balances.get(j.over_short("BJ-01"), 0) == 0
    assert balances.get(j.layout("BJ-01"), 0) == 0 and balances.get(j.transit("BJ-01"), 0) == 0
    last = books.shifts_of(books.days()[-1])[-1]
    tray = sum(v for account, v in balances.items() if account.startswith("tray:BJ-01:"))
    assert tray == last.closer


@settings(max_examples=30, deadline=None)
@given(record, st.integers(min_value=1, max_value=50).map(lambda n: n * 100))
def test_any_chip_taken_from_the_tray_shows_as_that_variance(days: Any, missing: int) -> None:
    """Take chips of some value out before the last closer: the last shift's chip-count
    win is short by exactly that, and over/short holds it."""
    t = build(days)
    closer = next(e for e in reversed(t.events) if e["type"] == "inventory.counted")
    value = sum(c["denomination"] * c["count"] for c in closer["payload"]["chips"])
    closer["payload"]["chips"] = [
        {"denomination": d, "count": n} for d, n in sorted(breakdown(value - missing).items())
    ]
    books = fold(t.events)
    last = books.shifts_of(books.days()[-1])[-1]
    assert last.chip_win is not None and last.chip_win - last.recorded_win == -missing
    assert books.trial_balance()[j.over_short("BJ-01")] == missing
