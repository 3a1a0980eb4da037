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

from audit.findings import findings_record_scope
from audit.models import ReplayRun
from audit.record.chain import canonical_json
from audit.record.money import format_signed
from ledger.books import Figures, Reconciliation, Thresholds, reconcile
from ledger.books.findings import LedgerFinding

from . import config, game
from . import models as m

# the kinds this service reports; the fold's (custody) kinds are the projection's
KINDS = frozenset({"chip_variance", "replay_variance", "win_outside_interval", "signed_day_changed"})
VARIANCES = ("chip_variance", "replay_variance")
SIGNED = ("opener", "closer", "fills", "credits", "drop", "handle", "chip_win", "recorded_win", "replayed_win",
          "theoretical_win")


@dataclass(frozen=True, slots=True)
class GameData:
    """What the game provider gives for one table-day."""

    replayed: game.ReplayedDay | None = None
    math: game.GameMath = field(default_factory=game.GameMath)


def game_data(*, table: str, gaming_day: date, ruleset: str, rules: dict[str, Any], version: int,
              provider: game.GameProvider | None = None) -> GameData:
    """Ask the provider (outside any transaction: it may bring the game's read models up
    to ``version`` first)."""
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
        table=row.table.stream, gaming_day=row.gaming_day.isoformat(), shift=row.shift or None,
        currency=row.currency, opener=row.opener, opener_chips=chips(row.opener_chips), closer=row.closer,
        closer_chips=chips(row.closer_chips), fills=row.fills, credits=row.credits, buyins_cash=row.buyins_cash,
        markers_issued=row.markers_issued, drop_cash=row.drop_cash, drop_markers=row.drop_markers,
        drop_chips=row.drop_chips, handle=row.handle, stake_squares=int(row.stake_squares),
        hand_squares=int(row.hand_squares), round_squares=int(row.round_squares),
        settled_win=row.settled_win, corrections=row.corrections, rounds=row.rounds, bets=row.bets,
        between_shifts=row.between_shifts, duplicates=[(slip, value) for slip, value in row.duplicates],
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
        return [{"kind": k.kind, "amount": k.amount, "effect": k.effect, "what": k.what} for k in known]

    return {"chip": rows(result.chip_known), "replay": rows(result.replay_known)}


def _apply(row: m.Reconciliation, result: Reconciliation, data: GameData, version: int, now: datetime) -> None:
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
    row.chip_variance = result.chip_variance
    row.replay_variance = result.replay_variance
    row.explanations = _known(result)
    row.reconciled_version = version
    row.reconciled_at = now


def reconcile_rows(rows: Sequence[m.Reconciliation], data: GameData, *, version: int,
                   thresholds: Thresholds | None = None, signoff: m.SignOff | None = None,
                   now: datetime | None = None) -> list[LedgerFinding]:
    """Reconcile one table-day's stored periods (the day's row, shift blank, and its
    shifts' rows): set each row's results (not saved) and return the day's findings."""
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
            edge=data.math.edge, variance=data.math.variance, covariance=data.math.covariance, thresholds=thresholds,
        )
        _apply(row, result, data, version, now)
        results[row.shift] = result
    chosen: list[LedgerFinding] = []
    by_shifts = len(shifts) > 1
    for kind, ready in (("chip_variance", lambda r: r.chip_win is not None),
                        ("replay_variance", lambda r: r.replayed_win is not None)):
        reporters = [results[s.shift] for s in shifts] if by_shifts and all(ready(results[s.shift]) for s in shifts) \
            else [results[""]]
        chosen += [f for r in reporters for f in r.findings if f.kind == kind]
    chosen += [f for f in results[""].findings if f.kind == "win_outside_interval"]
    for row in rows:
        row.findings = [f.as_dict() for f in results[row.shift].findings]
        row.unexplained = any(f.kind in VARIANCES for f in results[row.shift].findings)
    # the day: what is reported for it, by the day or by its shifts
    day.unexplained = any(f.kind in VARIANCES for f in chosen)
    if signoff is not None and signoff.status == m.SignOff.Status.SIGNED:
        changed = _signed_changed(day, signoff)
        if changed is not None:
            chosen.append(changed)
    return chosen


def _signed_changed(row: m.Reconciliation, signoff: m.SignOff) -> LedgerFinding | None:
    """The day's figures no longer those signed: a finding naming each that changed."""
    now = signed_figures(row)
    if figures_hash(now) == signoff.figures_hash:
        return None

    def text(name: str, value: int | None) -> str:
        return "n/a" if value is None else f"{name} {format_signed(value, row.currency)}"

    changed = [name for name in SIGNED if signoff.figures.get(name) != now[name]]
    before = ", ".join(text(n, signoff.figures.get(n)) for n in changed)
    after = ", ".join(text(n, now[n]) for n in changed)
    return LedgerFinding(
        "signed_day_changed",
        f"{row.table.stream}, gaming day {row.gaming_day.isoformat()} was signed off by {signoff.signed_by} on "
        f"{signoff.signed_at:%Y-%m-%d %H:%M} UTC with {before}; the record now gives {after}.",
        expected=before[:200], recorded=after[:200], table=row.table.stream, gaming_day=row.gaming_day.isoformat(),
    )


def check_run(*, table: str, gaming_day: date | None, findings: tuple[int, int, int] = (0, 0, 0),
              events: int = 0, now: datetime | None = None) -> ReplayRun:
    """The run the ledger's findings are recorded under (trigger ``reconciliation``)."""
    now = now or datetime.now(UTC)
    return ReplayRun.objects.create(
        mode=ReplayRun.Mode.INCREMENTAL, trigger="reconciliation", stream=table, gaming_day=gaming_day,
        status=ReplayRun.Status.DONE, started_at=now, finished_at=now, tables_total=1, tables_done=1, events=events,
    )


def record_findings(*, run: ReplayRun, table: str, gaming_day: date, findings: Iterable[LedgerFinding],
                    kinds: frozenset[str], versions: dict[str, int] | None = None) -> tuple[int, int, int]:
    """Store a table-day's findings of ``kinds`` (each with the version of the event that
    showed it, where known) and supersede the ones no longer produced."""
    versions = versions or {}
    counts = findings_record_scope(
        owner="ledger", stream=table, gaming_day=gaming_day, kinds=kinds, run=run,
        findings=[(f, versions.get(f.event) if f.event else None) for f in findings],
    )
    ReplayRun.objects.filter(pk=run.pk).update(findings=run.findings + counts[0],
                                               findings_new=run.findings_new + counts[1],
                                               findings_superseded=run.findings_superseded + counts[2])
    run.findings, run.findings_new, run.findings_superseded = (
        run.findings + counts[0], run.findings_new + counts[1], run.findings_superseded + counts[2])
    return counts


@dataclass(frozen=True, slots=True)
class Reconciled:
    """One table-day reconciled: its rows (the day first, then the shifts) and findings."""

    table: str
    gaming_day: date
    rows: list[m.Reconciliation]
    findings: list[LedgerFinding]


def reconcile_table_day(*, table: str, gaming_day: date, provider: game.GameProvider | None = None,
                        now: datetime | None = None) -> Reconciled | None:
    """Reconcile one table-day again from its stored figures with what the game provider
    gives now; store the results and the findings. None where the ledger has no
    figures for it."""
    rows = list(m.Reconciliation.objects.filter(table__stream=table, gaming_day=gaming_day)
                .select_related("table").order_by("shift"))
    if not rows or all(r.shift for r in rows):
        return None
    day = next(r for r in rows if not r.shift)
    version = day.table.folded_version
    data = game_data(table=table, gaming_day=gaming_day, ruleset=day.ruleset, rules=day.rules, version=version,
                     provider=provider)
    with transaction.atomic():
        signoff = m.SignOff.objects.filter(table=table, gaming_day=gaming_day).first()
        findings = reconcile_rows(rows, data, version=version, signoff=signoff, now=now)
        for row in rows:
            row.save()
        record_findings(run=check_run(table=table, gaming_day=gaming_day, now=now), table=table,
                        gaming_day=gaming_day, findings=findings, kinds=KINDS)
    return Reconciled(table, gaming_day, [day, *(r for r in rows if r.shift)], findings)
