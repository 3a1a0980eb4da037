"""Replay: a fold over one table's events.

``replay(events)`` reads the events of a stream in order, one handler per event type
(the dict ``HANDLERS``), and returns a :class:`ReplayResult`: every round with its
bets, the settlements the rules give and the ones the record holds, and the findings.
The same handlers serve a live projection (``Replay.apply`` one event at a time), the
offline command and the audit. Events are plain dicts in the store's envelope format,
each payload in its type's current form: the readers (the store's, a file's) lift older
versions with the catalogue's upcasters (:func:`audit.record.events.read_current`); the
hot path reads them as they are (payloads are validated by the store on the way in,
and by :mod:`.jsonl` when a file is read).

The team's style guide gives the fold as ``mutate(state, event) -> state``; here a handler is
``(accumulator, payload) -> None`` and changes the accumulator in place, because
copying a round's state per event would cost more than the whole replay's budget
(the target: docs/performance.md). Handlers touch nothing but the accumulator - no I/O, no clock,
no randomness - so ``replay`` stays a pure function of its events (a test proves it
deterministic).

Checks, in the order an event meets them: envelope (duplicate id, stream version gaps),
corrections that strike an event, the shoe (next card of the recorded order, or a card
the shoe can still hold; burns after a shuffle; the cut card; reshuffles), the round
(deal order of the hole-card policy, legality of each decision and stake, the dealer's
play, each cash-out offer against the one the system computes) and finally, after the
last event so that corrections count, each settlement.

The fold's public face, for a caller that folds a stream over time (the read models):
``apply`` an event; ``in_play`` (the round being dealt); ``view()``, the result as if
the record ended here, without changing the fold, so folding goes on after it;
``skip_to`` (start at a checkpoint), ``strike`` (more struck events), ``forget`` (drop
what came before a checkpoint, to keep a long fold small), and ``checkpoint()`` /
``Replay.resume()`` to hand a fold over and go on with it later.

Two conventions keep one error from cascading into many: where the shoe's order is
recorded, a card that differs from it is reported and the shoe's card is played on; an
illegal decision is reported and has no effect on the play. A card dealt to the hand
whose turn it is means "hit", a card dealt past it means the hands before it stood.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Container, Iterable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass, replace
from typing import Any, Protocol

from audit.record.authority import applicable
from audit.record.collector import bulk_work
from audit.record.corrections import holds_day, struck_events
from audit.record.events import REGISTRY
from audit.record.events.fields import HandAction
from audit.record.money import money_text
from audit.record.shelf import SMALL_FILTER, Shelf, ShelvedMap
from tables.engine.illegal import Finding, Illegal

from .cards import whole_decks
from .presets import PRESETS
from .rounds import ShelvedRounds
from .rules import RuleSet
from .shoes import ShoeTrack, commitment, cut
from .table_round import (
    BETTING,
    DEAL,
    DEALER_SPOT,
    DONE,
    INSURANCE,
    PLAY,
    LiveMemo,
    Round,
    Settlement,
    _new_op,
)

Event = Mapping[str, Any]
# a round is known by its gaming day (the last table.opened's) and its number: numbering
# that starts again each day does not collide
RoundKey = tuple[str | None, int]


@dataclass(slots=True, init=False)
class RoundResult:
    """One round as replayed: its bets (id -> (box, hand, kind, amount)), what the rules
    give (``expected``) and what the record says (``recorded``, corrections applied).
    Its ``__init__`` is written out: the compiled build runs it natively, where the one
    ``dataclass`` writes is Python's, run once a round (``None`` for ``bets`` or
    ``expected`` is a new empty dict, as their default)."""

    number: int
    shoe: str
    bets: dict[str, tuple[int, int, str, int]]
    expected: dict[str, Settlement]
    recorded: dict[str, tuple[str, int]] | None
    voided: bool
    settled: bool
    day: str | None  # the gaming day of the table.opened it was dealt under
    currency: str | None  # that opening's: the amounts in findings' messages

    def __init__(
        self,
        number: int,
        shoe: str,
        bets: dict[str, tuple[int, int, str, int]] | None = None,
        expected: dict[str, Settlement] | None = None,
        recorded: dict[str, tuple[str, int]] | None = None,
        voided: bool = False,
        settled: bool = False,
        day: str | None = None,
        currency: str | None = None,
    ) -> None:
        self.number = number
        self.shoe = shoe
        self.bets = {} if bets is None else bets
        self.expected = {} if expected is None else expected
        self.recorded = recorded
        self.voided = voided
        self.settled = settled
        self.day = day
        self.currency = currency


@dataclass(frozen=True, slots=True)
class ReplayResult:
    stream: str | None
    rules: str | None
    rounds: tuple[RoundResult, ...]
    findings: tuple[Finding, ...]
    events: int

    @property
    def clean(self) -> bool:
        return not self.findings


class Replay:
    """The fold's accumulator for one stream; ``apply`` is the fold step."""

    def __init__(
        self,
        rules: RuleSet | None = None,
        *,
        struck: Iterable[str] = (),
        check_offers: bool = True,
        repeats: Container[str] | None = None,
        ids: Container[str] | None = None,
        compact: bool = False,
        shelf: Shelf | None = None,
        refused: Mapping[str, str] | None = None,
    ) -> None:
        """``repeats`` and ``ids``: the caller keeps the ids, the fold none (a long stream
        folded once - the offline auditor - keeps them compact, :class:`audit.record.ids.IdSet`).
        An event whose id is in ``repeats`` when the fold reads it is a repeat (reported,
        not folded): the caller puts an id there once the fold has read its first event.
        ``ids``: every id of the record, asked at :meth:`view` (a correction naming an
        event not in it). Such a fold cannot :meth:`forget`. ``compact``: a round is kept
        pickled once the next starts (a tenth of its objects' size; a late event that names
        it thaws it) - for :meth:`final`, which thaws them one at a time. ``shelf``: where
        those pickles go (a file), and the rounds' keys and handles and the ``round.settled``
        events' rounds, a batch at a time (:class:`.rounds.ShelvedRounds`,
        :class:`audit.record.shelf.ShelvedMap`): what the fold holds of its rounds does not
        grow with them. By default all stay in memory, in dicts. The caller closes the
        shelf once done with the fold. ``refused``: the ids of money-changing events no one
        with the authority recorded (id -> why; :mod:`audit.record.authority`): a refused
        correction or void is reported (``unauthorised_change``) and not applied."""
        self.rules = rules
        # value every cash-out offer (seed 000) and compare it with the recorded amount
        self.check_offers = check_offers
        self.min_bet: int | None = None
        self.max_bet: int | None = None
        self.currency: str | None = None  # the last table.opened's
        # the stream the events are in (the envelope's), else the table its opening names
        self.stream: str | None = None
        self.shoe: ShoeTrack | None = None
        self.round: Round | None = None
        self.result: RoundResult | None = None
        # a round's result; pickled (``compact``) once the next round has started - the
        # pickle, or its handle on the ``shelf`` (where the handles go too, a batch at a time)
        self.rounds: dict[RoundKey, RoundResult | bytes] | ShelvedRounds = (
            {} if shelf is None else ShelvedRounds(shelf, _freeze)
        )
        self.compact = compact
        self.shelf = shelf
        self.day: str | None = None  # the gaming day of the last table.opened
        self.key: RoundKey | None = None  # the round in play's
        self.findings: list[Finding] = []
        # every event id folded, with its stream version (to find repeats, and to forget
        # what came before a checkpoint), unless the caller keeps them (``repeats``, ``ids``)
        self.seen: dict[str, int] | Container[str] = {} if repeats is None else repeats
        self.known: Container[str] = self.seen if ids is None else ids
        # the version at which each round started (what forget() reads: not kept by a fold
        # that cannot forget, whose caller keeps the ids)
        self.started: dict[RoundKey, int] = {}
        self.keeps_starts = repeats is None
        # each round.settled event's round, for a correction that names the event
        self.settled_events: MutableMapping[str, RoundKey] = (
            {} if shelf is None else ShelvedMap(shelf, filter=SMALL_FILTER, grows=True)
        )
        self.spent = False  # handed over by checkpoint(): folds nothing more
        self.version = 0
        self.count = 0
        self.carried: dict[str, tuple[int, int]] = {}
        self.pending: dict[str, tuple[int, int]] = {}
        self.reshuffle: str | None = None
        self.struck = set(struck)
        # after a struck opening whose day is no date: the events up to the next opening
        # are in no gaming day, and folded into none (audit.record.corrections.holds_day)
        self.holding = False
        self.refused: dict[str, str] = dict(refused or {})
        self.corrections: list[
            tuple[RoundKey | None, int | None, list[dict[str, Any]], str | None]
        ] = []
        self.event_id: str | None = None
        # the live game's strategy decisions, memoised for the rule set in force
        self.memo_rules: RuleSet | None = None
        self.memo: LiveMemo = {}

    # --- helpers ----------------------------------------------------------------------------

    def find(self, kind: str, message: str, **where: Any) -> None:
        self.findings.append(Finding(kind=kind, message=message, event=self.event_id, **where))

    def illegal(self, error: Illegal, round: int | None = None) -> None:
        number = (
            round if round is not None else (self.round.number if self.round is not None else None)
        )
        self.findings.append(error.finding(number, self.event_id))

    def open_round(self, payload: Mapping[str, Any], what: str) -> Round | None:
        current = self.round
        number = payload["round"]
        if current is None or current.number != number:
            self.find(
                "unexpected_event",
                f"A {what} names round {number}, which is not the round in play.",
                round=number,
            )
            return None
        return current

    # --- the fold step -----------------------------------------------------------------------

    def apply(self, event: Event) -> None:
        """Fold one event (a live projection calls this per event)."""
        self.run((event,))

    def run(self, events: Iterable[Event]) -> None:
        """Fold events in order: the envelope checks, then the type's handler. One loop
        with its lookups held in locals - the replay's hot path."""
        if self.spent:
            raise RuntimeError(
                "this fold was handed over by checkpoint(); fold on with Replay.resume(it)"
            )
        seen = self.seen
        keep = type(seen) is dict
        struck = self.struck
        refused = self.refused
        handlers = HANDLERS
        count = 0
        named = self.stream is not None
        ruled = self.rules is not None  # once known, a rule set stays known
        holding = self.holding
        for item in events:
            # a dict, as every reader gives (another mapping copied): the compiled build's
            # look-ups of a dict are its own C calls, a mapping's go through its methods
            event: dict[str, Any] = item if type(item) is dict else dict(item)
            count += 1
            if not named:
                self.stream = event.get("stream")
                named = True
            event_id = event.get("id")
            self.event_id = event_id
            version = event.get("version")
            if event_id is not None:
                if event_id in seen:
                    self.find("duplicate_event", f"Event {event_id} appears twice in the record.")
                    continue
                if keep:
                    seen[event_id] = self.version if version is None else version  # type: ignore[index]
            if version is not None:
                if version != self.version + 1 and not self._version_ok(version):
                    continue
                self.version = version
            if struck and event_id in struck:
                if not holding and holds_day(event):
                    holding = self.holding = True
                continue
            kind = event["type"]
            if holding:
                if kind != "table.opened":
                    continue
                holding = self.holding = False
            if refused and event_id in refused:
                self._refuse(event, refused[event_id])
                continue
            handler = handlers.get(kind)
            if handler is None:
                continue
            payload = event["payload"]
            if not ruled:
                if self.rules is None and kind not in _NO_RULES_NEEDED:
                    self.find(
                        "unknown_rule_set", "No table.opened names the rule set; replay uses hoyle."
                    )
                    self.rules = PRESETS["hoyle"]
                ruled = self.rules is not None
            handler(self, payload)
        self.count += count

    def _version_ok(self, version: int) -> bool:
        """A version that does not follow the last: a repeat (skipped) or a gap."""
        if version <= self.version:
            self.find(
                "duplicate_event",
                f"Version {version} of the stream appears twice.",
                expected=str(self.version + 1),
                recorded=str(version),
            )
            return False
        self.find(
            "missing_event",
            f"Versions {self.version + 1} to {version - 1} of the stream are missing.",
            expected=str(self.version + 1),
            recorded=str(version),
        )
        return True

    # --- the public fold API ----------------------------------------------------------------

    @property
    def in_play(self) -> Round | None:
        """The round being dealt, or None between rounds."""
        return self.round

    def skip_to(self, version: int) -> None:
        """The next versioned event folded is ``version``: the versions before it are
        left out on purpose (a fold that starts at a checkpoint), not missing."""
        self.version = version - 1

    def strike(self, ids: Iterable[str]) -> None:
        """Skip the events with these ids when they come (struck by a correction)."""
        self.struck.update(ids)

    def refuse(self, refused: Mapping[str, str]) -> None:
        """Report and skip these money-changing events when they come (id -> why: no one
        with the authority recorded them)."""
        self.refused.update(refused)

    def _refuse(self, event: Mapping[str, Any], why: str) -> None:
        """A correction or a void of a round that no one with the authority recorded: not
        applied, reported. (The slips' voids are the ledger's to report.)"""
        kind = event["type"]
        if kind not in ("correction.recorded", "round.voided"):
            return
        payload = event["payload"]
        number = payload.get("round") if isinstance(payload, Mapping) else None
        what = "correction" if kind == "correction.recorded" else "void"
        where = f" of round {number}" if number is not None else ""
        self.find(
            "unauthorised_change",
            f"A {what}{where} was not applied: {why}; the settlements stand as recorded.",
            round=number,
            recorded=kind,
        )

    def view(self) -> ReplayResult:
        """The result as if the record ended here - a round in play reported as never
        settled, corrections applied, every settlement compared - without changing the
        fold, so that folding can go on after it."""
        findings = list(self.findings)
        rounds = {key: self.thaw(value) for key, value in self.rounds.items()}
        event_id = self.event_id
        if self.round is not None:
            number = self.round.number
            event_id = None
            findings.append(
                Finding(
                    "missing_event", f"Round {number} was never settled or voided.", round=number
                )
            )
        self._apply_corrections(rounds, findings, event_id)
        for result in rounds.values():
            _compare(result, findings)
        return ReplayResult(
            stream=self.stream,
            rules=self.rules.name if self.rules is not None else None,
            rounds=tuple(rounds.values()),
            findings=tuple(findings),
            events=self.count,
        )

    def final(self, *, by_number: bool = True) -> tuple[tuple[Finding, ...], Iterator[RoundResult]]:
        """What :meth:`view` gives - its findings, in the same order, and its rounds, in
        the order of their numbers (a stable sort of the order they started; with
        ``by_number=False`` in the order they started, as :meth:`view` gives them) - without
        holding every round at once: the rounds are thawed one at a time as the iterator
        gives them (twice in all: once to compare their settlements, once to give them)."""
        findings = list(self.findings)
        event_id = self.event_id
        if self.round is not None:
            number = self.round.number
            event_id = None
            findings.append(
                Finding(
                    "missing_event", f"Round {number} was never settled or voided.", round=number
                )
            )
        corrected = _Corrected(self.rounds, self.thaw)
        self._apply_corrections(corrected, findings, event_id)
        stored = self.rounds
        thaw = self.thaw
        for key, value in stored.pairs() if isinstance(stored, ShelvedRounds) else stored.items():
            _compare(corrected[key] if key in corrected else thaw(value), findings)

        def rounds() -> Iterator[RoundResult]:
            if isinstance(stored, ShelvedRounds):  # the keys are not all held at once
                for key, value in stored.by_number() if by_number else stored.pairs():
                    yield corrected[key] if key in corrected else thaw(value)
                return
            for key in sorted(stored, key=lambda key: key[1]) if by_number else list(stored):
                yield corrected[key] if key in corrected else thaw(stored[key])

        return tuple(findings), rounds()

    def result_(self) -> ReplayResult:
        """The result at the end of the record (:meth:`view`)."""
        return self.view()

    def forget(self, before: int) -> None:
        """Leave out of the fold what came before stream version ``before`` (a
        checkpoint, such as a shuffle), so that a fold kept going - a live table's day,
        a batch at a time - holds only what it still reports: the rounds that started
        before it (never the one in play), the corrections that name a round the fold no
        longer holds (or never held), the findings its events showed, and their ids (a
        repeat of one of them is no longer found)."""
        seen = self.seen
        if not isinstance(seen, dict):
            raise TypeError(
                "a fold whose caller keeps the ids (repeats=) has no versions: it cannot forget"
            )
        in_play = self.key if self.round is not None else None
        for key in [k for k, v in self.started.items() if v < before and k != in_play]:
            del self.started[key]
            self.rounds.pop(key, None)
        rounds = self.rounds
        self.corrections = [c for c in self.corrections if c[0] is None or c[0] in rounds]
        self.settled_events = {e: k for e, k in self.settled_events.items() if k in rounds}
        numbers = {number for _, number in rounds}
        self.findings = [
            f
            for f in self.findings
            if (f.event is not None and seen.get(f.event, -1) >= before)
            or (f.event is None and f.round is not None and f.round in numbers)
        ]
        # the ids came in fold order, so the ones before the checkpoint are the first ones
        # (a live day holds a shoe's worth: do not rebuild the whole dict every time)
        old = []
        for event_id, version in seen.items():
            if version >= before:
                break
            old.append(event_id)
        for event_id in old:
            del seen[event_id]

    def checkpoint(self) -> Checkpoint:
        """Hand the fold over, to go on with it later (:meth:`resume`), e.g. when the
        table's next events come. Nothing is copied: this Replay folds nothing more, and
        the checkpoint resumes once."""
        self.spent = True
        return Checkpoint(self)

    @classmethod
    def resume(cls, checkpoint: Checkpoint) -> Replay:
        """The fold a checkpoint holds, ready to fold the events after it."""
        replay = checkpoint.take()
        replay.spent = False
        return replay

    # --- end of the record --------------------------------------------------------------------

    def round_key(self, number: int) -> RoundKey:
        """The round ``number`` names now: the current gaming day's, else the latest
        round of that number (a correction on a later day for an earlier day's round)."""
        key = (self.day, number)
        if key not in self.rounds:
            for earlier in reversed(self.rounds):
                if earlier[1] == number:
                    return earlier
        return key

    def round_at(self, key: RoundKey) -> RoundResult | None:
        """The round at ``key`` (thawed, and kept thawed: a late event changes it), or None."""
        value = self.rounds.get(key)
        if isinstance(value, bytes):
            value = self.rounds[key] = self.thaw(value)
        return value

    def freeze(self, result: RoundResult) -> bytes:
        """A round pickled (:func:`_freeze`), or its pickle's handle on the shelf."""
        frozen = _freeze(result)
        return frozen if self.shelf is None else self.shelf.put(frozen)

    def thaw(self, value: RoundResult | bytes) -> RoundResult:
        """A round as :meth:`freeze` kept it, thawed (a round not frozen as it is)."""
        if not isinstance(value, bytes):
            return value
        return _thaw(value if self.shelf is None else self.shelf.get(value))

    def _apply_corrections(
        self, rounds: _Rounds, findings: list[Finding], event: str | None
    ) -> None:
        """Apply the corrections to ``rounds`` (a round a correction settles is replaced
        by a copy), their findings into ``findings``."""
        for key, number, settlements, corrects in self.corrections:
            if corrects is not None and corrects not in self.known:
                findings.append(
                    Finding(
                        "invalid_correction",
                        f"A correction names event {corrects}, which is not in the record.",
                        round=number,
                        recorded=corrects,
                        event=event,
                    )
                )
            if not settlements:
                continue
            result = rounds.get(key) if key is not None else None
            if key is None or result is None:
                findings.append(
                    Finding(
                        "invalid_correction",
                        f"A correction gives settlements for round {number}, which was not played.",
                        round=number,
                        event=event,
                    )
                )
                continue
            recorded = dict(result.recorded) if result.recorded is not None else {}
            for item in settlements:
                if item["bet"] not in result.bets:
                    findings.append(
                        Finding(
                            "invalid_correction",
                            f"A correction settles bet {item['bet']}, which round {number} never took.",
                            round=number,
                            bet=item["bet"],
                            event=event,
                        )
                    )
                    continue
                recorded[item["bet"]] = (item["outcome"], item["net"])
            rounds[key] = replace(result, recorded=recorded)


def _freeze(result: RoundResult) -> bytes:
    """A round as one pickle of builtins (its settlements as plain tuples): unpickling
    objects one by one - a dataclass's state, a named tuple's ``__new__`` - would be a
    Python call per settlement, and a late event may thaw any round."""
    return pickle.dumps(
        (
            result.number,
            result.shoe,
            result.bets,
            [(bet, tuple(settlement)) for bet, settlement in result.expected.items()],
            result.recorded,
            result.voided,
            result.settled,
            result.day,
            result.currency,
        ),
        pickle.HIGHEST_PROTOCOL,
    )


def _thaw(value: bytes) -> RoundResult:
    """A round :func:`_freeze` pickled."""
    number, shoe, bets, expected, recorded, voided, settled, day, currency = pickle.loads(value)
    return RoundResult(
        number,
        shoe,
        bets,
        {bet: _new_op(Settlement, settlement) for bet, settlement in expected},
        recorded,
        voided,
        settled,
        day,
        currency,
    )


class _Rounds(Protocol):
    """What :meth:`Replay._apply_corrections` reads and writes: the rounds as a dict
    (:meth:`Replay.view`), or :class:`_Corrected`."""

    def get(self, key: RoundKey, /) -> RoundResult | None: ...

    def __setitem__(self, key: RoundKey, value: RoundResult, /) -> None: ...


class _Corrected:
    """The rounds corrections replace (:meth:`Replay.final`): a round not replaced is
    thawed from the fold's when asked, and not kept. Not a dict subclass: the engine's
    compiled build (mypyc) reads a value typed as a dict with the dict's own lookup,
    which would pass over an overriding ``get`` (and so lose every round not replaced)."""

    __slots__ = ("replaced", "stored", "thaw")

    def __init__(
        self,
        stored: Mapping[RoundKey, RoundResult | bytes],
        thaw: Callable[[RoundResult | bytes], RoundResult],
    ) -> None:
        self.replaced: dict[RoundKey, RoundResult] = {}
        self.stored = stored
        self.thaw = thaw

    def get(self, key: RoundKey, /) -> RoundResult | None:
        replaced = self.replaced.get(key)
        if replaced is not None:
            return replaced
        value = self.stored.get(key)
        return None if value is None else self.thaw(value)

    def __setitem__(self, key: RoundKey, value: RoundResult, /) -> None:
        self.replaced[key] = value

    def __contains__(self, key: object) -> bool:
        return key in self.replaced

    def __getitem__(self, key: RoundKey) -> RoundResult:
        return self.replaced[key]


class Checkpoint:
    """A fold handed over by :meth:`Replay.checkpoint`; opaque. It resumes once."""

    __slots__ = ("_replay",)

    def __init__(self, replay: Replay) -> None:
        self._replay: Replay | None = replay

    def take(self) -> Replay:
        replay, self._replay = self._replay, None
        if replay is None:
            raise RuntimeError("this checkpoint was resumed already")
        return replay


def _compare(result: RoundResult, findings: list[Finding]) -> None:
    """Each recorded settlement of ``result`` against the rules'; differences into ``findings``."""
    recorded = result.recorded
    if recorded is None:
        return
    number = result.number
    for bet_id, expected in result.expected.items():
        got = recorded.get(bet_id)
        box, hand, kind, amount = result.bets[bet_id]
        if got is None:
            if result.voided:
                continue
            findings.append(
                Finding(
                    "missing_settlement",
                    f"Bet {bet_id} on box {box} ({kind}, {money_text(amount, result.currency)}) has "
                    f"no settlement in round {number}.",
                    round=number,
                    box=box,
                    hand=hand,
                    bet=bet_id,
                    expected=f"{expected.outcome} {expected.net:+d}",
                )
            )
        elif got != (expected.outcome, expected.net):
            findings.append(
                Finding(
                    "wrong_payout",
                    _payout_sentence(bet_id, box, kind, amount, expected, got, result.currency),
                    round=number,
                    box=box,
                    hand=hand,
                    bet=bet_id,
                    expected=f"{expected.outcome} {expected.net:+d}",
                    recorded=f"{got[0]} {got[1]:+d}",
                )
            )
    for bet_id in recorded:
        if bet_id not in result.expected:
            findings.append(
                Finding(
                    "unknown_bet",
                    f"Round {number} settles bet {bet_id}, which was never placed.",
                    round=number,
                    bet=bet_id,
                )
            )


def _net(value: int, currency: str | None) -> str:
    """A bet's net in a message: the player's, + when the player won."""
    return money_text(value, currency, signed=True)


def _payout_sentence(
    bet: str,
    box: int,
    kind: str,
    amount: int,
    expected: Settlement,
    got: tuple[str, int],
    currency: str | None,
) -> str:
    staked = f"Bet {bet} ({kind}, {money_text(amount, currency)} on box {box})"
    if got[1] == expected.net:
        return (
            f"{staked} was paid the right amount, {_net(got[1], currency)}, "
            f"but recorded as {got[0]} where the rules say {expected.outcome}."
        )
    return (
        f"{staked} should be {expected.outcome} {_net(expected.net, currency)} but was recorded "
        f"{got[0]} {_net(got[1], currency)}."
    )


# --- handlers: one per event type ---------------------------------------------------------

Handler = Callable[[Replay, Mapping[str, Any]], None]


def on_table_opened(state: Replay, p: Mapping[str, Any]) -> None:
    base = PRESETS.get(p["ruleset"])
    if base is None:
        state.find(
            "unknown_rule_set",
            f"Rule set {p['ruleset']!r} is not known to the engine; replay uses hoyle.",
            recorded=p["ruleset"],
        )
        base = PRESETS["hoyle"]
    try:
        state.rules = base.with_overrides(p.get("rules") or {})
    except ValueError as error:
        state.find(
            "unknown_rule_set",
            f"The table's rule overrides are unusable ({error}); replay uses {base.name} as it is.",
        )
        state.rules = base
    state.min_bet = p["min_bet"]
    state.max_bet = p["max_bet"]
    state.currency = p.get("currency")
    state.day = p["gaming_day"]
    if state.stream is None:
        state.stream = p["table"]
    elif state.stream != p["table"]:
        state.find(
            "stream_mismatch",
            f"Stream {state.stream} opens table {p['table']}: a table's record belongs in its own "
            "stream, and two streams opening one table would merge.",
            expected=state.stream,
            recorded=p["table"],
        )


def on_shoe_shuffled(state: Replay, p: Mapping[str, Any]) -> None:
    order = p["order"]
    if order is not None and p["commitment"] is not None and commitment(order) != p["commitment"]:
        state.find(
            "shoe_procedure", f"Shoe {p['shoe']}'s recorded order does not match its commitment."
        )
    if order is not None and not whole_decks(order, p["decks"]):
        state.find(
            "shoe_procedure", f"Shoe {p['shoe']}'s recorded order is not {p['decks']} whole decks."
        )
    rules = state.rules
    if rules is not None and p["decks"] != rules.decks:
        state.find(
            "shoe_procedure",
            f"Shoe {p['shoe']} holds {p['decks']} decks; this game deals from {rules.decks}.",
            expected=str(rules.decks),
            recorded=str(p["decks"]),
        )
    if state.round is not None:
        state.find(
            "missing_event",
            f"The shoe was reshuffled while round {state.round.number} was still open.",
            round=state.round.number,
        )
        state.round = None
    state.shoe = ShoeTrack(p["shoe"], p["decks"], order)
    state.reshuffle = None


def on_shoe_cut(state: Replay, p: Mapping[str, Any]) -> None:
    shoe = state.shoe
    if shoe is None or shoe.id != p["shoe"]:
        state.find("shoe_procedure", f"Shoe {p['shoe']} was cut but never shuffled.")
        return
    size = shoe.size
    if p["position"] > size or p["cut_card"] > size:
        # a cut card past the last card would never come out: no reshuffle would be due
        what = (
            f"cut at card {p['position']}"
            if p["position"] > size
            else f"has its cut card at {p['cut_card']}"
        )
        state.find(
            "shoe_procedure",
            f"Shoe {p['shoe']} {what}, beyond its {size} cards.",
            expected=f"0-{size}",
            recorded=str(max(p["position"], p["cut_card"])),
        )
        shoe.cut_card = min(p["cut_card"], size)
        return
    if shoe.order is not None:
        shoe.order = cut(shoe.order, p["position"])
    shoe.cut_card = p["cut_card"]
    rules = state.rules
    # (a shoe of other decks than the game's is already a finding: its cut is not measured)
    if rules is not None and rules.penetration is not None and rules.decks == shoe.decks:
        low, high = rules.penetration
        behind = shoe.size - p["cut_card"]
        if not low <= behind <= high:
            state.find(
                "shoe_procedure",
                f"The cut card leaves {behind} cards unplayed; this game puts it {low}-{high} from the end.",
                expected=f"{low}-{high}",
                recorded=str(behind),
            )


def on_card_burned(state: Replay, p: Mapping[str, Any]) -> None:
    shoe = state.shoe
    if shoe is None:
        state.find("shoe_procedure", "A card was burned before any shuffle.")
        return
    fresh = shoe.pos == shoe.burns  # no card but after-shuffle burns has left the shoe yet
    _, error = shoe.draw(p["card"])
    if error is not None:
        state.illegal(error, p["round"])
    if p["reason"] == "after_shuffle":
        shoe.burns += 1
        wrong = _burn_moment(state, p["round"], fresh)
        if wrong is not None and not shoe.burns_flagged:
            shoe.burns_flagged = True
            rules = state.rules
            assert rules is not None
            state.find(
                "shoe_procedure",
                f"A card was burned {wrong}; this game burns {rules.burn_on_shuffle} {_BURN_WHEN[rules.burn_when]}.",
                round=p["round"],
                expected=rules.burn_when,
                recorded=p["card"],
            )
    elif (
        p["reason"] == "exposed" and state.rules is not None and state.rules.reshuffle_after_exposed
    ):
        state.reshuffle = "a card was exposed"


# when a game burns its ``burn_on_shuffle`` cards, as a finding says it
_BURN_WHEN = {
    "shuffle": "right after the shuffle, before any round",
    "bets_down": "once the first round's bets are down, before its first card",
}


def _burn_moment(state: Replay, number: int | None, fresh: bool) -> str | None:
    """Where an after-shuffle burn came, when that is not the moment the rule set burns
    (``burn_when``); None when it is."""
    rules = state.rules
    assert rules is not None
    current = state.round
    if rules.burn_when == "shuffle":
        if number is None and fresh and (state.shoe is None or state.shoe.rounds == 0):
            return None
        return (
            f"during round {number}"
            if number is not None
            else "after rounds were dealt from this shoe"
        )
    if current is None or number is None or current.number != number or current.phase == BETTING:
        return "before the bets were down" if fresh else "between rounds"
    if current.phase != DEAL or current.dealt or not fresh:
        return (
            f"after the first card of round {number}"
            if fresh
            else f"in round {number}, after cards had left the shoe"
        )
    return None


def _count_burns(state: Replay, shoe: ShoeTrack, number: int) -> None:
    """At the moment the burns are over (the shoe's first round starts, or deals its
    first card in a ``bets_down`` game): as many as the rule set burns?"""
    shoe.burns_checked = True
    rules = state.rules
    assert rules is not None
    if shoe.burns != rules.burn_on_shuffle and not shoe.burns_flagged:
        shoe.burns_flagged = True
        state.find(
            "shoe_procedure",
            f"{shoe.burns} cards were burned {_BURN_WHEN[rules.burn_when]}; this game burns {rules.burn_on_shuffle}.",
            round=number,
            expected=str(rules.burn_on_shuffle),
            recorded=str(shoe.burns),
        )


def on_round_started(state: Replay, p: Mapping[str, Any]) -> None:
    rules = state.rules
    assert rules is not None
    number = p["round"]
    if state.round is not None:
        state.find(
            "missing_event",
            f"Round {state.round.number} was never settled before round {number} started.",
            round=state.round.number,
        )
        state.round = None
    key = (state.day, number)
    if state.compact and state.key is not None:
        previous = state.rounds.get(state.key)
        if type(previous) is RoundResult:
            state.rounds[state.key] = state.freeze(previous)
    if key in state.rounds:
        day = f" of gaming day {state.day}" if state.day is not None else ""
        state.find("duplicate_event", f"Round {number}{day} was started twice.", round=number)
    shoe = state.shoe
    if shoe is None or shoe.id != p["shoe"]:
        state.find(
            "shoe_procedure",
            f"Round {number} deals from shoe {p['shoe']}, which was not shuffled.",
            round=number,
        )
        shoe = state.shoe = ShoeTrack(p["shoe"], rules.decks, None)
        shoe.burns_checked = True  # no shuffle on record: nothing to count the burns from
    if rules.burn_when == "shuffle" and not shoe.burns_checked:
        _count_burns(state, shoe, number)
    if state.reshuffle is not None:
        state.find(
            "shoe_procedure",
            f"Round {number} was dealt without a reshuffle after {state.reshuffle}.",
            round=number,
        )
        state.reshuffle = None
    shoe.rounds += 1
    if state.memo_rules is not rules:
        state.memo_rules, state.memo = rules, {}
    state.round = Round(
        rules,
        number,
        p["shoe"],
        min_bet=state.min_bet,
        max_bet=state.max_bet,
        memo=state.memo,
        currency=state.currency,
    )
    result = state.result = RoundResult(number, p["shoe"], day=state.day, currency=state.currency)
    state.rounds[key] = result
    if state.keeps_starts:
        state.started[key] = state.version
    state.key = key
    state.pending = state.carried
    state.carried = {}


def on_bet_placed(state: Replay, p: Mapping[str, Any]) -> None:
    current = state.round
    if current is None or current.number != p["round"]:
        state.open_round(p, "bet")
        return
    bet_id = p["bet"]
    kind = p["kind"]
    parent = p["parent"]
    box = p["box"]
    try:
        if kind == "main" and parent is not None:
            carried = state.pending.pop(parent, None)
            if carried is None:
                raise Illegal(
                    "illegal_bet",
                    f"Bet {bet_id} claims to carry bet {parent}, which was not left on the layout.",
                    box=box,
                    bet=bet_id,
                )
            if carried != (box, p["amount"]):
                raise Illegal(
                    "illegal_bet",
                    f"Bet {bet_id} carries bet {parent} as {current.money(p['amount'])} on box "
                    f"{box}, but {current.money(carried[1])} was left on box {carried[0]}.",
                    box=box,
                    bet=bet_id,
                    expected=f"{carried[1]} on box {carried[0]}",
                    recorded=f"{p['amount']} on box {box}",
                )
            current.place_bet(bet_id, box, p["hand"], p["player"], p["amount"], kind, None)
        else:
            current.place_bet(bet_id, box, p["hand"], p["player"], p["amount"], kind, parent)
    except Illegal as error:
        state.illegal(error)
        if error.kind == "duplicate_event":
            return
        # the stake is on the table all the same: settle it by the rules
        current.place_bet(
            bet_id, box, p["hand"], p["player"], p["amount"], kind, parent, verify=False
        )
    assert state.result is not None
    state.result.bets[bet_id] = (box, p["hand"], kind, p["amount"])


def on_betting_closed(state: Replay, p: Mapping[str, Any]) -> None:
    current = state.open_round(p, "betting.closed")
    if current is None:
        return
    for bet_id, (box, amount) in state.pending.items():
        state.find(
            "missing_event",
            f"The pushed stake of bet {bet_id} ({current.money(amount)} on box {box}) was not left "
            f"on the layout for round {current.number}.",
            round=current.number,
            box=box,
            bet=bet_id,
        )
    state.pending = {}
    current.close_betting()


def on_card_dealt(state: Replay, p: Mapping[str, Any]) -> None:
    current = state.round
    if current is None or current.number != p["round"]:
        state.open_round(p, "card")
        return
    shoe = state.shoe
    assert shoe is not None
    card = p["card"]
    order = shoe.order
    pos = shoe.pos
    if order is not None and pos < len(order) and order[pos] == card:
        shoe.pos = pos + 1  # the common case of ShoeTrack.draw, inline
    else:
        drawn, error = shoe.draw(card)
        if error is not None:
            state.illegal(error)
        card = drawn or card
    box = p["box"] or 0
    hand = p["hand"] or 0
    # the fast path: the card goes where the deal order or the hand in turn wants it,
    # with the face the rules give it, nothing owed - what the checks below would
    # derive, without asking for it again (the round's deal() trusts it: verify=False)
    phase = current.phase
    if shoe.burns_checked and not current.owed:
        if phase == DEAL:
            targets = current.targets
            dealt = current.dealt
            spot = targets[dealt]
            if spot[0] == box and spot[1] == hand:
                face = (
                    "down"
                    if dealt == len(targets) - 1 and current.rules.hole_card != "none"
                    else "up"
                )
                if p["face"] == face:
                    current.deal(card, box, hand, verify=False)
                    return
        elif phase == PLAY:
            turn = current.queue[current.turn]
            if turn.box == box and turn.number == hand and (turn.awaiting or len(turn.cards) < 2):
                face = current.rules.double_card_face if turn.doubled else "up"
                if p["face"] == face:
                    current.deal(card, box, hand, verify=False)
                    return
    target = (box, hand)
    if phase == BETTING:
        state.find(
            "missing_event",
            f"Round {current.number} was dealt without betting.closed.",
            round=current.number,
        )
        current.close_betting()
    if not shoe.burns_checked:
        _count_burns(state, shoe, current.number)
    if current.phase == INSURANCE:
        current.close_insurance()
    if current.owed:
        _missing_stakes(state, current)
    expected = current.next_target()
    if expected is None and current.phase == PLAY:
        _implied(state, current, target)
        expected = current.next_target()
    if expected != target:
        try:
            current.verify_deal(box, hand)
        except Illegal as illegal:
            state.illegal(illegal)
        if expected is None:
            return  # no card was due anywhere: the card is out of the round
        # the card is the one the deal order gives the place it should have gone to:
        # reported once, played there, so the hands after it play as dealt
        box, hand = expected
    face = current.next_face()
    if p["face"] != face:
        where = "the dealer" if expected == DEALER_SPOT else current.hands[(box, hand)].label()
        state.find(
            "wrong_face",
            f"{card} went to {where} face {p['face']}; the rules deal it face "
            f"{face}{_face_reason(current, box, hand)}.",
            round=current.number,
            box=box or None,
            hand=hand if box else None,
            expected=face,
            recorded=p["face"],
        )
    current.deal(card, box, hand, verify=False)


def _face_reason(current: Round, box: int, hand: int) -> str:
    """Why a card is dealt with the face it is, for a face finding's message."""
    rules = current.rules
    if (
        (box, hand) == DEALER_SPOT
        and current.phase == DEAL
        and current.dealt == len(current.targets) - 1
    ):
        return f" (the hole card of a {rules.hole_card} game)"
    if box and current.hands[(box, hand)].doubled:
        return " (the card of a double, double_card_face)"
    return ""


def _missing_stakes(state: Replay, current: Round) -> None:
    for error in current.missing_stakes():
        state.illegal(error)


def _implied(state: Replay, current: Round, target: tuple[int, int]) -> None:
    """A card reached a hand without a decision said: a hit for the hand whose turn it
    is, stands for the hands it passed."""
    hand = current.current
    assert hand is not None
    if target == (hand.box, hand.number):
        _decide(state, current, hand.box, hand.number, "hit", None)
        return
    _stand_until(state, current, target)


def _stand_until(state: Replay, current: Round, target: tuple[int, int]) -> None:
    """An event for a later hand (or the dealer) while a hand waits for its decision:
    the hands passed over stood. An event for a hand already played changes nothing
    here (the caller's check reports it)."""
    hand = current.current
    if hand is None or (hand.box, hand.number) == target or current.next_target() is not None:
        return
    later = {(h.box, h.number) for h in current.queue[current.turn + 1 :]}
    if target != DEALER_SPOT and target not in later:
        return
    while current.phase == PLAY and current.next_target() is None:
        hand = current.current
        assert hand is not None
        if (hand.box, hand.number) == target:
            break
        _decide(state, current, hand.box, hand.number, "stand", None)


def _decide(
    state: Replay, current: Round, box: int, hand: int, action: HandAction, bet: str | None
) -> bool:
    try:
        current.verify_decide(box, hand, action, bet)
    except Illegal as error:
        state.illegal(error)
        if action == "stand" and current.phase == PLAY:
            current.decide(
                box, hand, "stand", verify=False
            )  # the hand got no more cards all the same
        return False
    current.decide(box, hand, action, bet, verify=False)
    return True


def on_decision_made(state: Replay, p: Mapping[str, Any]) -> None:
    current = state.round
    if current is None or current.number != p["round"]:
        state.open_round(p, "decision")
        return
    action = p["action"]
    if action in ("insurance", "no_insurance", "even_money"):
        try:
            current.bet_decision(p["bet"] or "", action)
        except Illegal as error:
            state.illegal(error)
            bet = current.bets.get(p["bet"] or "")
            if action == "insurance" and bet is not None:
                bet.wants_insurance = True  # its stake is this finding's, not a second one
        return
    phase = current.phase
    if (action == "stand" or action == "hit") and phase == PLAY and not current.owed:
        # the fast path: a hit or stand by the hand whose turn it is, holding its cards -
        # legal whatever the hand (only the live game's strategy and the bettor who plays
        # a box behind others are asked)
        turn = current.queue[current.turn]
        box, number = p["box"], p["hand"]
        if (
            turn.box == box
            and turn.number == number
            and not (turn.awaiting or turn.done)
            and len(turn.cards) >= 2
        ):
            rules = current.rules
            bet_id = p["bet"]
            if rules.dealer_plays_basic_strategy:
                if current.live_action(turn) == action:
                    current.decide(box, number, action, bet_id, verify=False)
                    return
            elif bet_id is None or not rules.back_betting:
                current.decide(box, number, action, bet_id, verify=False)
                return
    if phase == INSURANCE:
        current.close_insurance()
    if current.owed:
        _missing_stakes(state, current)
    _stand_until(state, current, (p["box"], p["hand"]))
    if action == "stand":
        _stand(state, current, p)
    else:
        _decide(state, current, p["box"], p["hand"], action, p["bet"])


def _stand(state: Replay, current: Round, p: Mapping[str, Any]) -> None:
    try:
        current.verify_decide(p["box"], p["hand"], "stand", p["bet"])
    except Illegal as error:
        state.illegal(error)
        return
    current.decide(p["box"], p["hand"], "stand", p["bet"], verify=False)


def on_cashout_offered(state: Replay, p: Mapping[str, Any]) -> None:
    current = state.open_round(p, "cash-out offer")
    if current is None:
        return
    if current.phase == INSURANCE:
        current.close_insurance()
    bet = current.bets.get(p["bet"])
    if bet is not None:
        _stand_until(state, current, (bet.box, bet.hand))
    try:
        current.offer_cashout(p["bet"], p["amount"])
    except Illegal as error:
        state.illegal(error)
        return
    if state.check_offers:
        _check_offer(state, current, p["bet"], p["amount"])


def _check_offer(state: Replay, current: Round, bet_id: str, amount: int) -> None:
    """The recorded offer against the system's, from the cards left in the shoe (a shoe
    with no card left cannot value a hand: its offer goes unchecked, the empty shoe is
    already a finding). The offer stands as recorded: it is what the player was shown."""
    shoe = state.shoe
    if shoe is None:
        return
    try:
        expected = current.system_offer(bet_id, shoe.left_by_value())
    except ValueError:
        return
    if expected != amount:
        bet = current.bets[bet_id]
        hand = current.hands[(bet.box, bet.hand)]
        state.find(
            "wrong_cashout_offer",
            f"Bet {bet_id} ({current.money(bet.amount)} on {hand.label()}, {' '.join(hand.cards)} "
            f"against {current.dealer[0]}) was offered {current.money(amount)} to cash out; the "
            f"system's offer from the cards left in the shoe is {current.money(expected)}.",
            round=current.number,
            box=bet.box,
            hand=bet.hand,
            bet=bet_id,
            expected=str(expected),
            recorded=str(amount),
        )


def on_cashout_accepted(state: Replay, p: Mapping[str, Any]) -> None:
    current = state.open_round(p, "cash-out")
    if current is None:
        return
    amount = p["amount"]
    try:
        current.verify_accept(p["bet"], amount)
    except Illegal as error:
        state.illegal(error)
        bet = current.bets.get(p["bet"])
        if bet is None:
            return
        if bet.offer is not None:
            amount = bet.offer  # the system's offer is what the player could take
    current.accept_cashout(p["bet"], amount, verify=False)


def on_card_revealed(state: Replay, p: Mapping[str, Any]) -> None:
    current = state.open_round(p, "reveal")
    if current is None:
        return
    try:
        current.reveal(p["card"])
    except Illegal as error:
        state.illegal(error)


def _end_round(state: Replay, current: Round) -> RoundResult:
    result = state.result
    assert result is not None
    result.expected = {s.bet: s for s in current.settle()}
    state.round = None
    shoe = state.shoe
    if shoe is not None and shoe.cut_card is not None and shoe.pos >= shoe.cut_card:
        state.reshuffle = "the cut card came out"
    return result


def on_round_settled(state: Replay, p: Mapping[str, Any]) -> None:
    current = state.open_round(p, "settlement")
    if current is None:
        voided = state.round_at(state.round_key(p["round"]))
        if voided is not None and voided.voided:
            voided.recorded = {s["bet"]: (s["outcome"], s["net"]) for s in p["settlements"]}
        return
    if current.phase != DONE:
        for error in current.close():
            state.illegal(error)
    if current.owed:
        _missing_stakes(state, current)
    result = _end_round(state, current)
    result.settled = True
    result.recorded = _recorded(state, current.number, p["settlements"])
    if state.event_id is not None and state.key is not None:
        state.settled_events[state.event_id] = state.key
    if current.rules.push_carries_over:
        for settlement in result.expected.values():
            if settlement.outcome == "carried":
                box, _, _, amount = result.bets[settlement.bet]
                state.carried[settlement.bet] = (box, amount)


def _recorded(
    state: Replay, number: int, settlements: list[dict[str, Any]]
) -> dict[str, tuple[str, int]]:
    """A settlement's entries by bet; a bet settled twice is reported, its first entry
    kept (the later one would otherwise silently win)."""
    recorded: dict[str, tuple[str, int]] = {}
    for s in settlements:
        bet, entry = s["bet"], (s["outcome"], s["net"])
        first = recorded.get(bet)
        if first is None:
            recorded[bet] = entry
            continue
        again = (
            "again" if first == entry else f"again as {entry[0]} {_net(entry[1], state.currency)}"
        )
        state.find(
            "duplicate_event",
            f"Round {number}'s settlement settles bet {bet} twice: {first[0]} "
            f"{_net(first[1], state.currency)}, then {again}; the first entry is checked.",
            round=number,
            bet=bet,
            expected=f"{first[0]} {first[1]:+d}",
            recorded=f"{entry[0]} {entry[1]:+d}",
        )
    return recorded


def on_round_voided(state: Replay, p: Mapping[str, Any]) -> None:
    number = p["round"]
    current = state.round
    if current is not None and current.number == number:
        current.voided = True
        _end_round(state, current).voided = True
        return
    result = state.round_at(state.round_key(number))
    if result is None:
        state.find("unexpected_event", f"Round {number} was voided but never played.", round=number)
        return
    # voided after its settlement: every stake goes back, cash-outs stand
    result.voided = True
    result.expected = {
        bet: s if s.outcome == "cashed_out" else Settlement(bet, "push", 0)
        for bet, s in result.expected.items()
    }
    for bet in result.expected:
        state.carried.pop(bet, None)


def on_correction_recorded(state: Replay, p: Mapping[str, Any]) -> None:
    number = p["round"]
    corrects = p["corrects"]
    key = state.settled_events.get(corrects) if corrects is not None else None
    if key is None and number is not None:
        key = state.round_key(number)
    state.corrections.append((key, number, list(p["settlements"]), corrects))


def _ignore(state: Replay, p: Mapping[str, Any]) -> None:
    return None


HANDLERS: dict[str, Handler] = {
    "table.opened": on_table_opened,
    "shoe.shuffled": on_shoe_shuffled,
    "shoe.cut": on_shoe_cut,
    "card.burned": on_card_burned,
    "round.started": on_round_started,
    "bet.placed": on_bet_placed,
    "betting.closed": on_betting_closed,
    "card.dealt": on_card_dealt,
    "decision.made": on_decision_made,
    "cashout.offered": on_cashout_offered,
    "cashout.accepted": on_cashout_accepted,
    "card.revealed": on_card_revealed,
    "round.settled": on_round_settled,
    "round.voided": on_round_voided,
    "correction.recorded": on_correction_recorded,
}
for _name in REGISTRY:
    HANDLERS.setdefault(_name, _ignore)
_NO_RULES_NEEDED = frozenset(name for name, handler in HANDLERS.items() if handler is _ignore) | {
    "table.opened",
    "correction.recorded",
}


def replay(
    events: Iterable[Event],
    rules: RuleSet | None = None,
    *,
    check_offers: bool = True,
    refused: Mapping[str, str] | None = None,
) -> ReplayResult:
    """Fold one stream's events; ``rules`` stands in for a missing ``table.opened``.
    ``check_offers=False`` skips valuing cash-out offers (each an exact valuation: the
    dealer's odds of the shoe left, the dearest check of a live table's replay).
    ``refused``: the money-changing events no one with the authority recorded (id -> why),
    reported and not applied; a refused correction strikes nothing."""
    events = events if isinstance(events, list) else list(events)
    refused = dict(refused or {})
    state = Replay(
        rules,
        struck=struck_events(applicable(events, refused)),
        check_offers=check_offers,
        refused=refused,
    )
    with bulk_work():  # the fold makes a round's objects by the thousand, nearly all kept
        state.run(events)
        return state.view()
