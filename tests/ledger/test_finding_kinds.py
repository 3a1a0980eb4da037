"""Each of the ledger's finding kinds: a hand-written day with that one fault gives exactly
that finding, where it is and with its amounts; the same day without the fault gives none."""

from __future__ import annotations

from fractions import Fraction

import pytest

from audit.record.findings import kinds_of
from ledger.books import Books, fold, reconcile
from ledger.books.reconcile import Reconciliation, replay_difference

from .helpers import DAY, Table

DAY2 = "2026-11-30"
EDGE = Fraction(5, 1000)  # 0.5%
VARIANCE = Fraction(13, 10)  # per unit staked, per round: blackjack's is about 1.3


def scenario(fault: str | None = None) -> Table:
    """Two gaming days of one table with every custody step: counts, a cash buy-in, a
    marker, a fill, a credit, rounds, the drop removed, counted and posted, the marker
    redeemed; and ``fault`` planted in it."""
    t = Table()
    t.open()
    if fault != "opener_missing":
        t.count("opening", {100_000: 20, 5_000: 100}, slip="I-1")  # 2,500,000
    t.buyin(900_000)
    t.marker("M-1", 300_000, box=2)
    if fault == "duplicate_marker":
        t.marker("M-1", 300_000, box=2)
    if fault == "slip_without_request":
        t.fill("F-1", {100_000: 5}, steps=("issued", "received"))
    elif fault == "slip_mismatch":
        t.fill("F-1", {100_000: 5}, received={100_000: 4})
    elif fault == "duplicate_slip":
        t.fill("F-1", {100_000: 5}, steps=("requested", "issued", "received", "received"))
    else:
        t.fill("F-1", {100_000: 5})
    if fault == "void_after_receipt":
        t.void("fill", "F-1", "the tray was full")
    if (
        fault == "unauthorised_void"
    ):  # a void of the filled slip that no one with the authority recorded
        t.void("fill", "F-1", "the tray was full")
        t.refused = {
            t.events[-1]["id"]: "it was recorded by the table device device-BJ-01, not by a person"
        }
    if fault == "slip_unfinished":
        t.fill("F-2", {5_000: 40}, steps=("requested", "issued"))
    t.fill("F-3", {5_000: 40}, steps=("requested",))
    t.void("fill", "F-3", None if fault == "void_without_reason" else "not needed after all")
    t.play((300_000, -300_000), (100_000, 100_000), (200_000, -200_000))  # the house wins 400,000
    extra = 10 if fault == "win_outside_interval" else 0
    for _ in range(extra):  # the house wins every one of ten more stakes of 1,000.00
        t.play((100_000, -100_000))
    t.credit("C-1", {100_000: 2})
    fives = 99 if fault == "chip_variance" else 100  # one 50.00 chip short
    hundreds = 15 + extra - (1 if fault == "slip_mismatch" else 0)
    if fault != "closer_missing":
        t.count("closing", {100_000: hundreds, 5_000: fives}, slip="I-2")
    t.close()
    drop_steps = {"drop_not_counted": ("removed",), "drop_not_posted": ("removed", "counted")}
    t.drop(
        900_000,
        300_000,
        steps=drop_steps.get(fault or "", ("removed", "counted", "posted")),
        posted=(895_000, 300_000, 0) if fault == "drop_mismatch" else None,
    )
    if fault == "currency_mismatch":  # the EUR marker paid with USD: not booked
        t.add(
            "marker.redeemed",
            {
                "marker": "M-1",
                "amount": 300_000,
                "currency": "USD",
                "method": "cash",
                "received_by": "CA-1",
            },
        )
    else:
        t.redeem("M-1", 300_000)
    t.open(DAY2)
    t.count(
        "opening",
        {100_000: hundreds, 5_000: fives - (1 if fault == "opener_mismatch" else 0)},
        day=DAY2,
        slip="I-2",
    )
    t.count(
        "closing",
        {100_000: hundreds, 5_000: fives - (1 if fault == "opener_mismatch" else 0)},
        day=DAY2,
        slip="I-3",
    )
    t.close(DAY2)
    return t


def audit(t: Table, *, replayed_extra: int = 0) -> tuple[Books, list[Reconciliation]]:
    # the first day's game has a drop box (its counts and drop must be on record); the
    # second day has no drop, and is not asked about it
    books = fold(t.events, refused=t.refused, drop_box={DAY})
    recs = [
        reconcile(
            books.day(day),
            replayed_win=books.day(day).recorded_win + replayed_extra,
            edge=EDGE,
            variance=VARIANCE,
        )
        for day in books.days()
    ]
    return books, recs


def findings_of(t: Table, **kw: int) -> list:
    books, recs = audit(t, **kw)
    return [*books.findings, *(f for r in recs for f in r.findings)]


def test_the_clean_days_give_no_finding_and_reconcile() -> None:
    books, recs = audit(scenario())
    assert books.findings == ()
    assert [r.findings for r in recs] == [(), ()]
    first = recs[0]
    assert (first.chip_win, first.recorded_win, first.replayed_win) == (400_000, 400_000, 400_000)
    assert first.chip_variance == 0 and first.replay_variance == 0
    assert books.slips["F-1"].state == "complete" and books.slips["F-3"].state == "voided"
    assert books.markers["M-1"].outstanding == 0
    assert sum(books.trial_balance().values()) == 0


def test_every_ledger_kind_has_a_test_here() -> None:
    """The vocabulary's ledger kinds and the faults below are the same set (but for
    ``replay_variance``, tested above, ``signed_day_changed``, which the sign-off finds:
    tests/ledger/test_sign_off.py, and ``no_gaming_day``, which a struck opening of no
    date makes: tests/engine/test_struck_opening.py)."""
    assert kinds_of("ledger") == {kind for kind, *_ in CASES} | {
        "replay_variance",
        "signed_day_changed",
        "no_gaming_day",
    }


CASES = [
    # kind, fault, expected, recorded, slip
    ("chip_variance", "chip_variance", "+EUR 4,000.00", "+EUR 3,950.00", None),
    ("duplicate_slip", "duplicate_slip", None, "EUR 5,000.00 (5 x EUR 1,000.00)", "F-1"),
    ("duplicate_slip", "duplicate_marker", None, "EUR 3,000.00", "M-1"),
    (
        "slip_without_request",
        "slip_without_request",
        None,
        "EUR 5,000.00 (5 x EUR 1,000.00)",
        "F-1",
    ),
    (
        "slip_mismatch",
        "slip_mismatch",
        "EUR 5,000.00 (5 x EUR 1,000.00)",
        "EUR 4,000.00 (4 x EUR 1,000.00)",
        "F-1",
    ),
    (
        "slip_unfinished",
        "slip_unfinished",
        "requested, issued, received",
        "requested, issued",
        "F-2",
    ),
    ("void_without_reason", "void_without_reason", None, None, "F-3"),
    ("void_after_receipt", "void_after_receipt", None, "EUR 5,000.00 (5 x EUR 1,000.00)", "F-1"),
    (
        "opener_mismatch",
        "opener_mismatch",
        "EUR 20,000.00 (100 x EUR 50.00, 15 x EUR 1,000.00)",
        "EUR 19,950.00 (99 x EUR 50.00, 15 x EUR 1,000.00)",
        "I-2",
    ),
    # not applied: the slip stands complete, and no void_after_receipt (the void is not the record's)
    ("unauthorised_void", "unauthorised_void", None, None, "F-1"),
    ("drop_not_counted", "drop_not_counted", None, None, None),
    ("opener_missing", "opener_missing", None, None, None),
    ("closer_missing", "closer_missing", None, None, None),
    ("drop_not_posted", "drop_not_posted", "EUR 12,000.00", None, None),
    ("drop_mismatch", "drop_mismatch", "EUR 12,000.00", "EUR 11,950.00", None),
    ("win_outside_interval", "win_outside_interval", None, "+EUR 14,000.00", None),
    ("currency_mismatch", "currency_mismatch", "EUR", "USD 3,000.00", "M-1"),
]


@pytest.mark.parametrize(
    ("kind", "fault", "expected", "recorded", "slip"), CASES, ids=[c[1] for c in CASES]
)
def test_one_fault_gives_exactly_its_finding(
    kind: str, fault: str, expected: str | None, recorded: str | None, slip: str | None
) -> None:
    found = findings_of(scenario(fault))
    assert [f.kind for f in found] == [kind], [f.message for f in found]
    finding = found[0]
    assert finding.table == "BJ-01"
    assert finding.gaming_day == (DAY2 if fault == "opener_mismatch" else DAY)
    assert finding.shift == "06:00" or (
        finding.shift is None and kind in {"chip_variance", "win_outside_interval"}
    )
    assert finding.slip == slip
    if expected is not None:
        assert finding.expected == expected
    assert finding.recorded == recorded
    assert finding.message


def test_the_chip_variance_finding_says_the_variance_and_its_threshold() -> None:
    finding = findings_of(scenario("chip_variance"))[0]
    assert "-EUR 50.00" in finding.message and "above EUR 25.00" in finding.message
    assert "regulator" not in finding.message


def test_a_variance_from_the_regulator_threshold_says_it_goes_to_the_regulator() -> None:
    t = scenario()
    books = fold(t.events)
    figures = books.day(DAY)
    figures.closer = (figures.closer or 0) - 10_000  # a count 100.00 short
    message = reconcile(figures).findings[0].message
    assert "from EUR 100.00 it goes to the regulator" in message


def test_a_variance_within_the_threshold_is_no_finding_but_is_shown() -> None:
    books = fold(scenario().events)
    figures = books.day(DAY)
    figures.closer = (figures.closer or 0) - 2_500  # exactly 25.00: not above
    result = reconcile(figures)
    assert result.findings == () and result.chip_variance == -2_500


def test_replay_variance_unexplained_is_a_finding_and_the_engine_s_difference_explains_it() -> None:
    """Replay gives 12.50 less for the house than the record: unexplained that is a
    finding (above 25.00 only when it is), explained by a wrong payout of that amount it
    is none."""
    books = fold(scenario().events)
    figures = books.day(DAY)
    short_pay = replay_difference(
        "wrong_payout", expected_net=10_000, recorded_net=5_000, bet="r1-b2", round=1
    )
    assert short_pay.amount == -5_000
    unexplained = reconcile(figures, replayed_win=figures.recorded_win - 5_000)
    assert [f.kind for f in unexplained.findings] == ["replay_variance"]
    assert (
        unexplained.findings[0].expected == "+EUR 4,000.00"
        and unexplained.findings[0].recorded == "+EUR 3,950.00"
    )
    explained = reconcile(
        figures, replayed_win=figures.recorded_win - 5_000, replay_differences=[short_pay]
    )
    assert explained.findings == () and explained.replay_variance == 0
    assert explained.replay_known[0].amount == -5_000


def test_a_correction_is_a_known_difference_between_chips_and_record() -> None:
    """A short pay corrected afterwards (refunded at the cage): the recorded win drops by
    the refund, the chips do not see it, and the correction explains the difference."""
    t = scenario()
    t.correct(1, "r1-b2", 150_000)  # was +100,000: 500.00 more to the player
    books = fold(t.events)
    result = reconcile(books.day(DAY))
    assert result.recorded_win == 350_000 and result.chip_win == 400_000
    assert [(k.kind, k.effect) for k in result.chip_known] == [("correction", 50_000)]
    assert result.findings == () and result.chip_variance == 0
    assert books.findings == ()


def test_a_void_no_one_with_the_authority_recorded_changes_no_money() -> None:
    """The unauthorised void of a filled slip leaves the books as the clean day's: the
    slip complete, every balance the same; applied, the same void moves nothing either
    (its chips had moved) but makes the slip voided."""
    clean, refused = fold(scenario().events), scenario("unauthorised_void")
    books = fold(refused.events, refused=refused.refused)
    assert books.slips["F-1"].state == clean.slips["F-1"].state == "complete"
    assert books.trial_balance() == clean.trial_balance()
    assert [f.kind for f in fold(refused.events).findings] == ["void_after_receipt"]


def test_a_day_with_nothing_counted_lacks_its_opener_closer_and_drop_and_a_game_without_a_box_lacks_none() -> (
    None
):
    """A day of rounds only: with a drop box by design, its opener, closer and drop are
    each a finding (of the whole day: shift None); the same day of a game without a
    drop box (the live game), or not final yet, is no finding."""
    t = Table()
    t.open()
    t.play((100_000, -100_000))
    t.close()
    t.open(DAY2)
    found = fold(t.events, drop_box={DAY}).findings
    assert [(f.kind, f.gaming_day, f.shift) for f in found] == [
        ("opener_missing", DAY, None),
        ("closer_missing", DAY, None),
        ("drop_not_counted", DAY, None),
    ]
    assert "No closing count of the tray is on record for gaming day 2026-11-29." in [
        f.message for f in found
    ]
    assert fold(t.events, drop_box=set()).findings == ()
    assert fold(t.events, final=False, drop_box={DAY}).findings == ()


def test_a_shift_counted_at_its_opening_only_lacks_its_closer() -> None:
    """Two shifts: the first opened and closed, the second opened and never closed -
    one closer_missing, of the second shift."""
    from audit.record.shifts import ShiftPlan

    t = Table()
    t.open()
    t.count("opening", {100_000: 20}, shift="06:00")
    t.play((100_000, -100_000))
    t.count("closing", {100_000: 21}, shift="06:00")
    t.count("opening", {100_000: 21}, shift="14:00")
    t.play((100_000, -100_000))
    t.close()
    t.drop(0, shift=None)
    plan = ShiftPlan.parse("8h", day_start="06:00", zone="UTC")
    found = fold(t.events, plan=plan, drop_box={DAY}).findings
    assert [(f.kind, f.shift) for f in found] == [("closer_missing", "14:00")]
