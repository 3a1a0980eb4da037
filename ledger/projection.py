"""The ledger's read models of a table, kept up to date from the event store: the fold
(:mod:`ledger.books`) of the gaming days new events touch, written as rows - each
table-day's and shift's figures and trial balance, slips with their steps, inventory
slips, drop boxes, markers - with the custody findings, then reconciled
(:mod:`ledger.reconciliation`).

**What is folded.** New events touch gaming days: the day of the ``table.opened`` they
follow, or the day a count or a drop names (a drop is counted after its day ended).
The fold starts at the ``table.opened`` of the day before the earliest touched day (the
closer before an opener, the tray's balances come from there) and runs to the stream's
head; the days from the earliest touched one on are written again (deleted and
inserted), the day before only read. A day is *final* - its end-of-day checks made -
once the table opened a later day. Only the event types the fold reads are read.

**Kept folds.** The fold of a live table's day goes on from where the last one stopped
when this process still holds it (:class:`audit.feed.readmodels.FoldCache`, owned by the
feed's subscriber) and the stream's event at that version still has the hash it folded;
a new day, a correction that strikes an event, or anything else refolds from the day
before.

**Idempotent, and one writer.** The rows are written in one transaction that first
locks the table's row: a fold that finds the ledger already further (another run got
there first) writes nothing. A batch seen twice finds nothing new.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from django.db import transaction
from django.db.models import Q

from audit.access.authority import refused_events
from audit.feed import readmodels
from audit.feed.readmodels import FoldCache
from audit.models import Event
from audit.record.authority import applicable
from audit.record.corrections import struck_events
from audit.store.event_ids import with_ids
from audit.store.reading import stream_events
from audit.store.streams import stream_head
from ledger.books.figures import chip_value
from ledger.books.fold import HANDLERS, Books, Fold
from ledger.books.ledger_findings import KINDS as LEDGER_KINDS

from . import config, fx
from . import models as m
from . import reconciliation as r

TYPES = tuple(HANDLERS)
# the kinds the fold reports (the reconciliation's are its own)
CUSTODY_KINDS = frozenset(LEDGER_KINDS - r.KINDS)


def _events(stream: str, low: int, high: int) -> Iterator[dict[str, Any]]:
    for event in stream_events(stream, low, high, types=TYPES):
        event["stream"] = stream  # the books name their table by it
        yield event


def openings(stream: str) -> list[tuple[int, str]]:
    """(version, gaming day) of every ``table.opened`` of the stream a reader takes
    (:func:`audit.feed.readmodels.openings`), in order; a struck one of no date has the day
    "": the events from it to the next opening are in no gaming day, and the day before
    it ends there."""
    return [
        (o.version, o.payload["gaming_day"] if o.day is not None else "")
        for o in readmodels.openings(stream)
        if o.readable
    ]


def touched_days(
    stream: str,
    events: list[dict[str, Any]],
    opened: list[tuple[int, str]],
    refused: Mapping[str, str] | None = None,
) -> set[str]:
    """The gaming days new events change: a count's or a drop's own, else the day of the
    ``table.opened`` the event follows; a ``table.opened`` also the day before it (which
    it makes final: its end-of-day checks are due); a correction also the day of the
    bets it settles again or of the event it strikes (a late correction of an earlier
    day's round changes that day). An event struck by a correction among them names no
    day; a correction no one with the authority recorded (``refused``) changes none."""
    refused = refused or {}
    days = set()
    bets: set[str] = set()
    struck: set[str] = set()
    skipped = struck_events(applicable(events, refused))  # a struck event names no day
    for event in events:
        if event["id"] in skipped:
            continue
        payload = event["payload"]
        named = payload.get("gaming_day") if event["type"] != "table.closed" else None
        day = named or readmodels.day_at(opened, event["version"])
        if day:
            days.add(day)
        if event["type"] == "table.opened":
            before = readmodels.day_at(opened, event["version"] - 1)
            if before:
                days.add(before)
        elif event["type"] == "correction.recorded" and event["id"] not in refused:
            bets.update(s["bet"] for s in payload.get("settlements") or ())
            if payload.get("corrects"):
                struck.add(str(payload["corrects"]))
    if bets or struck:
        earlier = (
            Event.objects.filter(stream=stream)
            .filter(Q(type="bet.placed", payload__bet__in=sorted(bets)) | with_ids(struck))
            .values_list("version", flat=True)
        )
        # the day before a struck event too: a struck opening whose day is no date ends it
        days.update(
            d
            for v in earlier
            for d in (readmodels.day_at(opened, v), readmodels.day_at(opened, v - 1))
            if d
        )
    return days


@dataclass(slots=True)
class KeptBooks:
    """A fold of a table from version ``start`` on, to go on with: kept in the ledger's
    :class:`audit.feed.readmodels.FoldCache` (:data:`ledger.feed.CACHE`)."""

    start: int
    state: Fold
    versions: dict[str, int]
    openings: list[tuple[int, str]]  # every table.opened of the stream up to the fold's version


@dataclass(frozen=True, slots=True)
class Projected:
    table: str
    version: int  # the stream version the ledger has folded to
    events: int  # events folded
    days: tuple[str, ...]  # the gaming days written
    written: bool  # False: nothing new, or another run was further


def _strikes(events: list[dict[str, Any]], refused: Mapping[str, str]) -> bool:
    return any(
        e["type"] == "correction.recorded"
        and e["payload"].get("corrects") is not None
        and not e["payload"].get("settlements")
        and e["id"] not in refused
        for e in events
    )


def project_table(
    *,
    stream: str,
    full: bool = False,
    cache: FoldCache[KeptBooks] | None = None,
    now: datetime | None = None,
    redo: Collection[str] = (),
) -> Projected:
    """Bring the ledger's read models of ``stream`` up to its head (``full``: every day
    from the first event; ``redo``: these gaming days written again even with nothing new -
    a day reopened after sign-off). Folds outside any transaction; writes in one."""
    now = now or datetime.now(UTC)
    table = m.LedgerTable.objects.filter(stream=stream).first()
    done = 0 if full or table is None else table.folded_version
    head, head_hash = stream_head(stream)
    again = bool(redo)  # write even where the ledger stands at the head already
    if redo and not full and table is not None:
        first = min(redo)
        opened = openings(stream)
        start = next((v for v, day in opened if day == first), None)
        if start is not None:  # fold again from that day's table.opened, as if it were new
            done = min(done, start - 1)
            full = full or done == 0
    if head <= done:
        return Projected(stream, done, 0, (), False)
    new = list(_events(stream, done + 1, head))
    rates = fx.rates()
    # of use only as a fold of what the ledger has folded; a rate set since (here or in
    # another process) books the days anew
    kept = (
        cache.take(stream, version=done, fits=lambda books: not full and books.state.rates == rates)
        if cache is not None
        else None
    )
    if kept is not None and not any(e["type"] == "table.opened" for e in new):
        opened = (
            kept.openings
        )  # no new day: the openings the kept fold knew (a query that scans the stream)
    else:
        opened = openings(stream)
    refused = refused_events(stream, done + 1, head)
    days = touched_days(stream, new, opened, refused)
    if full:
        days |= {day for _, day in opened if day}
    if not days:
        if kept is not None and cache is not None:  # nothing the fold reads: it stands at the head
            cache.put(
                stream,
                KeptBooks(kept.start, kept.state, kept.versions, opened),
                version=head,
                head_hash=head_hash,
            )
        return _advance(stream, done, head)
    earliest = min(days)
    first = next((i for i, (_, day) in enumerate(opened) if day == earliest), None)
    start = 1 if full or not first else opened[first - 1][0]
    plan = config.shift_plan()
    reusable = (
        kept is not None
        and kept.start <= start
        and kept.state.plan == plan
        and not _strikes(new, refused)
        and not any(e["type"] == "table.opened" for e in new)
    )
    if reusable:
        assert kept is not None
        state, versions, start, folded = kept.state, kept.versions, kept.start, new
        state.refused.update(refused)
    else:
        folded = new if start == done + 1 else list(_events(stream, start, head))
        if start <= done:
            refused = {**refused_events(stream, start, done), **refused}
        state = Fold(
            plan=plan,
            struck=struck_events(applicable(folded, refused)),
            entries=False,
            refused=refused,
            rates=rates,
        )
        versions = {}
    for event in folded:
        state.apply(event)
        versions[event["id"]] = event["version"]
    window = [(v, day) for v, day in opened if v >= start]
    final = {day for v, day in window if day} - ({window[-1][1]} if window else set())
    # the final days whose game has a chip tray and a drop box: their counts and drop must be on record
    boxed = {day for day in final if config.has_drop_box(state.games.get(day, ("", {}))[0])}
    books = state.books(final=final, entries=False, drop_box=boxed)
    write = sorted(d for d in _days_of(books) if d >= earliest)
    data = {
        day: r.game_data(
            table=stream,
            gaming_day=date.fromisoformat(day),
            version=head,
            ruleset=books.games.get(day, ("", {}))[0],
            rules=dict(books.games.get(day, ("", {}))[1]),
        )
        for day in write
        if any(key[0] == day for key in books.shifts)
    }
    written = readmodels.write_owned(
        lambda: _claim(stream, head=head, full=full or again),
        lambda table: _write(
            table,
            stream=stream,
            books=books,
            days=write,
            final=final,
            data=data,
            head=head,
            versions=versions,
            events=len(folded),
            first_versions={d: v for v, d in opened},
            now=now,
        ),
    )
    if cache is not None:
        cache.put(
            stream, KeptBooks(start, state, versions, opened), version=head, head_hash=head_hash
        )
    return Projected(stream, head, len(folded), tuple(write), written)


def _days_of(books: Books) -> set[str]:
    days = {day for day, _ in books.shifts} | {s.gaming_day for s in books.slips.values()}
    days |= {day for day, _ in books.drops} | {c.gaming_day for c in books.counts}
    days |= {r.gaming_day for r in books.redemptions if r.gaming_day}
    return days | {mk.gaming_day for mk in books.markers.values() if mk.gaming_day}


def _advance(stream: str, done: int, head: int) -> Projected:
    """New events the ledger does not read: only the version moves."""
    with transaction.atomic():
        table, _ = m.LedgerTable.objects.get_or_create(
            stream=stream, defaults={"pit": config.configured_pit(stream)}
        )
        moved = m.LedgerTable.objects.filter(pk=table.pk, folded_version__lt=head).update(
            folded_version=head
        )
    return Projected(stream, head, 0, (), bool(moved))


def _uuid(text: str | None) -> uuid.UUID | None:
    return uuid.UUID(text) if text else None


def _claim(stream: str, *, head: int, full: bool) -> m.LedgerTable | None:
    """The table's row, locked for the write of a fold to ``head``; None when another run
    got as far first (it wrote these very rows) - unless ``full``, at the head only."""
    table, _ = m.LedgerTable.objects.get_or_create(
        stream=stream, defaults={"pit": config.configured_pit(stream)}
    )
    table = m.LedgerTable.objects.select_for_update().get(pk=table.pk)
    if table.folded_version > head or (table.folded_version == head and not full):
        return None
    return table


def _write(
    table: m.LedgerTable,
    *,
    stream: str,
    books: Books,
    days: list[str],
    final: set[str],
    data: dict[str, r.GameData],
    head: int,
    versions: dict[str, int],
    events: int,
    first_versions: dict[str, int],
    now: datetime,
) -> None:
    when = [date.fromisoformat(d) for d in days]
    signoffs = {
        s.gaming_day.isoformat(): s
        for s in m.SignOff.objects.filter(
            table=stream, gaming_day__in=when, status=m.SignOff.Status.SIGNED
        )
    }
    # a signed day is closed: its rows stay as they were signed
    kept = {
        row.gaming_day.isoformat(): row
        for row in m.Reconciliation.objects.select_related("table").filter(
            table=table, gaming_day__in=[date.fromisoformat(d) for d in signoffs], shift=""
        )
    }
    for model in (
        m.Reconciliation,
        m.Slip,
        m.InventorySlip,
        m.DropBox,
        m.Marker,
        m.MarkerRedemption,
    ):
        rows_of = model.objects.filter(table=table, gaming_day__in=when)
        if model is m.Reconciliation:
            rows_of = rows_of.exclude(gaming_day__in=[date.fromisoformat(d) for d in kept])
        rows_of.delete()
    wanted = set(days)
    rows = _periods(table, books, wanted, final, first_versions)
    # reconciled before they are inserted: one INSERT per row, no UPDATE after
    found: dict[str, list[Any]] = {}
    for day, group in rows.items():
        drop_box = config.has_drop_box(books.games.get(day, ("", {}))[0])
        found[day] = r.reconcile_rows(
            group,
            data[day],
            version=head,
            now=now,
            drop_box=drop_box,
            missing=books.missing(day, drop_box=drop_box),
            differences=books.differences(day),
        )
        signoff = signoffs.get(day)
        if signoff is None:
            continue
        late = r.late_of(group[0], signoff)
        state = m.Reconciliation.State.ADJUSTED if late else m.Reconciliation.State.SIGNED
        if day in kept:
            stored = m.Reconciliation.objects.filter(
                table=table, gaming_day=date.fromisoformat(day)
            )
            stored.filter(shift="").update(late=late)
            stored.update(state=state)
            rows[day] = []
        else:
            r.take_signed(group, signoff)
            for row in group:
                row.late, row.state = (late if not row.shift else {}), state
    m.Reconciliation.objects.bulk_create([row for group in rows.values() for row in group])
    _custody_rows(table, books, wanted, versions)
    r.route_adjustments(table)
    run = r.check_run(table=stream, gaming_day=min(when) if when else None, events=events, now=now)
    for day in days:
        gaming_day = date.fromisoformat(day)
        r.record_findings(
            run=run,
            table=stream,
            gaming_day=gaming_day,
            versions=versions,
            kinds=CUSTODY_KINDS,
            findings=[f for f in books.findings if f.gaming_day == day],
        )
        signoff = signoffs.get(day)
        if signoff is not None and day in found:
            stored = m.Reconciliation.objects.select_related("table").get(
                table=table, gaming_day=gaming_day, shift=""
            )
            changed = r.signed_changed(stored, signoff)
            found[day] += [changed] if changed is not None else []
        r.record_findings(
            run=run, table=stream, gaming_day=gaming_day, findings=found.get(day, []), kinds=r.KINDS
        )
    latest = max(books.games) if books.games else None
    table.folded_version = head
    table.currency = books.currency if books.currency != "XXX" else table.currency
    if latest is not None:
        table.ruleset = books.games[latest][0]
    if table.pit_source == m.LedgerTable.PitSource.SETTINGS:
        table.pit = config.configured_pit(stream)
    table.save()


_FIGURES = (
    "opener",
    "opener_chips",
    "closer",
    "closer_chips",
    "fills",
    "credits",
    "buyins_cash",
    "markers_issued",
    "drop_cash",
    "drop_markers",
    "drop_chips",
    "handle",
    "stake_squares",
    "hand_squares",
    "round_squares",
    "settled_win",
    "corrections",
    "rounds",
    "bets",
    "between_shifts",
    "insurance_squares",
)
# the fold's figures whose columns have other names
_RENAMED = {"initial": "initial_stakes", "insurance": "insurance_stakes"}


def _period(
    table: m.LedgerTable,
    books: Books,
    day: str,
    figures: Any,
    shift: str,
    final: set[str],
    first_versions: dict[str, int],
) -> m.Reconciliation:
    ruleset, rules = books.games.get(day, ("", {}))
    values = {name: getattr(figures, name) for name in _FIGURES}
    values.update({column: getattr(figures, name) for name, column in _RENAMED.items()})
    for name in ("opener_chips", "closer_chips"):
        if values[name] is not None:
            values[name] = {str(d): n for d, n in sorted(values[name].items())}
    rounds = sorted(
        n for (d, n), s in books.round_shifts.items() if d == day and (not shift or s == shift)
    )
    conversions = [
        {
            "event": c.event,
            "what": c.what,
            "shift": c.shift,
            "currency": c.currency,
            "amount": c.amount,
            "rate": str(c.rate),
            "booked": c.booked,
        }
        for c in books.conversions
        if c.gaming_day == day and (not shift or c.shift == shift)
    ]
    return m.Reconciliation(
        conversions=conversions,
        table=table,
        gaming_day=date.fromisoformat(day),
        shift=shift,
        currency=books.currency,
        ruleset=ruleset,
        rules=dict(rules),
        final=day in final,
        first_version=first_versions.get(day, 0),
        duplicates=[list(d) for d in figures.duplicates],
        round_numbers=rounds,
        trial_balance=dict(sorted(books.balances_of(day, shift or None).items())),
        recorded_win=figures.recorded_win,
        **values,
    )


def _periods(
    table: m.LedgerTable,
    books: Books,
    wanted: set[str],
    final: set[str],
    first_versions: dict[str, int],
) -> dict[str, list[m.Reconciliation]]:
    """Per day written: the day's row, then its shifts' (in the order they came)."""
    out: dict[str, list[m.Reconciliation]] = {}
    for day in books.days():
        if day not in wanted:
            continue
        shifts = books.shifts_of(day)
        out[day] = [_period(table, books, day, books.day(day), "", final, first_versions)] + [
            _period(table, books, day, f, f.shift or "", final, first_versions) for f in shifts
        ]
    return out


def _chips(chips: dict[int, int]) -> dict[str, int]:
    return {str(d): n for d, n in sorted(chips.items())}


def _custody_rows(
    table: m.LedgerTable, books: Books, wanted: set[str], versions: dict[str, int]
) -> None:
    m.Slip.objects.bulk_create(
        [
            m.Slip(
                table=table,
                number=s.number,
                kind=s.kind,
                gaming_day=date.fromisoformat(s.gaming_day),
                shift=s.shift,
                state=s.state,
                value=chip_value(next(iter(s.steps.values()))[1]) if s.steps else 0,
                steps={
                    step: {
                        "event": event,
                        "version": versions.get(event or ""),
                        "chips": _chips(chips),
                        "value": chip_value(chips),
                    }
                    for step, (event, chips) in s.steps.items()
                },
                people={k: v for k, v in s.people.items() if v},
                void_reason=s.void_reason or "",
                legacy=s.legacy,
            )
            for s in books.slips.values()
            if s.gaming_day in wanted
        ]
    )
    m.InventorySlip.objects.bulk_create(
        [
            m.InventorySlip(
                table=table,
                gaming_day=date.fromisoformat(c.gaming_day),
                shift=c.shift,
                kind=c.kind,
                slip=c.slip or "",
                chips=_chips(c.chips),
                value=c.value,
                counted_by=c.counted_by or "",
                witnessed_by=c.witnessed_by or "",
                event_id=_uuid(c.event),
                version=versions.get(c.event or ""),
            )
            for c in books.counts
            if c.gaming_day in wanted
        ]
    )
    drops = []
    for (day, shift), d in books.drops.items():
        if day not in wanted:
            continue
        state = (
            "posted"
            if d.posted is not None or (d.legacy and d.counted)
            else "counted"
            if d.counted
            else "removed"
        )
        counted, posted = d.counted or (None, None, None), d.posted or (None, None, None)
        drops.append(
            m.DropBox(
                table=table,
                gaming_day=date.fromisoformat(day),
                shift=shift or "",
                state=state,
                counted_cash=counted[0],
                counted_markers=counted[1],
                counted_chips=counted[2],
                posted_cash=posted[0],
                posted_markers=posted[1],
                posted_chips=posted[2],
                removed_event=_uuid(d.removed),
                count_event=_uuid(d.count_event),
                post_event=_uuid(d.post_event),
            )
        )
    m.DropBox.objects.bulk_create(drops)
    m.Marker.objects.bulk_create(
        [
            m.Marker(
                table=table,
                number=mk.number,
                gaming_day=date.fromisoformat(mk.gaming_day),
                player=mk.player or "",
                amount=mk.amount,
                currency=mk.currency,
                redeemed=mk.redeemed,
                event_id=_uuid(mk.event),
            )
            for mk in books.markers.values()
            if mk.gaming_day in wanted
        ]
    )
    m.MarkerRedemption.objects.bulk_create(
        [
            m.MarkerRedemption(
                table=table,
                marker=r.marker,
                gaming_day=date.fromisoformat(r.gaming_day),
                amount=r.amount,
                currency=r.currency,
                method=r.method,
                event_id=_uuid(r.event),
            )
            for r in books.redemptions
            if r.gaming_day in wanted
        ]
    )


def table_set_pit(*, table: str, pit: str) -> m.LedgerTable:
    """Put ``table`` in ``pit`` by hand (the admin): it stays there whatever
    ``LEDGER_PITS`` says; a blank pit goes back to the setting's."""
    pit = pit.strip()
    with transaction.atomic():
        row, _ = m.LedgerTable.objects.select_for_update().get_or_create(stream=table)
        if pit:
            row.pit, row.pit_source = pit, m.LedgerTable.PitSource.ADMIN
        else:
            row.pit, row.pit_source = config.configured_pit(table), m.LedgerTable.PitSource.SETTINGS
        row.save(update_fields=["pit", "pit_source"])
    return row
