"""Projections: the read models of ``tables.models``, written from the folds of
:mod:`tables.fold` (the rules engine's own fold of each gaming day), never from a second
reading of the events.

**The fold outside any lock.** :func:`project_stream` folds what is new in a stream with
no transaction open and no lock held (a live table's day is close to a million events),
then writes the rows it owns in one short transaction guarded by a compare-and-set of
the table's ``projected_version``: the write goes ahead only while that is still the
version the fold started from (PostgreSQL: the UPDATE of the table's row also makes a
second writer wait for the first's commit and then see its version; SQLite: one writer
at a time). A fold that finds the version moved on is stale, and:

- if the projection that won already reaches the stream's head the stale fold saw, the
  later writer wins: the stale fold's rows are the same folds of the same events, so
  it writes nothing;
- otherwise it folds again from the winner's state, so the events only it saw are not
  left for a later run (a subscriber's next batch would bring them, but then the read
  models would lag an append that has been published).

So two projections of the same table racing end in the rows one gives. See
docs/back-office.md.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from datetime import date, datetime
from typing import Any

import msgspec
from django.db import IntegrityError, connection, transaction
from django.db.models import DateTimeField, Sum
from django.utils.translation import gettext

from audit.feed.readmodels import FoldCache, Segment, segments, write_owned
from audit.models import Event
from audit.record.collector import acyclic_work, bulk_work
from audit.store.event_ids import with_ids
from tables.engine.table_round import Hand as EngineHand

from . import models as m
from .fold import KeptDay, RoundTrack, TableDayFold, fold_day

# attempts of a projection whose folds keep going stale (each a fold of what the
# winner left, so a few at most unless appends never pause)
_ATTEMPTS = 20


# --- writing --------------------------------------------------------------------------------


def _hand_row(
    hand: EngineHand, box: int, cards: list[dict[str, Any]], actions: list[str]
) -> tuple[Any, ...]:
    """A hand as a plain row in _HAND_COLUMNS order, less its round's id (put in front
    once the round has one)."""
    return (
        box,
        hand.number,
        _json(cards),
        _json(actions),
        hand.best,
        hand.soft,
        hand.bust,
        hand.doubled,
        hand.surrendered,
        hand.from_split,
    )


def _hands(track: RoundTrack) -> tuple[int | None, list[tuple[Any, ...]]]:
    """The dealer's total (None before a card) and the round's hands as plain rows
    (the dealer's first, box 0)."""
    engine = track.engine
    dealer = EngineHand(0, 0)
    for card in engine.dealer:
        dealer.add(card)
    dealer_cards = list(track.cards.get(0, []))
    rows = [_hand_row(dealer, 0, dealer_cards, [])]
    actions = engine.hand_actions()
    pools = {box: list(cards) for box, cards in track.cards.items() if box}
    for (box, number), hand in sorted(engine.hands.items()):
        pool = pools.get(box, [])
        cards = []
        for card in hand.cards:
            if pool and pool[0]["card"] == card:  # nearly every card: the box's next dealt
                cards.append(pool.pop(0))
                continue
            # a split moves a dealt card to a new hand: find it by its value, in deal order
            at = next((i for i, dealt in enumerate(pool) if dealt["card"] == card), None)
            cards.append(
                pool.pop(at)
                if at is not None
                else {"card": card, "face": "up", "version": None, "revealed_version": None}
            )
        rows.append(_hand_row(hand, box, cards, actions.get((box, number), [])))
    return (dealer.best if dealer_cards else None), rows


_encode_json = msgspec.json.Encoder().encode


def _json(value: Any) -> str:
    # the text a JSON column takes from COPY (PostgreSQL parses it) or an INSERT (SQLite
    # keeps it): compact JSON, the same values json.dumps gave (non-ASCII as UTF-8, not
    # escaped), in a tenth of its time
    return _encode_json(value).decode()


def _write_shoes(table: m.Table, segment: Segment, shoes: list[Any]) -> dict[int, int]:
    """Upsert the fold's shoes (rounds left as they are keep pointing at their shoe):
    one statement, not one per shoe. Returns each shoe's row id by its ShoeTrack's id()."""
    rows = [
        m.Shoe(
            table=table,
            shuffled_version=s.version,
            gaming_day=segment.gaming_day,
            shoe=s.shoe,
            decks=s.decks,
            method=s.method,
            order_known=s.order_known,
            seed=s.seed,
            cut_card=s.cut_card,
            rounds=s.rounds,
        )
        for s in shoes
    ]
    if not rows:
        return {}
    m.Shoe.objects.bulk_create(
        rows,
        update_conflicts=True,
        unique_fields=["table", "shuffled_version"],
        update_fields=[
            "gaming_day",
            "shoe",
            "decks",
            "method",
            "order_known",
            "seed",
            "cut_card",
            "rounds",
        ],
    )
    if any(row.pk is None for row in rows):  # a database that returns no ids from an upsert
        ids = dict(
            m.Shoe.objects.filter(
                table=table, shuffled_version__in=[s.version for s in shoes]
            ).values_list("shuffled_version", "pk")
        )
        return {id(s): ids[s.version] for s in shoes}
    return {id(s): row.pk for s, row in zip(shoes, rows, strict=True)}


def write_fold(fold: TableDayFold) -> m.Table:
    """Replace what ``fold`` owns in the read models. Call inside the transaction of
    :func:`project_stream`'s write, after its compare-and-set.

    Rounds, hands and bets go as plain rows by COPY on PostgreSQL (by executemany on
    SQLite): a day of 1,500 rounds has some 7,000 hands, and the ORM's bulk_create and
    bulk_update spent more time preparing values than the engine spent folding the day."""
    segment = fold.segment
    table, _ = m.Table.objects.get_or_create(stream=segment.stream)
    if segment.opened is not None and segment.first >= _latest_opening(table):
        opened = segment.opened
        table.ruleset, table.currency = opened["ruleset"], opened["currency"]
        table.min_bet, table.max_bet = opened["min_bet"], opened["max_bet"]
    shoe_ids = _write_shoes(table, segment, fold.shoes)
    old_shoes = dict(
        m.Shoe.objects.filter(
            table=table, shuffled_version__gte=segment.first, shuffled_version__lt=fold.owned_from
        ).values_list("shuffled_version", "pk")
    )
    owned = {n: t for n, t in fold.rounds.items() if t.first_version >= fold.owned_from}
    touched = {
        n
        for n, t in owned.items()
        if t.first_version >= fold.changed_from or any(v >= fold.changed_from for v in t.versions)
    }
    stale = m.Round.objects.filter(
        table=table, gaming_day=segment.gaming_day, first_version__gte=fold.owned_from
    )
    _delete_rounds(stale.exclude(number__in=[n for n in owned if n not in touched]))
    round_rows, children = [], []
    for result in fold.result.rounds:
        track = fold.rounds.get(result.number)
        if track is None or result.number not in touched or track.engine is None:
            continue
        shoe = None
        if track.shoe is not None:
            shoe = shoe_ids.get(id(track.shoe)) or old_shoes.get(track.shoe.version)
        recorded = result.recorded
        status = (
            m.Round.Status.VOIDED
            if result.voided
            else (m.Round.Status.SETTLED if result.settled else m.Round.Status.OPEN)
        )
        dealer_total, hands = _hands(track)
        # a plain row in _ROUND_COLUMNS order
        round_rows.append(
            (
                table.pk,
                segment.gaming_day,
                result.number,
                shoe,
                str(status),
                track.started_at,
                track.first_version,
                max(track.versions) if track.versions else track.first_version,
                _json(track.versions),
                dealer_total,
                sum(b[3] for b in result.bets.values()),
                None if recorded is None else sum(net for _, net in recorded.values()),
                sum(s.net for s in result.expected.values()),
                track.corrected,
            )
        )
        children.append((hands, track, result))
    round_ids = insert_returning_ids(m.Round, _ROUND_COLUMNS, round_rows)
    hands, bets = [], []
    for round_id, (round_hands, track, result) in zip(round_ids, children, strict=True):
        hands.extend((round_id, *hand) for hand in round_hands)
        recorded = result.recorded or {}
        engine_bets = track.engine.bets
        for bet_id, (box, hand, kind, amount) in result.bets.items():
            expected = result.expected.get(bet_id)
            got = recorded.get(bet_id)
            matches = (
                (expected is None and got is None)
                or (expected is not None and got == (expected.outcome, expected.net))
                or (result.voided and got is None)
            )
            placed = engine_bets.get(bet_id)
            # a plain row in _BET_COLUMNS order (no model instances: a live day has 600,000)
            bets.append(
                (
                    round_id,
                    bet_id,
                    box,
                    hand,
                    kind,
                    amount,
                    (placed.player or "") if placed is not None else "",
                    (placed.parent or "") if placed is not None else "",
                    got[0] if got else "",
                    got[1] if got else None,
                    expected.outcome if expected else "",
                    expected.net if expected else None,
                    matches,
                )
            )
    insert_plain(m.Hand, _HAND_COLUMNS, hands)
    insert_plain(m.Bet, _BET_COLUMNS, bets)
    _write_day(table, segment)
    if segment.first <= table.projected_version + 1:
        table.projected_version = max(table.projected_version, segment.last)
    table.save()
    return table


def _delete_rounds(rounds: Any) -> None:
    """Delete ``rounds`` (a queryset) with their hands and bets, each table by one
    statement whose rounds are a subquery: the ORM's cascade reads every id back and
    sends them again in lists (a full replay of a day deletes thousands). Nothing else
    points at a round, a hand or a bet (a test checks)."""
    ids = rounds.values("pk")
    m.Bet.objects.filter(round__in=ids)._raw_delete(m.Bet.objects.db)
    m.Hand.objects.filter(round__in=ids)._raw_delete(m.Hand.objects.db)
    rounds._raw_delete(m.Round.objects.db)


_ROUND_COLUMNS = (
    "table_id",
    "gaming_day",
    "number",
    "shoe_id",
    "status",
    "started_at",
    "first_version",
    "last_version",
    "versions",
    "dealer_total",
    "handle",
    "recorded_net",
    "expected_net",
    "corrected",
)
_HAND_COLUMNS = (
    "round_id",
    "box",
    "number",
    "cards",
    "actions",
    "total",
    "soft",
    "bust",
    "doubled",
    "surrendered",
    "from_split",
)
_BET_COLUMNS = (
    "round_id",
    "bet",
    "box",
    "hand",
    "kind",
    "amount",
    "player",
    "parent",
    "recorded_outcome",
    "recorded_net",
    "expected_outcome",
    "expected_net",
    "matches",
)


def insert_plain(model: Any, columns: tuple[str, ...], values: list[tuple[Any, ...]]) -> None:
    """Rows of plain values (ints, text, JSON as text, dates, None, booleans) written by
    PostgreSQL's COPY or SQLite's executemany: a live game's day has hundreds of
    thousands of bets, and the ORM's bulk_create spends most of its time preparing each
    value (as audit.store.inserts)."""
    if not values:
        return
    table = model._meta.db_table
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            with cursor.cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
                for row in values:
                    copy.write_row(row)
        else:
            marks = ", ".join(["%s"] * len(columns))
            # the adapter looked up once: ``connection`` is a per-thread proxy, dear per row
            adapt = connection.ops.adapt_datetimefield_value
            sql = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})"
            if _has_moments(model, columns):
                cursor.executemany(sql, [_sqlite_row(row, adapt) for row in values])
            else:  # a bet's row: no moment to adapt, the rows as they are
                cursor.executemany(sql, values)


def _has_moments(model: Any, columns: tuple[str, ...]) -> bool:
    """Whether any of ``columns`` is one of ``model``'s DateTimeFields."""
    return any(isinstance(model._meta.get_field(column), DateTimeField) for column in columns)


def _sqlite_row(row: tuple[Any, ...], adapt: Callable[[datetime], Any]) -> tuple[Any, ...]:
    # a moment as the ORM writes it to SQLite (naive UTC text), so that queries compare alike
    return tuple(adapt(v) if isinstance(v, datetime) else v for v in row)


def insert_returning_ids(
    model: Any, columns: tuple[str, ...], values: list[tuple[Any, ...]]
) -> list[int]:
    """:func:`insert_plain`, returning the new rows' ids in order (their children point
    at them). PostgreSQL: the ids drawn from the table's sequence first, then one COPY
    that names them; SQLite: one INSERT per row (in-process, cheap)."""
    if not values:
        return []
    table = model._meta.db_table
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)",
                [table, len(values)],
            )
            ids = [row[0] for row in cursor.fetchall()]
            insert_plain(
                model, ("id", *columns), [(pk, *row) for pk, row in zip(ids, values, strict=True)]
            )
            return ids
        marks = ", ".join(["%s"] * len(columns))
        sql = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})"
        ids = []
        adapt = connection.ops.adapt_datetimefield_value
        for row in values:
            cursor.execute(sql, _sqlite_row(row, adapt))
            ids.append(cursor.lastrowid)
        return ids


def _latest_opening(table: m.Table) -> int:
    first = (
        m.TableDay.objects.filter(table=table)
        .order_by("-first_version")
        .values_list("first_version", flat=True)
        .first()
    )
    return first or 0


def _write_day(table: m.Table, segment: Segment) -> None:
    rounds = m.Round.objects.filter(table=table, gaming_day=segment.gaming_day)
    totals = rounds.aggregate(
        handle=Sum("handle"), recorded=Sum("recorded_net"), expected=Sum("expected_net")
    )
    m.TableDay.objects.update_or_create(
        table=table,
        gaming_day=segment.gaming_day,
        defaults={
            "first_version": segment.first,
            "last_version": segment.last,
            "rounds": rounds.count(),
            "bets": m.Bet.objects.filter(round__in=rounds).count(),
            "handle": totals["handle"] or 0,
            "recorded_net": totals["recorded"] or 0,
            "expected_net": totals["expected"] or 0,
        },
    )


# --- the service ----------------------------------------------------------------------------


def _refold_from(table: m.Table | None, segment: Segment, done: int) -> int:
    """The first version an incremental fold of ``segment`` must own: the first new
    one, or earlier where a new correction or a late void names an earlier round (or
    a correction an earlier event)."""
    start = max(done + 1, segment.first)
    if table is None:
        return segment.first
    late = Event.objects.filter(
        stream=segment.stream,
        type__in=("correction.recorded", "round.voided"),
        version__gte=start,
        version__lte=segment.last,
    ).values_list("payload", flat=True)
    for payload in late:
        payload = {"corrects": None, **payload}
        if payload["round"] is not None:
            first = (
                m.Round.objects.filter(
                    table=table, gaming_day=segment.gaming_day, number=payload["round"]
                )
                .values_list("first_version", flat=True)
                .first()
            )
            if first is not None:
                start = min(start, first)
        if payload["corrects"]:
            struck = (
                Event.objects.filter(with_ids([payload["corrects"]]), stream=segment.stream)
                .values_list("version", flat=True)
                .first()
            )
            if struck is not None and struck >= segment.first:
                start = min(start, struck)
    return start


def write_held(segment: Segment) -> None:
    """A stretch held in no gaming day (:attr:`Segment.held`): no table-day, no rounds (the
    ledger names it, ``no_gaming_day``); the projection has passed it, so the days after
    it follow on. In :func:`project_stream`'s write, in order with the folds."""
    table, _ = m.Table.objects.get_or_create(stream=segment.stream)
    if segment.first <= table.projected_version + 1 and segment.last > table.projected_version:
        table.projected_version = segment.last
        table.save(update_fields=["projected_version"])


def _known_starts(table: m.Table | None) -> tuple[list[int], int]:
    """The first versions of a projected table's days and the version up to which
    they are known (:func:`audit.feed.readmodels.segments`)."""
    if table is None or not table.projected_version:
        return [], 0
    firsts = list(
        m.TableDay.objects.filter(table=table)
        .order_by("first_version")
        .values_list("first_version", flat=True)
    )
    return firsts, table.projected_version


def fold_stream(
    stream: str,
    table: m.Table | None,
    *,
    full: bool = False,
    day: date | None = None,
    cache: FoldCache[KeptDay] | None = None,
) -> list[TableDayFold | Segment]:
    """Fold what is new in ``stream`` since ``table`` (its projection as read; every day
    from its first event with ``full``; one gaming day with ``day``), in order; a stretch
    held in no gaming day is its :class:`Segment` (nothing to fold). Reads only."""
    done = 0 if full or table is None else table.projected_version
    folds: list[TableDayFold | Segment] = []
    known, after = ([], 0) if full else _known_starts(table)
    for segment in segments(stream, known=known, after=after):
        if segment.held:
            if day is None and (full or segment.last > done):
                folds.append(segment)
            continue
        if day is not None and segment.gaming_day != day:
            continue
        if not full and segment.last <= done:
            continue
        owned_from = None if full or segment.first > done else _refold_from(table, segment, done)
        folds.append(
            fold_day(
                segment,
                owned_from=owned_from,
                changed_from=None if owned_from is None else done + 1,
                cache=cache,
            )
        )
    return folds


class StaleProjection(Exception):
    """A projection whose folds went stale attempt after attempt."""


def _claim(stream: str, table: m.Table | None, *, fresh: bool) -> m.Table | None:
    """In the write's transaction: the projection's row, while it is still the one the
    fold started from (``table``, None: none yet); None when another projection moved it.
    ``fresh``: drop its rows."""
    if table is None:
        try:
            with transaction.atomic():
                return m.Table.objects.create(stream=stream)
        except IntegrityError:  # another projection created it first
            return None
    # a no-op UPDATE, for its WHERE: the compare-and-set (and, on PostgreSQL, the row
    # lock that makes a second writer wait for this one's commit and then see it)
    if not m.Table.objects.filter(pk=table.pk, projected_version=table.projected_version).update(
        projected_version=table.projected_version
    ):
        return None
    if fresh:
        table.delete()
        return m.Table.objects.create(stream=stream)
    return table


def _write(
    table: m.Table,
    *,
    folded: list[TableDayFold | Segment],
    record: Callable[[TableDayFold], None] | None,
) -> None:
    """The rows of ``folded``, in order, ``record(fold)`` after each fold's (``table``:
    the row claimed; each write reads it again, as the rows it writes change it)."""
    for fold in folded:
        if isinstance(fold, Segment):
            write_held(fold)
            continue
        write_fold(fold)
        if record is not None:
            record(fold)


def project_stream(
    stream: str,
    *,
    full: bool = False,
    day: date | None = None,
    cache: FoldCache[KeptDay] | None = None,
    record: Callable[[TableDayFold], None] | None = None,
    fresh: bool = False,
) -> list[TableDayFold]:
    """Fold what is new in ``stream`` (everything with ``full``; one gaming day with
    ``day``) outside any transaction, then write the read models in one short
    transaction guarded by the compare-and-set of ``projected_version`` (see the module's
    docstring for a stale fold). ``record(fold)`` runs in that transaction after each
    fold's rows are written (the replay service stores the findings there). ``fresh``:
    drop the table's rows first (a rebuild). Returns the folds written; none when a
    projection that won a race already covers them. Bulk work: the collector's young
    threshold is raised while it runs (:mod:`audit.record.collector`)."""
    with bulk_work():
        return _project_stream(stream, full=full, day=day, cache=cache, record=record, fresh=fresh)


def _project_stream(
    stream: str,
    *,
    full: bool,
    day: date | None,
    cache: FoldCache[KeptDay] | None,
    record: Callable[[TableDayFold], None] | None,
    fresh: bool,
) -> list[TableDayFold]:
    for _ in range(_ATTEMPTS):
        table = m.Table.objects.filter(stream=stream).first()
        folded = fold_stream(stream, table, full=full or fresh, day=day, cache=cache)
        if not folded and not fresh:
            return []
        head = (
            max(f.last if isinstance(f, Segment) else f.last_version for f in folded)
            if folded
            else 0
        )
        folds = [f for f in folded if not isinstance(f, Segment)]
        if write_owned(
            functools.partial(_claim, stream, table, fresh=fresh),
            functools.partial(_write, folded=folded, record=record),
        ):
            return folds
        if not fresh and not full:
            now = (
                m.Table.objects.filter(stream=stream)
                .values_list("projected_version", flat=True)
                .first()
            )
            if now is not None and now >= head:
                return []  # the winner reaches as far as this fold did: the later writer wins
    raise StaleProjection(f"the projection of {stream} went stale {_ATTEMPTS} times")


# --- rebuild and compare --------------------------------------------------------------------


def snapshot(stream: str | None = None) -> dict[str, list[tuple[Any, ...]]]:
    """Every read-model row by its natural key (no surrogate ids), sorted: two
    projections are equal when their snapshots are. Hands and bets whose round is gone
    (the database has no foreign key of their round: :class:`tables.models.Bet`) are
    counted apart, of every table, for they no longer say which is theirs."""

    def rows(model: Any, key: str, fields: list[str]) -> list[tuple[Any, ...]]:
        query = model.objects.all()
        if stream is not None:
            query = query.filter(**{key: stream})
        return sorted(
            (tuple(_plain(v) for v in row) for row in query.values_list(*fields)), key=repr
        )

    return {
        "table": rows(
            m.Table,
            "stream",
            ["stream", "ruleset", "currency", "min_bet", "max_bet", "projected_version"],
        ),
        "table day": rows(
            m.TableDay,
            "table__stream",
            [
                "table__stream",
                "gaming_day",
                "first_version",
                "last_version",
                "rounds",
                "bets",
                "handle",
                "recorded_net",
                "expected_net",
            ],
        ),
        "shoe": rows(
            m.Shoe,
            "table__stream",
            [
                "table__stream",
                "shuffled_version",
                "gaming_day",
                "shoe",
                "decks",
                "method",
                "order_known",
                "seed",
                "cut_card",
                "rounds",
            ],
        ),
        "round": rows(
            m.Round,
            "table__stream",
            [
                "table__stream",
                "gaming_day",
                "number",
                "shoe__shuffled_version",
                "status",
                "started_at",
                "first_version",
                "last_version",
                "versions",
                "dealer_total",
                "handle",
                "recorded_net",
                "expected_net",
                "corrected",
            ],
        ),
        "hand": rows(
            m.Hand,
            "round__table__stream",
            [
                "round__table__stream",
                "round__gaming_day",
                "round__number",
                "box",
                "number",
                "cards",
                "actions",
                "total",
                "soft",
                "bust",
                "doubled",
                "surrendered",
                "from_split",
            ],
        ),
        "bet": rows(
            m.Bet,
            "round__table__stream",
            [
                "round__table__stream",
                "round__gaming_day",
                "round__number",
                "bet",
                "box",
                "hand",
                "kind",
                "amount",
                "player",
                "parent",
                "recorded_outcome",
                "recorded_net",
                "expected_outcome",
                "expected_net",
                "matches",
            ],
        ),
        "without a round": [
            (name, count) for name, rows in _unattached().items() if (count := rows.count())
        ],
    }


def _unattached() -> dict[str, Any]:
    """The hands and the bets whose round does not exist (querysets)."""
    rounds = m.Round.objects.values("pk")
    return {
        "hand": m.Hand.objects.exclude(round_id__in=rounds),
        "bet": m.Bet.objects.exclude(round_id__in=rounds),
    }


def _plain(value: Any) -> Any:
    if isinstance(value, (list, dict)):
        return json.dumps(value, sort_keys=True)
    return value


def first_difference(
    live: dict[str, list[tuple[Any, ...]]], rebuilt: dict[str, list[tuple[Any, ...]]]
) -> str | None:
    """A sentence naming the first row that differs, or None when equal (in the active
    language; the read model's name and the row as they are stored)."""
    for name, live_rows in live.items():
        rebuilt_rows = rebuilt[name]
        live_set, rebuilt_set = set(live_rows), set(rebuilt_rows)
        for row in live_rows:
            if row not in rebuilt_set:
                return gettext("%(name)s %(row)r is live but not in the rebuilt projection") % {
                    "name": name,
                    "row": row,
                }
        for row in rebuilt_rows:
            if row not in live_set:
                return gettext("%(name)s %(row)r is in the rebuilt projection but not live") % {
                    "name": name,
                    "row": row,
                }
        if len(live_rows) != len(rebuilt_rows):
            return gettext("%(name)s: %(live)s live rows, %(rebuilt)s rebuilt") % {
                "name": name,
                "live": len(live_rows),
                "rebuilt": len(rebuilt_rows),
            }
    return None


def rebuild_streams(stream: str | None = None) -> list[str]:
    """The tables a rebuild folds: ``stream``, or every stream but the server's own."""
    return (
        [stream]
        if stream is not None
        else sorted(
            Event.objects.exclude(stream__startswith="audit.")
            .order_by()
            .values_list("stream", flat=True)
            .distinct()
        )
    )


def rebuild(
    stream: str | None = None,
    *,
    progress: Callable[[str], None] | None = None,
) -> tuple[dict[str, list[tuple[Any, ...]]], dict[str, list[tuple[Any, ...]]]]:
    """Drop the read models (of one stream, or all) and fold them again from the first
    event; return (live snapshot before, rebuilt snapshot after). ``progress(table)``
    after each table."""
    streams = rebuild_streams(stream)
    live = snapshot(stream)
    for name in streams:
        with acyclic_work():  # as a table's replay (replay_service.replay_table)
            project_stream(name, fresh=True)
        if progress is not None:
            progress(name)
    if stream is None:
        m.Table.objects.exclude(stream__in=streams).delete()
        for (
            rows
        ) in _unattached().values():  # no table's: named by the comparison as live, not rebuilt
            rows._raw_delete(rows.db)
    return live, snapshot(stream)
