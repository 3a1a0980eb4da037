"""The fold of a table's gaming day, from the event store, by the rules engine's own
fold (:class:`tables.engine.replay.Replay`, the same handlers that audit a table) through
its public face only: ``apply``, ``in_play``, ``view``, ``skip_to``, ``strike``,
``forget`` and ``checkpoint`` / ``resume``. :mod:`tables.projections` writes what it gives.

The unit is a table's **gaming day**: the stream's versions from a ``table.opened`` to
the event before the next one (round numbers start again each day, so the engine folds
one day at a time). A fold starts at a **checkpoint**, a ``shoe.shuffled``: the engine's
state there depends only on the rule set (the day's ``table.opened``, folded first) and,
for a game whose pushes carry over to the next round, on the previous shoe's last round.
So an incremental fold starts one shoe earlier (the *context*) and **owns** what starts
at the checkpoint: those shoes, rounds, hands and bets are deleted and written again,
everything before stays. A full fold owns the whole day.

What the engine gives, per round: the bets (``RoundResult.bets``), the settlements the
rules give and the ones recorded (corrections applied), and the round
(``table_round.Round``) with its hands, the dealer's cards, the cards it dealt and each
hand's decisions. The only thing taken from the events directly is what the engine does
not interpret: a card's face (up or down), the version of each event of a round, and the
rule set, limits and gaming day of ``table.opened``.

:func:`fold_day` reads events and the read models but writes nothing and holds no lock
or transaction: a day of a live table (close to a million events) folds while appends
and other projections go on. A :class:`audit.feed.readmodels.FoldCache` keeps folds in
memory so that the next fold of the same day goes on from where the last one stopped.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from audit.access.authority import struck_and_refused
from audit.feed.readmodels import FoldCache, Segment
from audit.models import Event
from audit.store.event_ids import with_ids
from audit.store.reading import stream_events
from tables.engine.illegal import Finding as EngineFinding
from tables.engine.replay import Checkpoint, Replay, ReplayResult
from tables.engine.table_round import Round as EngineRound

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
    cards: dict[int, list[dict[str, Any]]] = field(
        default_factory=dict
    )  # box -> dealt cards in order
    corrected: bool = False


@dataclass(slots=True)
class TableDayFold:
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


def checkpoint(segment: Segment, version: int) -> tuple[int, int]:
    """(context, checkpoint) for refolding from ``version``: the last shuffle at or
    before it, and where the fold must start - the shuffle before that one in a game
    whose pushes carry over to the next round (the day's start where there is none),
    the checkpoint itself otherwise."""
    shuffles = list(
        Event.objects.filter(
            stream=segment.stream,
            type="shoe.shuffled",
            version__gte=segment.first,
            version__lte=version,
        )
        .order_by("-version")
        .values_list("version", flat=True)[:2]
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


# --- the fold kept in memory ---------------------------------------------------------------


@dataclass(slots=True)
class KeptDay:
    """A fold of a day handed over at its head, from its checkpoint ``point`` on (at most
    from its last shuffle on; the one before too, where pushes carry over): kept in the
    projections' :class:`audit.feed.readmodels.FoldCache` (:data:`tables.feed.CACHE`)."""

    point: int
    fold: Checkpoint
    rounds: dict[int, RoundTrack]
    shoes: list[ShoeTrack]
    shoe: ShoeTrack | None


def fold_day(
    segment: Segment,
    *,
    owned_from: int | None = None,
    changed_from: int | None = None,
    cache: FoldCache[KeptDay] | None = None,
) -> TableDayFold:
    """Fold one gaming day through the engine, owning everything from the checkpoint of
    ``owned_from`` (the whole day when None); ``changed_from``: the first version not
    folded before (every owned round is rewritten when None). With a ``cache``, go on
    from the fold kept there when it is that day's up to ``changed_from``, and keep this
    one there afterwards."""
    if owned_from is None or owned_from <= segment.first:
        context = point = segment.first
    else:
        context, point = checkpoint(segment, owned_from)
    kept = None
    if (
        cache is not None
        and changed_from is not None
        and owned_from is not None
        and owned_from >= changed_from
    ):
        kept = cache.take(
            segment.stream,
            day=segment.first,
            version=changed_from - 1,
            fits=lambda day: day.point <= point,
        )
    if kept is not None:
        assert changed_from is not None
        struck, refused = _struck(segment.stream, changed_from, segment.last)
        if Event.objects.filter(
            with_ids(struck), stream=segment.stream, version__lt=changed_from
        ).exists():
            kept = None  # strikes an event folded before: refold
    opening_id = None
    if kept is not None:
        assert changed_from is not None
        state = Replay.resume(kept.fold)
        state.strike(struck)
        state.refuse(refused)
        rounds, shoes, shoe = kept.rounds, kept.shoes, kept.shoe
        events: Iterator[dict[str, Any]] = stream_events(segment.stream, changed_from, segment.last)
        prefix = -1
    else:
        head: list[dict[str, Any]] = []
        if context > segment.first and segment.opened is not None:
            # the day's rule set, folded without its version (the versions in between are skipped)
            opening = next(stream_events(segment.stream, segment.first, segment.first))
            opening.pop("version")
            opening_id = opening["id"]
            head.append(opening)
        prefix = len(head)
        # streamed, not held: a live game's day is close to a million events
        events = itertools.chain(head, stream_events(segment.stream, context, segment.last))
        struck, refused = _struck(segment.stream, context, segment.last)
        state = Replay(struck=struck, refused=refused)
        rounds = {}
        shoes = []
        shoe = None
    count = 0
    last_folded = None

    def tracked() -> Iterator[dict[str, Any]]:
        # the fold's own loop pulls each event from here (one run of the engine for the
        # whole day: its per-call set-up once, not once an event), so the code after the
        # yield sees the state with that event folded
        nonlocal count, last_folded, shoe
        for index, event in enumerate(events):
            count += 1
            if index == prefix:
                state.skip_to(context)
            kind, payload, version = event["type"], event["payload"], event.get("version")
            last_folded = version if version is not None else last_folded
            before = state.in_play
            dealt = before.cards_dealt() if kind == "card.dealt" and before is not None else 0
            yield event
            after = state.in_play
            if kind == "shoe.shuffled":
                shoe = ShoeTrack(
                    payload["shoe"],
                    version or 0,
                    payload["decks"],
                    payload["method"],
                    payload["order"] is not None,
                    payload["seed"] or "",
                )
                shoes.append(shoe)
            elif kind == "shoe.cut" and shoe is not None and shoe.shoe == payload["shoe"]:
                shoe.cut_card = payload["cut_card"]
            if after is not None and after is not before:
                own_shoe = shoe if shoe is not None and shoe.shoe == after.shoe else None
                if own_shoe is not None:
                    own_shoe.rounds += 1
                rounds[after.number] = RoundTrack(
                    after.number, own_shoe, version or 0, event["occurred_at"], after
                )
            touched = after if after is not None else before
            track = rounds.get(touched.number) if touched is not None else None
            if track is not None and track.engine is touched:
                assert touched is not None
                if version is not None:
                    track.versions.append(version)
                if kind == "card.dealt":
                    for box, _, card_code in touched.dealt_cards(dealt if touched is before else 0):
                        card = {
                            "card": card_code,
                            "face": payload["face"],
                            "version": version,
                            "revealed_version": None,
                        }
                        if card_code != payload["card"]:
                            card["recorded"] = payload["card"]
                        track.cards.setdefault(box, []).append(card)
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
                if kind == "correction.recorded" and event["id"] not in state.refused:
                    named.corrected = named.corrected or bool(payload["settlements"])

    state.run(tracked())
    in_play = state.in_play
    open_round = in_play.number if in_play is not None else None
    # what is before the checkpoint's context is not this fold's (a refold would not have it either)
    for number in [n for n, t in rounds.items() if t.first_version < context]:
        del rounds[number]
    shoes[:] = [s for s in shoes if s.version >= context]
    state.forget(context)
    result = state.view()
    versions = _versions_of(segment.stream, result.findings, opening_id, segment.first)
    fold = TableDayFold(
        segment,
        point,
        point if changed_from is None else max(point, changed_from),
        segment.last,
        count,
        result,
        [s for s in shoes if s.version >= point],
        dict(rounds),
        [],
    )
    if cache is not None and last_folded == segment.last:
        # keep only what the next fold can need: from the last shuffle on (the one
        # before it too, where pushes carry over)
        shuffles = [s.version for s in shoes]
        keep_from = (
            (shuffles[-2] if len(shuffles) > 1 else context)
            if _carries_over(segment)
            else (shuffles[-1] if shuffles else context)
        )
        for number in [n for n, t in rounds.items() if t.first_version < keep_from]:
            del rounds[number]
        shoes[:] = [s for s in shoes if s.version >= keep_from]
        state.forget(keep_from)
        cache.put(
            segment.stream,
            KeptDay(shuffles[-1] if shuffles else point, state.checkpoint(), rounds, shoes, shoe),
            day=segment.first,
            version=segment.last,
        )
    still_playing = open_round is not None and not _closed(
        segment, rounds[open_round].first_version if open_round in rounds else segment.first
    )
    for finding in result.findings:
        version = versions.get(finding.event) if finding.event is not None else None
        if (
            still_playing
            and finding.kind == "missing_event"
            and finding.event is None
            and finding.round == open_round
        ):
            continue  # the round in play at the head of the record: not missing, only not over yet
        if version is not None and version < point:
            continue  # the context's, owned by an earlier fold
        if version is None and finding.round is not None and not fold.owns_round(finding.round):
            continue
        fold.findings.append((finding, version))
    return fold


def _versions_of(
    stream: str, findings: Any, opening_id: str | None, opening_version: int
) -> dict[str, int]:
    """The stream versions of the events that showed ``findings``."""
    ids = {f.event for f in findings if f.event is not None}
    versions = {opening_id: opening_version} if opening_id in ids else {}
    missing = [i for i in ids if i not in versions]
    if missing:
        versions.update(
            (str(i), v)
            for i, v in Event.objects.filter(with_ids(missing), stream=stream).values_list(
                "event_id", "version"
            )
        )
    return versions


def _struck(stream: str, low: int, high: int) -> tuple[set[str], dict[str, str]]:
    """Ids of the events that corrections in versions ``low``..``high`` strike
    (``corrects`` with no settlements: replay skips them), and the money-changing events
    there that no one with the authority recorded (id -> why: replay reports them and
    applies none; a refused correction strikes nothing)."""
    return struck_and_refused(stream, low, high)


def _closed(segment: Segment, since: int) -> bool:
    """Whether the day was closed after version ``since`` (the round left open)."""
    return Event.objects.filter(
        stream=segment.stream, type="table.closed", version__gte=since, version__lte=segment.last
    ).exists()
