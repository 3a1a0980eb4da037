"""The four-way reconciliation of one table's shift or gaming day.

- **chip-count win** = closer - opener + credits - fills + drop (13 Miss. Code R. 7-3.3(a));
- **recorded win** = the house result of the settlements as recorded, corrections applied;
- **replayed win** = the house result of the settlements the rules engine recomputes
  (given by the caller, with the engine's differences and their amounts);
- **theoretical win** = initial stakes x the chart's house edge per initial stake, plus
  insurance stakes x insurance's own edge (both given by the caller), with its standard
  deviation on the same basis (:class:`.stats.Theoretical`) and its 95% interval.

House results are positive when the house won. Known differences are explained, each
with its amount: a correction (paid or taken at the cage, so the chips never see it), a
duplicate slip (counted once - it explains nothing but is named), what the tray changed
between two shifts of the day (an ``opener_mismatch`` already), chips found in the drop
box (part of the drop, so of the chip-count win, but no round's result), and on the replay side
each of the engine's differences. What is left unexplained beyond the thresholds is a
finding: ``chip_variance`` (chips against the record), ``replay_variance`` (the record
against replay); a house result outside the interval of the theoretical win of the same
rounds is ``win_outside_interval``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from fractions import Fraction

from audit.record.money import format_money, format_signed, minor_unit_digits
from ledger.books.ledger_findings import LedgerFinding

from .figures import Figures
from .stats import Z95, TableDay, Theoretical, hold, theoretical


@dataclass(frozen=True, slots=True)
class Thresholds:
    """When an unexplained variance is a finding (N.J.A.C. 13:69D-1.21(e): a report above
    $25, a copy to the regulator from $100), in minor units of one currency - the
    table's: :meth:`default` gives 25 and 100 of a currency's major unit, the settings
    set them per currency - and the interval's z (1.96: 95%).

    >>> Thresholds.default("EUR").report_above, Thresholds.default("JPY").report_above
    (2500, 25)
    >>> Thresholds.default("KWD").regulator_from
    100000
    """

    report_above: int = 2_500
    regulator_from: int = 10_000
    z: Fraction = Z95

    @classmethod
    def default(cls, currency: str) -> Thresholds:
        """25 and 100 units of ``currency`` (its minor units by ISO 4217): EUR 25.00 and
        EUR 100.00, JPY 25 and JPY 100, KWD 25.000 and KWD 100.000."""
        unit = 10 ** minor_unit_digits(currency)
        return cls(report_above=25 * unit, regulator_from=100 * unit)


@dataclass(frozen=True, slots=True)
class Known:
    """A known difference: ``effect`` is how much of the difference it explains (house
    result), ``amount`` the amount it names (a duplicate slip explains 0 and names its
    value)."""

    kind: str
    amount: int
    effect: int
    what: str


@dataclass(frozen=True, slots=True)
class ReplayDifference:
    """One of the engine's findings with money in it: ``amount`` is the replayed house
    result minus the recorded one for that bet (see :func:`replay_difference`)."""

    kind: str
    amount: int
    bet: str | None = None
    round: int | None = None
    event: str | None = None


def replay_difference(
    kind: str,
    *,
    expected_net: int,
    recorded_net: int,
    bet: str | None = None,
    round: int | None = None,
    event: str | None = None,
) -> ReplayDifference:
    """A bet's difference from the player's nets the engine gives (``expected_net``) and
    records (``recorded_net``): the house's result moves the other way to the player's."""
    return ReplayDifference(kind, recorded_net - expected_net, bet, round, event)


@dataclass(frozen=True, slots=True)
class Reconciliation:
    table: str
    gaming_day: str
    shift: str | None
    currency: str
    chip_win: int | None
    recorded_win: int
    replayed_win: int | None
    theoretical: Theoretical | None
    drop: int | None
    chip_known: tuple[Known, ...]
    replay_known: tuple[Known, ...]
    # what the known differences leave unexplained (None where a win is missing)
    chip_variance: int | None
    replay_variance: int | None
    findings: tuple[LedgerFinding, ...]
    handle: int = 0

    @property
    def hold(self) -> Fraction | None:
        """Win-to-drop of the chip-count win."""
        return hold(self.chip_win, self.drop) if self.chip_win is not None and self.drop else None


def chip_known(figures: Figures) -> list[Known]:
    """The known differences between a period's chip-count win and its recorded win."""

    def money(amount: int) -> str:
        return format_money(amount, figures.currency)

    known = []
    if figures.corrections:
        known.append(
            Known(
                "correction",
                figures.corrections,
                -figures.corrections,
                f"corrections changed the recorded win by {format_signed(figures.corrections, figures.currency)}, "
                "paid or taken at the cage",
            )
        )
    for slip, value in figures.duplicates:
        known.append(
            Known(
                "duplicate_slip",
                value,
                0,
                f"slip {slip} ({money(value)}) recorded twice, counted once",
            )
        )
    if figures.between_shifts:
        known.append(
            Known(
                "between_shifts",
                figures.between_shifts,
                figures.between_shifts,
                f"the tray changed by {format_signed(figures.between_shifts, figures.currency)} between shifts",
            )
        )
    if figures.drop_chips:
        # chips a player put into the box came back to the house from the player's hands,
        # not from the tray and not through a round: the drop counts them, the settlements
        # never do (the books post them from players to the box, with no over/short)
        known.append(
            Known(
                "drop_chips",
                figures.drop_chips,
                figures.drop_chips,
                f"chips found in the drop box ({money(figures.drop_chips)}), from players' hands, "
                "not from play",
            )
        )
    return known


def reconcile(
    figures: Figures,
    *,
    replayed_win: int | None = None,
    replay_differences: Iterable[ReplayDifference] = (),
    edge: Fraction | int | None = None,
    variance: Fraction | int | None = None,
    covariance: Fraction | int | None = None,
    insurance_edge: Fraction | int | None = None,
    insurance_variance: Fraction | int | None = None,
    thresholds: Thresholds | None = None,
) -> Reconciliation:
    """Reconcile one period's figures (a shift, or a whole day: :meth:`.fold.Books.shift`,
    :meth:`.fold.Books.day`). ``edge`` and ``variance`` are the rule set's house edge and
    variance of one box's result per unit of initial stake, the chart played, exact
    (``Fraction``); ``covariance`` that of two boxes of one round
    (:func:`.stats.win_variance`; None: the boxes taken as independent);
    ``insurance_edge`` and ``insurance_variance`` insurance's own, per unit of insurance
    stake (:mod:`tables.engine.math.insurance`). With an edge and no variance the
    theoretical win is computed without its SD and interval (and nothing is found outside
    an interval there is not); with insurance staked and no insurance edge there is no
    theoretical win (n/a). ``thresholds`` are in minor units of the
    figures' currency (None: :meth:`Thresholds.default` of it)."""
    currency = figures.currency
    if thresholds is None:
        thresholds = Thresholds.default(currency)

    def money(amount: int) -> str:
        return format_money(amount, currency)

    where = f"{figures.table}, gaming day {figures.gaming_day}" + (
        f", shift {figures.shift}" if figures.shift else ""
    )
    findings: list[LedgerFinding] = []

    def find(kind: str, message: str, expected: str, recorded: str) -> None:
        findings.append(
            LedgerFinding(
                kind,
                message,
                expected=expected,
                recorded=recorded,
                table=figures.table,
                gaming_day=figures.gaming_day,
                shift=figures.shift,
            )
        )

    def unexplained(kind: str, actual: int | None, explained: int, says: str) -> int | None:
        """What ``explained`` leaves of ``actual``; a finding beyond the threshold."""
        if actual is None:
            return None
        left = actual - explained
        if abs(left) > thresholds.report_above:
            regulator = (
                f"; from {money(thresholds.regulator_from)} it goes to the regulator"
                if abs(left) >= thresholds.regulator_from
                else ""
            )
            find(
                kind,
                f"{where}: {says} {format_signed(actual, currency)}, the record explains "
                f"{format_signed(explained, currency)}: a variance of {format_signed(left, currency)} "
                f"(above {money(thresholds.report_above)}{regulator}).",
                format_signed(explained, currency),
                format_signed(actual, currency),
            )
        return left

    recorded = figures.recorded_win
    chip_win = figures.chip_win
    known = chip_known(figures)
    chip_variance = unexplained(
        "chip_variance",
        chip_win,
        recorded + sum(k.effect for k in known),
        "the chips give a house result of",
    )
    replay_known = tuple(
        Known(
            d.kind,
            d.amount,
            d.amount,
            d.kind + (f" bet {d.bet}" if d.bet else "") + (f" round {d.round}" if d.round else ""),
        )
        for d in replay_differences
    )
    replay_variance = unexplained(
        "replay_variance",
        replayed_win,
        recorded + sum(k.effect for k in replay_known),
        "replay gives a house result of",
    )

    theory = None
    if edge is not None:
        # without the game's variance the theoretical win has no SD and no interval
        theory = theoretical(
            figures.initial,
            edge,
            variance,
            covariance,
            hand_squares=figures.hand_squares,
            round_squares=figures.round_squares,
            insurance=figures.insurance,
            insurance_squares=figures.insurance_squares,
            insurance_edge=insurance_edge,
            insurance_variance=insurance_variance,
        )
    if theory is not None:
        # the theoretical win is of the rounds: their house result is what it predicts (the
        # chips' difference from it is the chip variance's matter)
        actual = recorded
        bounds = theory.interval(thresholds.z)
        if figures.handle and bounds is not None and theory.contains(actual, thresholds.z) is False:
            low, high = bounds
            find(
                "win_outside_interval",
                f"{where}: a house result of {format_signed(actual, currency)} on initial stakes of "
                f"{money(figures.initial)} (a handle of {money(figures.handle)}); "
                f"the theoretical win is {format_signed(theory.win, currency)} (SD {money(theory.sd or 0)}), "
                f"its 95% interval {format_signed(low, currency)} to {format_signed(high, currency)}.",
                f"{format_signed(low, currency)} to {format_signed(high, currency)}",
                format_signed(actual, currency),
            )

    return Reconciliation(
        table=figures.table,
        gaming_day=figures.gaming_day,
        shift=figures.shift,
        currency=currency,
        chip_win=chip_win,
        recorded_win=recorded,
        replayed_win=replayed_win,
        theoretical=theory,
        drop=figures.drop,
        chip_known=tuple(known),
        replay_known=replay_known,
        chip_variance=chip_variance,
        replay_variance=replay_variance,
        findings=tuple(findings),
        handle=figures.handle,
    )


def table_day(result: Reconciliation, *, game: str, pit: str) -> TableDay:
    """A reconciled period as a row of the statistics: its chip-count win and drop (None
    where not counted: it then stays out of any hold), its house result (the recorded
    win) and handle, and its theoretical win (None where no edge was given; its variance
    None where the game's is not known)."""
    theory = result.theoretical
    return TableDay(
        table=result.table,
        gaming_day=date.fromisoformat(result.gaming_day),
        game=game,
        pit=pit,
        currency=result.currency,
        drop=result.drop,
        chip_win=result.chip_win,
        house_result=result.recorded_win,
        handle=result.handle,
        theoretical=theory.mean if theory is not None else None,
        theoretical_variance=theory.variance if theory is not None else None,
        shift=result.shift,
    )


# --- what a table-day's record lacks, and its accounting state ---------------------------------

# the custody findings that name a difference nothing explains: a day with one is not reconciled
# (a slip whose steps disagree may leave chips in transit that no count of the tray shows)
DIFFERENCES = ("drop_mismatch", "currency_mismatch", "slip_mismatch")
# the findings that name something missing from a table-day's record, in the order they are said
MISSING = (
    "opener_missing",
    "closer_missing",
    "drop_not_counted",
    "drop_not_posted",
    "slip_unfinished",
)
# each in a few words, for screens and the command
MISSING_WORDS = {
    "opener_missing": "no opening count",
    "closer_missing": "no closing count",
    "drop_not_counted": "the drop not counted",
    "drop_not_posted": "the drop not posted",
    "slip_unfinished": "a fill or credit slip neither finished nor voided",
}

# A table-day's accounting state. ``open``: something is missing and the record may still
# bring it (no later day opened); ``incomplete``: something is missing and the table has
# opened a later day; ``no_drop_box``: a game with no chip tray or drop box by design (the
# live game) - its wins are the recorded and replayed ones, and it has no hold;
# ``replay_pending``: nothing missing from the record, but the replayed win not given yet
# (the game's read models are behind the version the ledger folded) - never a pass;
# ``counted``: opener, closer and drop counted and posted, every slip finished or voided,
# but a variance not explained; ``reconciled``: counted and every variance explained;
# ``signed``: signed off (its figures closed); ``adjusted``: signed off, and events that
# arrived later were posted into the first open day.
STATES = (
    "open",
    "incomplete",
    "replay_pending",
    "no_drop_box",
    "counted",
    "reconciled",
    "signed",
    "adjusted",
)
STATE_WORDS = {
    "open": "open",
    "incomplete": "incomplete",
    "replay_pending": "the replay not yet available",
    "no_drop_box": "no drop box",
    "counted": "counted, a variance not explained",
    "reconciled": "reconciled",
    "signed": "signed off",
    "adjusted": "signed off, adjusted",
}


def counts_missing(shifts: Sequence[Figures]) -> list[tuple[str, str | None]]:
    """The inventory counts a table-day with a chip tray lacks, as (finding kind, shift):
    with no count at all, its opener and closer (shift None: the day); else each counted
    shift's opener or closer that is not on record. A shift with neither count, in a day
    whose other shifts were counted, lacks nothing the record can tell."""
    counted = [f for f in shifts if f.opener is not None or f.closer is not None]
    if not counted:
        return [("opener_missing", None), ("closer_missing", None)]
    out: list[tuple[str, str | None]] = []
    for figures in counted:
        if figures.opener is None:
            out.append(("opener_missing", figures.shift))
        if figures.closer is None:
            out.append(("closer_missing", figures.shift))
    return out


def missing_of(
    *,
    shifts: Sequence[Figures],
    drops: Iterable[tuple[bool, bool]],
    unfinished_slips: int,
    drop_box: bool,
) -> tuple[str, ...]:
    """What a table-day's record lacks, as the kinds of the findings that name it, in the
    order of :data:`MISSING`. ``shifts``: the day's shifts' figures; ``drops``: each drop
    box (or compartment) of the day as (counted, posted); ``unfinished_slips``: the fill
    and credit slips requested and neither finished nor voided; ``drop_box``: the game
    has a chip tray and a drop box by design (then its counts and a drop must be on
    record)."""
    found: set[str] = set()
    boxes = list(drops)
    if drop_box:
        found.update(kind for kind, _ in counts_missing(shifts))
        if not boxes:
            found.add("drop_not_counted")
    for counted, posted in boxes:
        if not counted:
            found.add("drop_not_counted")
        elif not posted:
            found.add("drop_not_posted")
    if unfinished_slips:
        found.add("slip_unfinished")
    return tuple(kind for kind in MISSING if kind in found)


def day_state(
    *, missing: Sequence[str], final: bool, drop_box: bool, unexplained: bool, replayed: bool = True
) -> str:
    """The accounting state of a table-day not signed off (:data:`STATES`): a day lacking
    something is ``incomplete`` once its table opened a later day (``final``), ``open``
    before; else ``replay_pending`` while its replayed win is not given (``replayed``
    False), ``no_drop_box`` for a game without one, ``counted`` with a variance not
    explained, ``reconciled`` without."""
    if missing:
        return "incomplete" if final else "open"
    if not replayed:
        return "replay_pending"
    if not drop_box:
        return "no_drop_box"
    return "counted" if unexplained else "reconciled"


def missing_text(missing: Sequence[str]) -> str:
    """``no closing count, the drop not counted`` (empty: nothing missing)."""
    return ", ".join(MISSING_WORDS.get(kind, kind) for kind in missing)
