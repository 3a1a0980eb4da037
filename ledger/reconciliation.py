"""The reconciliation service: a table's gaming day and each of its shifts, reconciled
four ways - chip-count, recorded, replayed and theoretical win - from the figures the
ledger's fold stored (:mod:`ledger.projection`) and what the game provider gives
(:mod:`ledger.game`), with the thresholds of the settings; the results stored on the
rows and the findings in the one findings table (owner ``ledger``).

The arithmetic is the pure package's (:func:`ledger.books.reconcile`); this module
gathers its inputs, chooses which period reports a variance (below), checks a signed-off
day against its sign-off, and writes.

**Which period reports.** A day of one shift is reported by the day. A day of several
shifts reports a chip variance by its shifts where every shift has a chip-count win
(a variance of +30 in one shift and -30 in the next must not vanish in the day's sum),
by the day otherwise (one drop box for the day); the same for the replay variance; a
win outside the 95% interval is a statistical matter of the whole day.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from fractions import Fraction
from typing import Any

from django.db import transaction

from audit.findings.workflow import findings_record_scope
from audit.models import Finding, ReplayRun
from audit.record.chain import canonical_json
from audit.record.money import format_signed
from ledger.books import Figures, Reconciliation, Thresholds, reconcile
from ledger.books.ledger_findings import LedgerFinding
from ledger.books.reconcile import DIFFERENCES, day_state, missing_of

from . import config, game
from . import models as m

# the kinds this service reports; the fold's (custody) kinds are the projection's
KINDS = frozenset(
    {"chip_variance", "replay_variance", "win_outside_interval", "signed_day_changed"}
)
VARIANCES = ("chip_variance", "replay_variance")
# what leaves a day not reconciled: its variances not explained, a drop posted other than counted
UNEXPLAINED = (*VARIANCES, *DIFFERENCES)
# what an adjustment adds to the day it is posted into, as the reports count it: the
# chip-count win, the drop and the house result (each row's adjustment_<name>)
ADJUSTED = ("win", "drop", "house_result")
SIGNED = (
    "opener",
    "closer",
    "fills",
    "credits",
    "drop",
    "handle",
    "chip_win",
    "recorded_win",
    "replayed_win",
    "theoretical_win",
)


@dataclass(frozen=True, slots=True)
class GameData:
    """What the game provider gives for one table-day."""

    replayed: game.ReplayedDay | None = None
    math: game.GameMath = field(default_factory=game.GameMath)


def game_data(
    *,
    table: str,
    gaming_day: date,
    ruleset: str,
    rules: dict[str, Any],
    version: int,
    provider: game.GameProvider | None = None,
) -> GameData:
    """Ask the provider: the replay of the day covering stream version ``version`` (None
    while the game's read models are behind it: the day then waits in ``replay_pending``
    for the tables' announcement, :func:`reconcile_replayed`), and the game's figures."""
    provider = provider or game.provider()
    return GameData(
        replayed=provider.replayed(table=table, gaming_day=gaming_day, version=version),
        math=provider.game_math(ruleset=ruleset, rules=rules) if ruleset else game.GameMath(),
    )


def figures_of(row: m.Reconciliation) -> Figures:
    """The pure package's figures of a stored period."""

    def chips(value: Any) -> dict[int, int] | None:
        return None if value is None else {int(d): n for d, n in value.items()}

    return Figures(
        table=row.table.stream,
        gaming_day=row.gaming_day.isoformat(),
        shift=row.shift or None,
        currency=row.currency,
        opener=row.opener,
        opener_chips=chips(row.opener_chips),
        closer=row.closer,
        closer_chips=chips(row.closer_chips),
        fills=row.fills,
        credits=row.credits,
        buyins_cash=row.buyins_cash,
        markers_issued=row.markers_issued,
        drop_cash=row.drop_cash,
        drop_markers=row.drop_markers,
        drop_chips=row.drop_chips,
        handle=row.handle,
        stake_squares=int(row.stake_squares),
        hand_squares=int(row.hand_squares),
        round_squares=int(row.round_squares),
        settled_win=row.settled_win,
        corrections=row.corrections,
        rounds=row.rounds,
        bets=row.bets,
        initial=row.initial_stakes or 0,
        insurance=row.insurance_stakes,
        insurance_squares=int(row.insurance_squares),
        between_shifts=row.between_shifts,
        duplicates=[(slip, value) for slip, value in row.duplicates],
    )


def signed_figures(row: m.Reconciliation) -> dict[str, int | None]:
    """The figures accounting signs, as the sign-off event carries them."""
    return {name: (row.drop if name == "drop" else getattr(row, name)) for name in SIGNED}


def figures_hash(figures: dict[str, int | None]) -> str:
    """SHA-256 of the signed figures' canonical JSON (RFC 8785, as the chain's)."""
    return hashlib.sha256(canonical_json(figures)).hexdigest()


def _fraction(text: str) -> Fraction | None:
    return Fraction(text) if text else None


def _known(result: Reconciliation) -> dict[str, list[dict[str, Any]]]:
    def rows(known: Iterable[Any]) -> list[dict[str, Any]]:
        return [
            {"kind": k.kind, "amount": k.amount, "effect": k.effect, "what": k.what} for k in known
        ]

    return {"chip": rows(result.chip_known), "replay": rows(result.replay_known)}


def _apply(
    row: m.Reconciliation, result: Reconciliation, data: GameData, version: int, now: datetime
) -> None:
    theory = result.theoretical
    interval = theory.interval() if theory is not None else None
    row.chip_win = result.chip_win
    row.recorded_win = result.recorded_win
    row.replayed_win = result.replayed_win
    row.theoretical_win = theory.win if theory is not None else None
    row.theoretical_sd = theory.sd if theory is not None else None
    row.interval_low, row.interval_high = interval if interval is not None else (None, None)
    row.edge = str(data.math.edge) if data.math.edge is not None else ""
    row.game_variance = str(data.math.variance) if data.math.variance is not None else ""
    row.game_covariance = str(data.math.covariance) if data.math.covariance is not None else ""
    row.insurance_edge = (
        str(data.math.insurance_edge) if data.math.insurance_edge is not None else ""
    )
    row.insurance_variance = (
        str(data.math.insurance_variance) if data.math.insurance_variance is not None else ""
    )
    row.chip_variance = result.chip_variance
    row.replay_variance = result.replay_variance
    row.explanations = _known(result)
    row.reconciled_version = version
    row.reconciled_at = now


def reconcile_rows(
    rows: Sequence[m.Reconciliation],
    data: GameData,
    *,
    version: int,
    thresholds: Thresholds | None = None,
    missing: Sequence[str] = (),
    drop_box: bool = True,
    differences: Sequence[str] = (),
    now: datetime | None = None,
) -> list[LedgerFinding]:
    """Reconcile one table-day's periods (the day's row, shift blank, and its shifts'
    rows) as the record gives them: set each row's results and accounting state (not
    saved) and return the day's findings. ``missing``: what the day's record lacks
    (:func:`ledger.books.reconcile.missing_of`); ``drop_box``: its game has one by design;
    ``differences``: the custody differences nothing explains (:meth:`ledger.books.Books.differences`:
    a drop posted other than counted, an amount not booked for want of a rate), so the day
    is not reconciled. The rows of a
    signed-off day are kept as signed (:func:`late_of`)."""
    now = now or datetime.now(UTC)
    day = next(r for r in rows if not r.shift)
    thresholds = thresholds or config.thresholds(day.currency)
    shifts = [r for r in rows if r.shift]
    results: dict[str, Reconciliation] = {}
    for row in rows:
        rounds = None if not row.shift else row.round_numbers
        replayed = data.replayed
        result = reconcile(
            figures_of(row),
            replayed_win=replayed.win(rounds) if replayed is not None else None,
            replay_differences=replayed.differences_of(rounds) if replayed is not None else (),
            # a row folded before the initial stakes were kept has no theoretical win (n/a)
            # until it is folded again, never one on another basis
            edge=data.math.edge if row.initial_stakes is not None else None,
            variance=data.math.variance,
            covariance=data.math.covariance,
            insurance_edge=data.math.insurance_edge,
            insurance_variance=data.math.insurance_variance,
            thresholds=thresholds,
        )
        _apply(row, result, data, version, now)
        results[row.shift] = result
    chosen: list[LedgerFinding] = []
    by_shifts = len(shifts) > 1
    for kind, ready in (
        ("chip_variance", lambda r: r.chip_win is not None),
        ("replay_variance", lambda r: r.replayed_win is not None),
    ):
        reporters = (
            [results[s.shift] for s in shifts]
            if by_shifts and all(ready(results[s.shift]) for s in shifts)
            else [results[""]]
        )
        chosen += [f for r in reporters for f in r.findings if f.kind == kind]
    chosen += [f for f in results[""].findings if f.kind == "win_outside_interval"]
    for row in rows:
        row.findings = [f.as_dict() for f in results[row.shift].findings]
        row.unexplained = any(f.kind in VARIANCES for f in results[row.shift].findings)
    # the day: what is reported for it, by the day or by its shifts
    day.unexplained = any(f.kind in VARIANCES for f in chosen) or bool(differences)
    for row in rows:
        row.missing, row.drop_box = list(missing), drop_box
        row.state = day_state(
            missing=missing,
            final=day.final,
            drop_box=drop_box,
            unexplained=row.unexplained,
            replayed=data.replayed is not None,
        )
    return chosen


# --- period close: a signed day keeps its figures, what came later is an adjustment ------------


def late_of(fresh: m.Reconciliation, signoff: m.SignOff) -> dict[str, Any]:
    """What the record gives now for a signed day (``fresh``, its day row reconciled
    again) against what was signed: each signed figure that moved (now - signed; a figure
    not known counts 0), and the changes the reports count - of the chip-count win
    (``win``), the drop and the house result (the recorded win). Empty where nothing
    moved."""
    now = signed_figures(fresh)
    signed = signoff.figures
    moved = {
        name: (now[name] or 0) - (signed.get(name) or 0)
        for name in SIGNED
        if now[name] != signed.get(name)
    }
    if not moved:
        return {}
    return {
        "figures": moved,
        "win": moved.get("chip_win", 0),
        "drop": moved.get("drop", 0),
        "house_result": moved.get("recorded_win", 0),
    }


def take_signed(rows: Sequence[m.Reconciliation], signoff: m.SignOff) -> None:
    """Rows of a signed day made again (they were deleted outside the projection, which
    keeps them): the day row takes the figures as signed - the drop, signed as a total,
    as cash - so that what came later is not counted twice (it is an adjustment)."""
    day = next(r for r in rows if not r.shift)
    signed = signoff.figures
    for name in SIGNED:
        if name != "drop":
            setattr(day, name, signed.get(name))
    if signed.get("drop") != day.drop:
        day.drop_cash = signed.get("drop")
        day.drop_markers = day.drop_chips = None if signed.get("drop") is None else 0


def signed_changed(row: m.Reconciliation, signoff: m.SignOff) -> LedgerFinding | None:
    """A signed day whose record moved after signing (``row.late``): a finding naming
    each figure that moved, and the day it was posted into."""
    late = row.late or {}
    moved = late.get("figures") or {}
    if not moved:
        return None
    c = row.currency

    def text(name: str, value: int | None) -> str:
        return f"{name} n/a" if value is None else f"{name} {format_signed(value, c)}"

    def now(name: str) -> int | None:
        before = signoff.figures.get(name)
        return (before or 0) + moved[name] if before is not None or moved[name] else None

    before = ", ".join(text(n, signoff.figures.get(n)) for n in moved)
    after = ", ".join(text(n, now(n)) for n in moved)
    into = (
        f"posted as an adjustment into gaming day {row.adjusted_into.isoformat()}"
        if row.adjusted_into
        else "to be posted into the table's next gaming day"
    )
    return LedgerFinding(
        "signed_day_changed",
        f"{row.table.stream}, gaming day {row.gaming_day.isoformat()} was signed off by {signoff.signed_by} on "
        f"{signoff.signed_at:%Y-%m-%d %H:%M} UTC with {before}; the record now gives {after}. The signed figures "
        f"stand; the difference is {into}.",
        expected=before[:200],
        recorded=after[:200],
        table=row.table.stream,
        gaming_day=row.gaming_day.isoformat(),
    )


def route_adjustments(table: m.LedgerTable) -> None:
    """Post what arrived after each signed day of ``table`` (its ``late``) into the first
    day after it that is not signed off: the part no signed day carries already (a day
    signed with an adjustment keeps it, as signed). Sets every unsigned day's
    ``adjustments`` (and their sums) and each signed day's ``adjusted_into``; saves what
    changed."""
    statuses = dict(
        m.SignOff.objects.filter(table=table.stream).values_list("gaming_day", "status")
    )
    if not statuses:  # never signed off: nothing was ever posted forward
        return
    signed = {day for day, status in statuses.items() if status == m.SignOff.Status.SIGNED}
    days = list(m.Reconciliation.objects.filter(table=table, shift="").order_by("gaming_day"))

    def nothing() -> dict[str, Any]:
        return {"figures": {}, **dict.fromkeys(ADJUSTED, 0), "by": []}

    carried: dict[str, dict[str, Any]] = {}  # signed day -> what signed days carry of it
    for row in days:
        if row.gaming_day in signed:
            for adjustment in row.adjustments:
                into = carried.setdefault(adjustment["gaming_day"], nothing())
                for name, amount in adjustment["figures"].items():
                    into["figures"][name] = into["figures"].get(name, 0) + amount
                for name in ADJUSTED:
                    into[name] += adjustment.get(name, 0)
                into["by"].append(row.gaming_day)
    incoming: dict[date, list[dict[str, Any]]] = {}
    for row in days:
        if row.gaming_day not in signed or not row.late:
            continue
        taken = carried.get(row.gaming_day.isoformat(), nothing())
        left = {
            name: amount - taken["figures"].get(name, 0)
            for name, amount in row.late["figures"].items()
        }
        pending = {
            "gaming_day": row.gaming_day.isoformat(),
            "figures": {name: amount for name, amount in left.items() if amount},
            **{name: row.late.get(name, 0) - taken[name] for name in ADJUSTED},
        }
        target = next(
            (d for d in days if d.gaming_day > row.gaming_day and d.gaming_day not in signed), None
        )
        into = max(taken["by"], default=None)
        if pending["figures"] or any(pending[name] for name in ADJUSTED):
            into = target.gaming_day if target is not None else None
            if target is not None:
                incoming.setdefault(target.gaming_day, []).append(pending)
        if row.adjusted_into != into:
            row.adjusted_into = into
            m.Reconciliation.objects.filter(pk=row.pk).update(adjusted_into=into)
    for row in days:
        if row.gaming_day in signed:
            continue
        posted = incoming.get(row.gaming_day, [])
        values = {
            "adjustments": posted,
            **{f"adjustment_{name}": sum(a[name] for a in posted) for name in ADJUSTED},
        }
        if any(getattr(row, k) != v for k, v in values.items()):
            for k, v in values.items():
                setattr(row, k, v)
            m.Reconciliation.objects.filter(pk=row.pk).update(**values)


def check_run(
    *,
    table: str,
    gaming_day: date | None,
    findings: tuple[int, int, int] = (0, 0, 0),
    events: int = 0,
    now: datetime | None = None,
) -> ReplayRun:
    """The run the ledger's findings are recorded under (trigger ``reconciliation``)."""
    now = now or datetime.now(UTC)
    return ReplayRun.objects.create(
        mode=ReplayRun.Mode.INCREMENTAL,
        trigger="reconciliation",
        stream=table,
        gaming_day=gaming_day,
        status=ReplayRun.Status.DONE,
        started_at=now,
        finished_at=now,
        tables_total=1,
        tables_done=1,
        events=events,
    )


def record_findings(
    *,
    run: ReplayRun,
    table: str,
    gaming_day: date,
    findings: Iterable[LedgerFinding],
    kinds: frozenset[str],
    versions: dict[str, int] | None = None,
) -> tuple[int, int, int]:
    """Store a table-day's findings of ``kinds`` (each with the version of the event that
    showed it, where known) and supersede the ones no longer produced."""
    versions = versions or {}
    counts = findings_record_scope(
        owner="ledger",
        stream=table,
        gaming_day=gaming_day,
        kinds=kinds,
        run=run,
        findings=[(f, versions.get(f.event) if f.event else None) for f in findings],
    )
    ReplayRun.objects.filter(pk=run.pk).update(
        findings=run.findings + counts[0],
        findings_new=run.findings_new + counts[1],
        findings_superseded=run.findings_superseded + counts[2],
    )
    run.findings, run.findings_new, run.findings_superseded = (
        run.findings + counts[0],
        run.findings_new + counts[1],
        run.findings_superseded + counts[2],
    )
    return counts


@dataclass(frozen=True, slots=True)
class Reconciled:
    """One table-day reconciled: its rows (the day first, then the shifts) and findings."""

    table: str
    gaming_day: date
    rows: list[m.Reconciliation]
    findings: list[LedgerFinding]


def custody_of_day(
    day: m.Reconciliation, shifts: Sequence[m.Reconciliation], *, drop_box: bool
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """What a stored table-day's record lacks (:func:`ledger.books.reconcile.missing_of`),
    from its shifts' figures and its drop boxes and slips; and its custody differences
    nothing explains (:data:`ledger.books.reconcile.DIFFERENCES`): a drop box posted other
    than counted, an amount its books did not book (an open ``currency_mismatch``), a fill or
    credit slip whose steps disagree (an open ``slip_mismatch``)."""
    boxes = list(
        m.DropBox.objects.filter(table=day.table, gaming_day=day.gaming_day).values_list(
            "state",
            "counted_cash",
            "counted_markers",
            "counted_chips",
            "posted_cash",
            "posted_markers",
            "posted_chips",
        )
    )
    drops = [(box[1] is not None, box[0] == "posted") for box in boxes]
    mismatch = any(
        box[1] is not None and box[4] is not None and box[1:4] != box[4:7] for box in boxes
    )
    unfinished = sum(
        1
        for steps in m.Slip.objects.filter(table=day.table, gaming_day=day.gaming_day)
        .exclude(state__in=("complete", "voided"))
        .values_list("steps", flat=True)
        if "requested" in steps
    )
    missing = missing_of(
        shifts=[figures_of(s) for s in shifts] or [figures_of(day)],
        drops=drops,
        unfinished_slips=unfinished,
        drop_box=drop_box,
    )
    open_kinds = set(
        Finding.objects.filter(
            stream=day.table.stream,
            gaming_day=day.gaming_day,
            kind__in=("currency_mismatch", "slip_mismatch"),
            superseded_by__isnull=True,
        ).values_list("kind", flat=True)
    )
    return missing, tuple(
        kind
        for kind, found in (
            ("drop_mismatch", mismatch),
            ("currency_mismatch", "currency_mismatch" in open_kinds),
            ("slip_mismatch", "slip_mismatch" in open_kinds),
        )
        if found
    )


def reconcile_table_day(
    *,
    table: str,
    gaming_day: date,
    provider: game.GameProvider | None = None,
    now: datetime | None = None,
) -> Reconciled | None:
    """Reconcile one table-day again from its stored figures with what the game provider
    gives now; store the results, the state and the findings. None where the ledger has
    no figures for it. A signed-off day's rows stay as signed: only its state and where
    its later events were posted are brought up to date (the ledger's fold reconciles
    its record as it comes)."""
    rows = list(
        m.Reconciliation.objects.filter(table__stream=table, gaming_day=gaming_day)
        .select_related("table")
        .order_by("shift")
    )
    if not rows or all(r.shift for r in rows):
        return None
    day = next(r for r in rows if not r.shift)
    shifts = [r for r in rows if r.shift]
    version = day.table.folded_version
    signoff = m.SignOff.objects.filter(
        table=table, gaming_day=gaming_day, status=m.SignOff.Status.SIGNED
    ).first()
    data = (
        None
        if signoff is not None
        else game_data(
            table=table,
            gaming_day=gaming_day,
            ruleset=day.ruleset,
            rules=day.rules,
            version=version,
            provider=provider,
        )
    )
    with transaction.atomic():
        route_adjustments(day.table)
        run = check_run(table=table, gaming_day=gaming_day, now=now)
        if signoff is not None:
            day.refresh_from_db()
            state = m.Reconciliation.State.ADJUSTED if day.late else m.Reconciliation.State.SIGNED
            m.Reconciliation.objects.filter(pk__in=[r.pk for r in rows]).update(state=state)
            for row in rows:
                row.state = state
            changed = signed_changed(day, signoff)
            findings = [changed] if changed is not None else []
            record_findings(
                run=run,
                table=table,
                gaming_day=gaming_day,
                findings=findings,
                kinds=frozenset({"signed_day_changed"}),
            )
        else:
            assert data is not None
            drop_box = config.has_drop_box(day.ruleset)
            missing, differences = custody_of_day(day, shifts, drop_box=drop_box)
            findings = reconcile_rows(
                rows,
                data,
                version=version,
                now=now,
                drop_box=drop_box,
                missing=missing,
                differences=differences,
            )
            for row in rows:
                row.save()
            record_findings(
                run=run, table=table, gaming_day=gaming_day, findings=findings, kinds=KINDS
            )
    return Reconciled(table, gaming_day, [day, *shifts], findings)


def reconcile_replayed(
    *,
    table: str,
    version: int,
    provider: game.GameProvider | None = None,
    now: datetime | None = None,
) -> list[Reconciled]:
    """The tables announced ``table``'s read models written up to stream version
    ``version`` (:data:`audit.feed.subscribers.table_day_replayed`): reconcile again each of its
    days not signed off that waits for its replay - reconciled with no replayed win, as
    the game's read models were behind the version the ledger folded - where ``version``
    covers what the ledger folded (a table's read models cover all its days at one
    version). A day reconciled with a replay needs nothing: that replay covered what the
    ledger had folded, and a later event of the day is folded and reconciled again by the
    ledger's own subscriber. Under the table's lock, as the ledger's fold writes."""

    def waiting() -> list[date]:
        rows = m.Reconciliation.objects.filter(
            table__stream=table,
            table__folded_version__lte=version,
            shift="",
            replayed_win__isnull=True,
        ).exclude(state__in=(m.Reconciliation.State.SIGNED, m.Reconciliation.State.ADJUSTED))
        return list(rows.order_by("gaming_day").values_list("gaming_day", flat=True))

    done: list[Reconciled] = []
    if not waiting():  # the common case, the tables first: no lock taken
        return done
    with transaction.atomic():
        m.LedgerTable.objects.select_for_update().filter(stream=table).first()
        for day in waiting():
            reconciled = reconcile_table_day(
                table=table, gaming_day=day, provider=provider, now=now
            )
            if reconciled is not None:
                done.append(reconciled)
    return done
