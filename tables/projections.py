"""Projections: the read models of ``tables.models``, built from the event store by the
rules engine's own fold (:class:`tables.engine.replay.Replay`, the same handlers that
audit a table), never by a second reading of the events.

The unit is a table's **gaming day**: the stream's versions from a ``table.opened`` to
the event before the next one (round numbers start again each day, so the engine folds
one day at a time). A fold starts at a **checkpoint**, a ``shoe.shuffled``: the engine's
state there depends only on the rule set (the day's ``table.opened``, folded first) and,
for a game whose pushes carry over to the next round, on the previous shoe's last round.
So an incremental fold starts one shoe earlier (the *context*) and **owns** what starts
at the checkpoint: those shoes, rounds, hands and bets are deleted and written again,
everything before stays. A full fold owns the whole day.

What the engine gives, per round: the bets (``RoundResult.bets``), the settlements the
rules give and the ones recorded (corrections applied), and the round object
(``table_round.Round``) with its hands, the dealer's cards and its operation log
(decisions). The only thing taken from the events directly is what the engine does not
interpret: a card's face (up or down), the version of each event of a round, and the
rule set, limits and gaming day of ``table.opened``.

:func:`fold_day` is pure apart from reading events; :func:`write_fold` writes; the
service :func:`project_stream` does both under a per-stream lock. See docs/back-office.md.
"""
from __future__ import annotations

import itertools
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from django.db import connection, transaction
from django.db.models import Sum

from audit.models import Event
from audit.gaming_day import gaming_day as gaming_day_of
from tables.engine.findings import Finding as EngineFinding
from tables.engine.replay import Replay, ReplayResult, RoundResult, struck_events
from tables.engine.table_round import ACTIONS
from tables.engine.table_round import Hand as EngineHand
from tables.engine.table_round import Round as EngineRound

from . import models as m

# the key space of the per-stream projection lock (PostgreSQL advisory lock, two int4 keys)
_LOCK_CLASS = 0x72706C79  # "rply"
_EVENT_FIELDS = ("event_id", "version", "type", "schema_version", "payload", "occurred_at")


# --- the stream's gaming days --------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Segment:
    """One gaming day of a stream: versions ``first``..``last`` (inclusive)."""

    stream: str
    gaming_day: date
    first: int
    last: int
    opened: dict[str, Any] | None  # the table.opened payload, None if the day has none


def segments(stream: str, *, known: list[tuple[int, dict[str, Any] | None]] | None = None,
             after: int = 0) -> list[Segment]:
    """The stream's gaming days, in order, up to its current head. ``known``: the
    starts (version, ``table.opened`` payload) of the days already projected, up to
    version ``after``; only later versions are searched for a ``table.opened`` (an
    index range, not the whole stream)."""
    head = Event.objects.filter(stream=stream).order_by("-version").values_list("version", flat=True).first()
    if head is None:
        return []
    starts: list[tuple[int, dict[str, Any] | None]] = list(known or [])
    starts += list(
        Event.objects.filter(stream=stream, version__gt=after, type="table.opened")
        .order_by("version").values_list("version", "payload")
    )
    if not starts or starts[0][0] > 1:
        starts.insert(0, (1, None))
    result = []
    for index, (first, payload) in enumerate(starts):
        last = starts[index + 1][0] - 1 if index + 1 < len(starts) else head
        if payload is not None:
            day = date.fromisoformat(payload["gaming_day"])
        else:
            moment = Event.objects.filter(stream=stream, version=first).values_list("occurred_at", flat=True).first()
            assert moment is not None
            day = gaming_day_of(moment)
        result.append(Segment(stream, day, first, last, payload))
    return result


def _known_starts(table: m.Table | None) -> tuple[list[tuple[int, dict[str, Any] | None]], int]:
    """The day starts of a projected table (read back from their events) and the
    version up to which they are known."""
    if table is None or not table.projected_version:
        return [], 0
    firsts = list(m.TableDay.objects.filter(table=table).order_by("first_version").values_list("first_version", flat=True))
    payloads = dict(
        Event.objects.filter(stream=table.stream, version__in=firsts, type="table.opened").values_list("version", "payload")
    )
    return [(v, payloads.get(v)) for v in firsts], table.projected_version


# --- the fold -------------------------------------------------------------------------------

@dataclass(slots=True)
class ShoeTrack:
    shoe: str
    version: int
    decks: int
    method: str
    order_known: bool
    seed: str
    cut_card: int | None = None
    rounds: int = 0


@dataclass(slots=True)
class RoundTrack:
    number: int
    shoe: ShoeTrack | None
    first_version: int
    started_at: Any
    engine: EngineRound
    versions: list[int] = field(default_factory=list)
    cards: dict[int, list[dict[str, Any]]] = field(default_factory=dict)  # box -> dealt cards in order
    corrected: bool = False


@dataclass(slots=True)
class Fold:
    """What one fold of a gaming day gives: the engine's result and, for the part this
    fold owns (versions from ``owned_from``), the shoes and rounds to write."""

    segment: Segment
    owned_from: int
    # rows of rounds touched by an event from this version on are rewritten; rounds
    # the fold owns but no new event touched are left as they are (they cannot differ)
    changed_from: int
    last_version: int
    events: int
    result: ReplayResult
    shoes: list[ShoeTrack]
    rounds: dict[int, RoundTrack]
    # findings of the owned part, each with the version of the event that showed it
    findings: list[tuple[EngineFinding, int | None]]

    def owns_round(self, number: int | None) -> bool:
        track = self.rounds.get(number) if number is not None else None
        return track is not None and track.first_version >= self.owned_from


def _events(stream: str, low: int, high: int) -> Iterator[dict[str, Any]]:
    rows = (
        Event.objects.filter(stream=stream, version__gte=low, version__lte=high)
        .order_by("version").values_list(*_EVENT_FIELDS)
    )
    for event_id, version, type_, schema_version, payload, occurred_at in rows.iterator(chunk_size=5000):
        yield {"id": str(event_id), "version": version, "type": type_, "schema_version": schema_version,
               "payload": payload, "occurred_at": occurred_at}


def checkpoint(segment: Segment, version: int) -> tuple[int, int]:
    """(context, checkpoint) for refolding from ``version``: the last shuffle at or
    before it, and where the fold must start - the shuffle before that one in a game
    whose pushes carry over to the next round (the day's start where there is none),
    the checkpoint itself otherwise."""
    shuffles = list(
        Event.objects.filter(
            stream=segment.stream, type="shoe.shuffled", version__gte=segment.first, version__lte=version
        ).order_by("-version").values_list("version", flat=True)[:2]
    )
    point = shuffles[0] if shuffles else segment.first
    context = shuffles[1] if len(shuffles) > 1 else segment.first
    if not _carries_over(segment):
        context = point
    return context, point


def _carries_over(segment: Segment) -> bool:
    from tables.engine.presets import PRESETS

    opened = segment.opened or {}
    base = PRESETS.get(opened.get("ruleset", ""))
    if base is None:
        return True  # unknown: be safe
    try:
        return bool(base.with_overrides(opened.get("rules") or {}).push_carries_over)
    except ValueError:
        return True


@dataclass(slots=True)
class _Live:
    """A fold kept in memory after it ran, so the next incremental fold of the same day
    in this process (eager mode: one per append) goes on from its head instead of
    refolding from the shuffle. Valid only while the stream's event at ``version``
    still has ``head_hash`` (the chain makes that hash stand for the whole prefix)."""

    database: str
    version: int
    head_hash: str
    point: int
    state: Replay
    rounds: dict[int, RoundTrack]
    shoes: list[ShoeTrack]
    shoe: ShoeTrack | None


_LIVE: dict[tuple[str, int], _Live] = {}
_LIVE_MAX = 16  # days kept in memory, at most (each from its last shuffle on)


def _live_for(segment: Segment, point: int, changed_from: int | None) -> _Live | None:
    live = _LIVE.get((segment.stream, segment.first))
    if live is None or changed_from is None or live.version != changed_from - 1 or live.point > point:
        return None
    if live.database != connection.settings_dict["NAME"]:
        return None
    head = Event.objects.filter(stream=segment.stream, version=live.version).values_list("hash", flat=True).first()
    return live if head == live.head_hash else None


def fold_day(segment: Segment, *, owned_from: int | None = None, changed_from: int | None = None) -> Fold:
    """Fold one gaming day through the engine, owning everything from the checkpoint of
    ``owned_from`` (the whole day when None); ``changed_from``: the first version not
    folded before (every owned round is rewritten when None)."""
    if owned_from is None or owned_from <= segment.first:
        context = point = segment.first
    else:
        context, point = checkpoint(segment, owned_from)
    live = _live_for(segment, point, changed_from) if owned_from is not None and owned_from >= (changed_from or 0) else None
    if live is not None:
        assert changed_from is not None
        struck = _struck(segment.stream, changed_from, segment.last)
        if Event.objects.filter(stream=segment.stream, event_id__in=list(struck), version__lt=changed_from).exists():
            live = None  # strikes an event folded before: refold
    opening_id = None
    if live is not None:
        state, rounds, shoes, shoe = live.state, live.rounds, live.shoes, live.shoe
        state.struck.update(struck)
        events: Iterator[dict[str, Any]] = _events(segment.stream, changed_from, segment.last)
        prefix = -1
    else:
        head: list[dict[str, Any]] = []
        if context > segment.first and segment.opened is not None:
            # the day's rule set, folded without its version (the versions in between are skipped)
            opening = next(_events(segment.stream, segment.first, segment.first))
            opening.pop("version")
            opening_id = opening["id"]
            head.append(opening)
        prefix = len(head)
        # streamed, not held: a live game's day is close to a million events
        events = itertools.chain(head, _events(segment.stream, context, segment.last))
        state = Replay(struck=_struck(segment.stream, context, segment.last))
        rounds = {}
        shoes = []
        shoe = None
    count = 0
    last_folded = None
    for index, event in enumerate(events):
        count += 1
        if index == prefix:
            state.version = context - 1
        last_folded = event.get("version", last_folded)
        before = state.round
        logged = len(before.log) if before is not None else 0
        state.apply(event)
        after = state.round
        kind, payload, version = event["type"], event["payload"], event.get("version")
        if kind == "shoe.shuffled":
            shoe = ShoeTrack(payload["shoe"], version or 0, payload["decks"], payload["method"],
                             payload["order"] is not None, payload["seed"] or "")
            shoes.append(shoe)
        elif kind == "shoe.cut" and shoe is not None and shoe.shoe == payload["shoe"]:
            shoe.cut_card = payload["cut_card"]
        if after is not None and after is not before:
            own_shoe = shoe if shoe is not None and shoe.shoe == after.shoe else None
            if own_shoe is not None:
                own_shoe.rounds += 1
            rounds[after.number] = RoundTrack(after.number, own_shoe, version or 0, event["occurred_at"], after)
        touched = after if after is not None else before
        track = rounds.get(touched.number) if touched is not None else None
        if track is not None and track.engine is touched:
            if version is not None:
                track.versions.append(version)
            if kind == "card.dealt":
                new_ops = touched.log[logged:] if touched is before else touched.log
                for op in new_ops:
                    if op.name == "card":
                        card = {"card": op.value, "face": payload["face"], "version": version, "revealed_version": None}
                        if op.value != payload["card"]:
                            card["recorded"] = payload["card"]
                        track.cards.setdefault(op.box or 0, []).append(card)
            elif kind == "card.revealed":
                for card in track.cards.get(0, ()):
                    if card["face"] == "down" and card["revealed_version"] is None:
                        card["revealed_version"] = version
                        break
        elif isinstance(payload, dict) and payload.get("round") in rounds:
            # an event about an earlier round: a correction, a late void or settlement
            named = rounds[payload["round"]]
            if version is not None:
                named.versions.append(version)
            if kind == "correction.recorded":
                named.corrected = named.corrected or bool(payload["settlements"])
    open_round = state.round.number if state.round is not None else None
    # keep the fold for the next one: drop what is before the checkpoint's context
    # (a refold would not have it either), then let result_() work on copies of what
    # it changes (the open round, the findings list, corrected settlements)
    for number in [n for n, t in rounds.items() if t.first_version < context]:
        del rounds[number]
        state.rounds.pop(number, None)
    shoes[:] = [s for s in shoes if s.version >= context]
    state.corrections = [c for c in state.corrections if c[0] is None or c[0] in state.rounds]
    state.seen.clear()  # the store refuses a repeated id; replay's own check adds nothing here
    saved_round, saved_result, saved_findings = state.round, state.result, len(state.findings)
    originals = dict(state.rounds)
    for number, kept in originals.items():
        copied = RoundResult(kept.number, kept.shoe, kept.bets, kept.expected,
                             None if kept.recorded is None else dict(kept.recorded), kept.voided, kept.settled)
        state.rounds[number] = copied
    result = state.result_()
    state.round, state.result = saved_round, saved_result
    del state.findings[saved_findings:]
    state.rounds.update(originals)
    versions = _versions_of(segment.stream, result.findings, opening_id, segment.first)
    fold = Fold(segment, point, point if changed_from is None else max(point, changed_from), segment.last,
                count, result, [s for s in shoes if s.version >= point], dict(rounds), [])
    _LIVE.pop((segment.stream, segment.first), None)
    if last_folded == segment.last and _LIVE_MAX > 0:
        # keep only what the next fold can need: from the last shuffle on (the one
        # before it too, where pushes carry over)
        shuffles = [s.version for s in shoes]
        keep_from = (shuffles[-2] if len(shuffles) > 1 else context) if _carries_over(segment) else (shuffles[-1] if shuffles else context)
        for number in [n for n, t in rounds.items() if t.first_version < keep_from]:
            del rounds[number]
            state.rounds.pop(number, None)
        shoes[:] = [s for s in shoes if s.version >= keep_from]
        state.corrections = [c for c in state.corrections if c[0] is None or c[0] in state.rounds]
        # findings the next fold still owns stay (a refold from the checkpoint would find them again)
        live_point = shuffles[-1] if shuffles else point
        state.findings = [
            f for f in state.findings
            if (f.event is not None and versions.get(f.event, 0) >= live_point)
            or (f.event is None and f.round is not None and f.round in rounds)
        ]
        while len(_LIVE) >= _LIVE_MAX:
            _LIVE.pop(next(iter(_LIVE)))
        _LIVE[(segment.stream, segment.first)] = _Live(
            connection.settings_dict["NAME"], segment.last, _head_hash(segment.stream, segment.last),
            shuffles[-1] if shuffles else point, state, rounds, shoes, shoe,
        )
    still_playing = open_round is not None and not _closed(segment, rounds[open_round].first_version if open_round in rounds else segment.first)
    for finding in result.findings:
        version = versions.get(finding.event) if finding.event is not None else None
        if still_playing and finding.kind == "missing_event" and finding.event is None and finding.round == open_round:
            continue  # the round in play at the head of the record: not missing, only not over yet
        if version is not None and version < point:
            continue  # the context's, owned by an earlier fold
        if version is None and finding.round is not None and not fold.owns_round(finding.round):
            continue
        fold.findings.append((finding, version))
    return fold


def _head_hash(stream: str, version: int) -> str:
    return Event.objects.filter(stream=stream, version=version).values_list("hash", flat=True).get()


def _versions_of(stream: str, findings: Any, opening_id: str | None, opening_version: int) -> dict[str, int]:
    """The stream versions of the events that showed ``findings``."""
    ids = {f.event for f in findings if f.event is not None}
    versions = {opening_id: opening_version} if opening_id in ids else {}
    missing = [i for i in ids if i not in versions]
    if missing:
        versions.update(
            (str(i), v) for i, v in Event.objects.filter(stream=stream, event_id__in=missing).values_list("event_id", "version")
        )
    return versions


def _struck(stream: str, low: int, high: int) -> set[str]:
    """Ids of the events that corrections in versions ``low``..``high`` strike
    (``corrects`` with no settlements: replay skips them)."""
    payloads = Event.objects.filter(
        stream=stream, type="correction.recorded", version__gte=low, version__lte=high
    ).values_list("payload", flat=True)
    return struck_events({"type": "correction.recorded", "payload": p} for p in payloads)


def _closed(segment: Segment, since: int) -> bool:
    """Whether the day was closed after version ``since`` (the round left open)."""
    return Event.objects.filter(
        stream=segment.stream, type="table.closed", version__gte=since, version__lte=segment.last
    ).exists()


# --- writing --------------------------------------------------------------------------------

def _hand_row(hand: EngineHand, round_row: m.Round, box: int, cards: list[dict[str, Any]], actions: list[str]) -> m.Hand:
    return m.Hand(round=round_row, box=box, number=hand.number, cards=cards, actions=actions, total=hand.best,
                  soft=hand.soft, bust=hand.bust, doubled=hand.doubled, surrendered=hand.surrendered,
                  from_split=hand.from_split)


def _hands(track: RoundTrack, round_row: m.Round) -> list[m.Hand]:
    engine = track.engine
    dealer = EngineHand(0, 0)
    for card in engine.dealer:
        dealer.add(card)
    rows = [_hand_row(dealer, round_row, 0, list(track.cards.get(0, [])), [])]
    actions: dict[tuple[int, int], list[str]] = {}
    for op in engine.log:
        if op.name in ACTIONS and op.box is not None and op.hand is not None:
            actions.setdefault((op.box, op.hand), []).append(op.name)
    pools = {box: list(cards) for box, cards in track.cards.items() if box}
    for (box, number), hand in sorted(engine.hands.items()):
        pool = pools.get(box, [])
        cards = []
        for card in hand.cards:
            # a split moves a dealt card to a new hand: find it by its value, in deal order
            at = next((i for i, dealt in enumerate(pool) if dealt["card"] == card), None)
            cards.append(pool.pop(at) if at is not None else {"card": card, "face": "up", "version": None, "revealed_version": None})
        rows.append(_hand_row(hand, round_row, box, cards, actions.get((box, number), [])))
    return rows


def write_fold(fold: Fold) -> m.Table:
    """Replace what ``fold`` owns in the read models. Call inside :func:`stream_lock`."""
    segment = fold.segment
    table, _ = m.Table.objects.get_or_create(stream=segment.stream)
    if segment.opened is not None and segment.first >= _latest_opening(table):
        opened = segment.opened
        table.ruleset, table.currency = opened["ruleset"], opened["currency"]
        table.min_bet, table.max_bet = opened["min_bet"], opened["max_bet"]
    # shoes: upserted (rounds left as they are keep pointing at their shoe)
    shoe_rows = {}
    for s in fold.shoes:
        shoe_rows[id(s)], _ = m.Shoe.objects.update_or_create(
            table=table, shuffled_version=s.version,
            defaults={"gaming_day": segment.gaming_day, "shoe": s.shoe, "decks": s.decks, "method": s.method,
                      "order_known": s.order_known, "seed": s.seed, "cut_card": s.cut_card, "rounds": s.rounds},
        )
    old_shoes = {
        s.shuffled_version: s
        for s in m.Shoe.objects.filter(table=table, shuffled_version__gte=segment.first, shuffled_version__lt=fold.owned_from)
    }
    owned = {n: t for n, t in fold.rounds.items() if t.first_version >= fold.owned_from}
    touched = {n for n, t in owned.items() if t.first_version >= fold.changed_from or any(v >= fold.changed_from for v in t.versions)}
    stale = m.Round.objects.filter(table=table, gaming_day=segment.gaming_day, first_version__gte=fold.owned_from)
    stale.exclude(number__in=[n for n in owned if n not in touched]).delete()
    round_rows, children = [], []
    for result in fold.result.rounds:
        track = fold.rounds.get(result.number)
        if track is None or result.number not in touched or track.engine is None:
            continue
        shoe = None
        if track.shoe is not None:
            shoe = shoe_rows.get(id(track.shoe)) or old_shoes.get(track.shoe.version)
        recorded = result.recorded
        status = m.Round.Status.VOIDED if result.voided else (m.Round.Status.SETTLED if result.settled else m.Round.Status.OPEN)
        row = m.Round(
            table=table, gaming_day=segment.gaming_day, number=result.number, shoe=shoe, status=status,
            started_at=track.started_at, first_version=track.first_version,
            last_version=max(track.versions) if track.versions else track.first_version, versions=track.versions,
            handle=sum(b[3] for b in result.bets.values()),
            recorded_net=None if recorded is None else sum(net for _, net in recorded.values()),
            expected_net=sum(s.net for s in result.expected.values()),
            corrected=track.corrected,
        )
        row.dealer_total = None  # set from the dealer's hand below
        round_rows.append(row)
        children.append((row, track, result))
    m.Round.objects.bulk_create(round_rows)
    hands, bets = [], []
    for row, track, result in children:
        round_hands = _hands(track, row)
        row.dealer_total = round_hands[0].total if round_hands[0].cards else None
        hands.extend(round_hands)
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
            bets.append((
                row.pk, bet_id, box, hand, kind, amount,
                (placed.player or "") if placed is not None else "",
                (placed.parent or "") if placed is not None else "",
                got[0] if got else "", got[1] if got else None,
                expected.outcome if expected else "", expected.net if expected else None, matches,
            ))
    m.Round.objects.bulk_update([row for row, _, _ in children], ["dealer_total"], batch_size=1000)
    m.Hand.objects.bulk_create(hands, batch_size=1000)
    insert_plain(m.Bet, _BET_COLUMNS, bets)
    _write_day(table, segment)
    if segment.first <= table.projected_version + 1:
        table.projected_version = max(table.projected_version, segment.last)
    table.save()
    return table


_BET_COLUMNS = ("round_id", "bet", "box", "hand", "kind", "amount", "player", "parent", "recorded_outcome",
                "recorded_net", "expected_outcome", "expected_net", "matches")


def insert_plain(model: Any, columns: tuple[str, ...], values: list[tuple[Any, ...]]) -> None:
    """Rows of plain values (ints, text, None, booleans) written by PostgreSQL's COPY or
    SQLite's executemany: a live game's day has hundreds of thousands of bets, and the
    ORM's bulk_create spends most of its time preparing each value (as audit.inserts)."""
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
            cursor.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", values)


def _latest_opening(table: m.Table) -> int:
    first = m.TableDay.objects.filter(table=table).order_by("-first_version").values_list("first_version", flat=True).first()
    return first or 0


def _write_day(table: m.Table, segment: Segment) -> None:
    rounds = m.Round.objects.filter(table=table, gaming_day=segment.gaming_day)
    totals = rounds.aggregate(handle=Sum("handle"), recorded=Sum("recorded_net"), expected=Sum("expected_net"))
    m.TableDay.objects.update_or_create(
        table=table, gaming_day=segment.gaming_day,
        defaults={
            "first_version": segment.first, "last_version": segment.last, "rounds": rounds.count(),
            "bets": m.Bet.objects.filter(round__in=rounds).count(), "handle": totals["handle"] or 0,
            "recorded_net": totals["recorded"] or 0, "expected_net": totals["expected"] or 0,
        },
    )


# --- the service ----------------------------------------------------------------------------

@contextmanager
def stream_lock(stream: str) -> Iterator[None]:
    """One transaction per stream's projection, one at a time: PostgreSQL's advisory
    lock on the stream; SQLite's BEGIN IMMEDIATE (settings) takes the write lock."""
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                key = zlib.crc32(stream.encode()) - 2**31
                cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [_LOCK_CLASS, key])
        yield


def _refold_from(table: m.Table | None, segment: Segment, done: int) -> int:
    """The first version an incremental fold of ``segment`` must own: the first new
    one, or earlier where a new correction or a late void names an earlier round (or
    a correction an earlier event)."""
    start = max(done + 1, segment.first)
    if table is None:
        return segment.first
    late = Event.objects.filter(
        stream=segment.stream, type__in=("correction.recorded", "round.voided"), version__gte=start,
        version__lte=segment.last,
    ).values_list("payload", flat=True)
    for payload in late:
        payload = {"corrects": None, **payload}
        if payload["round"] is not None:
            first = m.Round.objects.filter(table=table, gaming_day=segment.gaming_day, number=payload["round"]).values_list("first_version", flat=True).first()
            if first is not None:
                start = min(start, first)
        if payload["corrects"]:
            struck = Event.objects.filter(stream=segment.stream, event_id=payload["corrects"]).values_list("version", flat=True).first()
            if struck is not None and struck >= segment.first:
                start = min(start, struck)
    return start


def project_stream(stream: str, *, full: bool = False, day: date | None = None, write: bool = True) -> list[Fold]:
    """Fold what is new in ``stream`` (everything with ``full``; one gaming day with
    ``day``) and write the read models. Call inside :func:`stream_lock`."""
    table = m.Table.objects.filter(stream=stream).first()
    done = 0 if full or table is None else table.projected_version
    folds = []
    known, after = ([], 0) if full else _known_starts(table)
    for segment in segments(stream, known=known, after=after):
        if day is not None and segment.gaming_day != day:
            continue
        if not full and segment.last <= done:
            continue
        owned_from = None if full or segment.first > done else _refold_from(table, segment, done)
        fold = fold_day(segment, owned_from=owned_from, changed_from=None if owned_from is None else done + 1)
        if write:
            table = write_fold(fold)
        folds.append(fold)
    return folds


def project_stream_now(stream: str, *, full: bool = False) -> list[Fold]:
    with stream_lock(stream):
        return project_stream(stream, full=full)


# --- rebuild and compare --------------------------------------------------------------------

def snapshot(stream: str | None = None) -> dict[str, list[tuple[Any, ...]]]:
    """Every read-model row by its natural key (no surrogate ids), sorted: two
    projections are equal when their snapshots are."""
    def rows(model: Any, key: str, fields: list[str]) -> list[tuple[Any, ...]]:
        query = model.objects.all()
        if stream is not None:
            query = query.filter(**{key: stream})
        return sorted((tuple(_plain(v) for v in row) for row in query.values_list(*fields)), key=repr)

    return {
        "table": rows(m.Table, "stream", ["stream", "ruleset", "currency", "min_bet", "max_bet", "projected_version"]),
        "table day": rows(m.TableDay, "table__stream", ["table__stream", "gaming_day", "first_version", "last_version", "rounds", "bets", "handle", "recorded_net", "expected_net"]),
        "shoe": rows(m.Shoe, "table__stream", ["table__stream", "shuffled_version", "gaming_day", "shoe", "decks", "method", "order_known", "seed", "cut_card", "rounds"]),
        "round": rows(m.Round, "table__stream", ["table__stream", "gaming_day", "number", "shoe__shuffled_version", "status", "started_at", "first_version", "last_version", "versions", "dealer_total", "handle", "recorded_net", "expected_net", "corrected"]),
        "hand": rows(m.Hand, "round__table__stream", ["round__table__stream", "round__gaming_day", "round__number", "box", "number", "cards", "actions", "total", "soft", "bust", "doubled", "surrendered", "from_split"]),
        "bet": rows(m.Bet, "round__table__stream", ["round__table__stream", "round__gaming_day", "round__number", "bet", "box", "hand", "kind", "amount", "player", "parent", "recorded_outcome", "recorded_net", "expected_outcome", "expected_net", "matches"]),
    }


def _plain(value: Any) -> Any:
    if isinstance(value, (list, dict)):
        import json

        return json.dumps(value, sort_keys=True)
    return value


def first_difference(live: dict[str, list[tuple[Any, ...]]], rebuilt: dict[str, list[tuple[Any, ...]]]) -> str | None:
    """A sentence naming the first row that differs, or None when equal."""
    for name, live_rows in live.items():
        rebuilt_rows = rebuilt[name]
        live_set, rebuilt_set = set(live_rows), set(rebuilt_rows)
        for row in live_rows:
            if row not in rebuilt_set:
                return f"{name} {row!r} is live but not in the rebuilt projection"
        for row in rebuilt_rows:
            if row not in live_set:
                return f"{name} {row!r} is in the rebuilt projection but not live"
        if len(live_rows) != len(rebuilt_rows):
            return f"{name}: {len(live_rows)} live rows, {len(rebuilt_rows)} rebuilt"
    return None


def rebuild(stream: str | None = None) -> tuple[dict[str, list[tuple[Any, ...]]], dict[str, list[tuple[Any, ...]]]]:
    """Drop the read models (of one stream, or all) and fold them again from the first
    event; return (live snapshot before, rebuilt snapshot after)."""
    streams = [stream] if stream is not None else list(
        Event.objects.exclude(stream__startswith="audit.").order_by().values_list("stream", flat=True).distinct()
    )
    live = snapshot(stream)
    for name in sorted(streams):
        with stream_lock(name):
            m.Table.objects.filter(stream=name).delete()
            project_stream(name, full=True)
    if stream is None:
        m.Table.objects.exclude(stream__in=streams).delete()
    return live, snapshot(stream)
