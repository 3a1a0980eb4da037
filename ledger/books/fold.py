"""The ledger's fold: one table's stream (envelope dicts in version order) -> its books.

It reads each payload in its type's current form only: the readers of events (the
store's, a file's) lift an older version, and put back a member the normal form leaves
out, with the catalogue's upcasters (:func:`audit.record.events.read_current`).

``fold(events)`` posts every stake, payout, buy-in, marker, fill, credit, count and drop
as balanced entries (:mod:`.journal`), adds up the figures per gaming day and shift
(:class:`.figures.Figures`), follows the custody of every slip, marker and drop box, and
reports the custody findings. The reconciliation (:mod:`.reconcile`) and the statistics
(:mod:`.stats`) work on what it returns.

Where an event belongs: the gaming day is the one of the last ``table.opened`` (a count or
a drop that names its own gaming day and shift belongs to those). The shift is the one
the last opening count of the day opened - so a shift's figures are exactly what happened
between its opener and its closer; at a table that counts no inventory (a live game) it is
the shift plan's shift at the event's time.

Every amount an event states with its currency (a buy-in, a marker, a redemption, a
drop's count and posting) is checked against the table's: one in another currency is
booked only where an exchange rate of its gaming day converts it, both amounts kept;
otherwise it is a ``currency_mismatch`` finding and is not booked.

Conventions shared with the rules engine's replay: an event id seen twice is read once,
and an event that an authorised correction strikes (``corrects`` without settlements) is
skipped, both without a finding here (replay reports them) - but for a struck
``table.opened`` whose gaming day is no date, which ends the day before it and holds the
events after it, up to the next opening, in no gaming day (a ``no_gaming_day`` finding on
the day it ended: :func:`audit.record.corrections.holds_day`). A money-changing event that
no one with the authority recorded (``refused``, :mod:`audit.record.authority`) is not
applied: a round's correction or void silently (replay reports it, ``unauthorised_change``),
a slip's void with the ledger's own finding (``unauthorised_void``). A bet placed twice (the same
bet id) counts once; the first settlement of a bet is the recorded one, corrections change
it. Handlers change the accumulator in place (no I/O, no clock, no randomness), as the
engine's do.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Callable, Collection, Iterable, Mapping, MutableMapping
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction
from typing import Any

from audit.record.authority import applicable
from audit.record.chain import parse_timestamp
from audit.record.corrections import holds_day, struck_events
from audit.record.money import format_money
from audit.record.shelf import SMALL_FILTER, Shelf, ShelvedMap
from audit.record.shifts import WHOLE_DAY, ShiftPlan
from ledger.books.ledger_findings import LedgerFinding

from . import journal as j
from .figures import Conversion, Count, Drop, Figures, Marker, Redemption, Slip, chip_value, convert
from .journal import new_line
from .reconcile import DIFFERENCES, counts_missing, missing_of

Event = Mapping[str, Any]
Key = tuple[str, str]  # (gaming day, shift)


def _chips(items: Iterable[Mapping[str, int]]) -> dict[int, int]:
    out: dict[int, int] = {}
    for item in items:
        out[item["denomination"]] = out.get(item["denomination"], 0) + item["count"]
    return {d: n for d, n in out.items() if n}


class Fold:
    """The accumulator for one table's stream; :meth:`apply` is the fold step."""

    def __init__(
        self,
        *,
        plan: ShiftPlan = WHOLE_DAY,
        struck: Iterable[str] = (),
        entries: bool = True,
        read_once: bool = False,
        shelf: Shelf | None = None,
        refused: Mapping[str, str] | None = None,
        rates: Mapping[tuple[str, str, str], Fraction] | None = None,
    ) -> None:
        """``entries`` False: the fold keeps no journal entries, only the balances they
        make (per account, and per gaming day and shift) - what the offline auditor asks
        for; the entries of a long day would be most of its memory. Each posting is still
        checked as an entry is (:func:`.journal.check`). ``read_once``: the caller hands each
        event id once (it finds the repeats itself, and reads each once), so the fold keeps
        no ids. ``shelf``: the settled bets' nets and where, and each round's shift, are put
        away there a batch at a time (:class:`audit.record.shelf.ShelvedMap`), so a long
        day's fold does not grow with its bets and rounds; the caller closes the shelf. The
        books of such a fold read its rounds' shifts where they are (``Books.round_shifts``
        is the fold's own mapping, not a copy: good while the shelf is open, and changed
        by events folded after). ``refused``: the ids of the money-changing events no one
        with the authority recorded (id -> why), not applied. ``rates``: (gaming day,
        currency, table's currency) -> units of the table's currency per unit of the other
        (``fx.rate_set``), by which an amount recorded in another currency is booked; the
        caller may replace the mapping between events (the latest rates)."""
        self.plan = plan
        self.keeps_entries = entries
        self.struck = set(struck)
        self.refused: dict[str, str] = dict(refused or {})
        self.rates: Mapping[tuple[str, str, str], Fraction] = rates or {}
        self.conversions: list[Conversion] = []
        self.table = ""
        self.currency = "XXX"
        self.day = ""
        # a struck opening whose day is no date: (its version, its gaming day as recorded, the
        # day it ended) - the events after it are in no day until the next opening
        self.held: tuple[int | None, str, str] | None = None
        self.opened_shift: dict[str, str] = {}  # gaming day -> shift of its last opener
        self.event: Event = {}
        self.event_id: str | None = None
        self.seen: set[str] | None = None if read_once else set()
        self.figures: dict[Key, Figures] = {}
        self.entries: list[j.Entry] = []
        self.balances: dict[str, int] = {}
        self.tray_denominations: set[int] = set()
        self.counted_before = False
        self.last_count: tuple[str, dict[int, int], str | None] | None = None  # kind, chips, event
        self.slips: dict[str, Slip] = {}
        self.markers: dict[str, Marker] = {}
        self.redemptions: list[Redemption] = []
        # drops (day, shift) whose count or posting was in a currency the fold could not
        # book: their currency_mismatch says so, the end of day does not say it again
        self.unbookable: set[tuple[str, str | None]] = set()
        self.drops: dict[tuple[str, str | None], Drop] = {}
        # bet -> stake, where, kind; a bet leaves it when settled (what is left of it is in
        # settled), so a long day holds one record of each bet, not two
        self.bets: dict[str, tuple[int, Key, str]] = {}
        # bet -> recorded net, where
        self.settled: MutableMapping[str, tuple[int, Key]] = (
            {} if shelf is None else ShelvedMap(shelf)
        )
        # bets settled before any bet.placed placed them (one placed later stays in bets)
        self.unplaced: set[str] = set()
        self.round_bets: dict[int, list[str]] = {}  # round -> its bets, until all are settled
        self._keys: dict[Key, Key] = {}  # one tuple per (day, shift): every bet holds one
        # per round not yet settled: where its stakes were placed, and each box's initial stake
        self.round_hands: dict[int, tuple[Key, dict[int, int]]] = {}
        self.days_closed: set[str] = set()
        self.findings: list[LedgerFinding] = []
        # gaming day -> (rule set, overrides) of its table.opened; (day, round) -> shift
        self.games: dict[str, tuple[str, dict[str, Any]]] = {}
        self.round_shifts: MutableMapping[tuple[str, int], str] = (
            {} if shelf is None else ShelvedMap(shelf, filter=SMALL_FILTER, grows=True)
        )
        self.counts: list[Count] = []
        # the entries' balances per (day, shift), kept as they are posted
        self._key_balances: dict[tuple[str, str | None], dict[str, int]] = {}

    # --- where ------------------------------------------------------------------------------

    def money(self, amount: int) -> str:
        return format_money(amount, self.currency)

    def chips_text(self, chips: dict[int, int]) -> str:
        parts = ", ".join(f"{n} x {self.money(d)}" for d, n in sorted(chips.items()))
        return f"{self.money(chip_value(chips))} ({parts or 'no chips'})"

    def key(self) -> Key:
        shift = self.opened_shift.get(self.day)
        key = (self.day, shift if shift is not None else self.clock_shift())
        return self._keys.setdefault(key, key)

    def clock_shift(self) -> str:
        """The shift plan's shift at the event's time."""
        labels = self.plan.labels
        return labels[0] if len(labels) == 1 else self.plan.shift_of(self._moment())

    def _moment(self) -> datetime:
        moment = self.event.get("occurred_at")
        if isinstance(moment, datetime):
            return moment
        if isinstance(moment, str):
            return parse_timestamp(moment)
        raise ValueError(f"event {self.event_id}: no occurred_at to find its shift by")

    def booked(
        self, amount: int, currency: str, what: str, key: tuple[str, str | None] | None = None
    ) -> int | None:
        """``amount`` of ``currency`` in the table's currency, to be booked: converted at
        the gaming day's rate where it is another currency and one is recorded (both
        amounts kept: :class:`.figures.Conversion`); None where it cannot be (no rate): a
        ``currency_mismatch`` finding naming ``what``. A table whose currency the record
        has not stated yet (no ``table.opened``) takes any."""
        if currency == self.currency or self.currency == "XXX":
            return amount
        day, shift = key or self.key()
        rate = self.rates.get((day, currency, self.currency))
        if rate is not None:
            converted = convert(amount, currency, self.currency, rate)
            self.conversions.append(
                Conversion(self.event_id, what, day, shift, currency, amount, rate, converted)
            )
            return converted
        self.find(
            "currency_mismatch",
            f"{what}: {format_money(amount, currency)} recorded at a {self.currency} table on gaming day {day}, "
            f"and no rate of {currency} to {self.currency} converts it: not booked.",
            key=key,
            expected=self.currency,
            recorded=format_money(amount, currency),
        )
        return None

    def at(self, key: Key) -> Figures:
        figures = self.figures.get(key)
        if figures is None:
            figures = self.figures[key] = Figures(self.table, key[0], key[1], self.currency)
        return figures

    def find(
        self, kind: str, message: str, *, key: tuple[str, str | None] | None = None, **where: Any
    ) -> None:
        day, shift = key if key is not None else self.key()
        self.findings.append(
            LedgerFinding(
                kind,
                message,
                event=self.event_id,
                table=self.table,
                gaming_day=day,
                shift=shift,
                **where,
            )
        )

    def post(
        self, memo: str, lines: tuple[j.Line, ...], key: tuple[str, str | None] | None = None
    ) -> None:
        if not lines:
            return
        where = key if key is not None else self.key()
        if self.keeps_entries:
            self.entries.append(j.Entry(self.table, where[0], where[1], self.event_id, memo, lines))
        else:
            j.check(memo, lines)
        into = self._key_balances.get(where)
        if into is None:
            into = self._key_balances[where] = {}
        balances = self.balances
        for account, amount in lines:
            balances[account] = balances.get(account, 0) + amount
            into[account] = into.get(account, 0) + amount

    def settle(self, bet: str, net: int, key: Key) -> int:
        """Record ``bet``'s first settlement (``net`` at ``key``); its stake (0: never
        placed). Its placement is let go: all that is asked of a settled bet later is
        whether it was placed (a repeat counts once) and its net and where (a
        correction)."""
        self.settled[bet] = (net, key)
        placed = self.bets.pop(bet, None)
        if placed is None:
            self.unplaced.add(bet)
            return 0
        return placed[0]

    def tray_lines(self, chips: dict[int, int], sign: int) -> list[j.Line]:
        self.tray_denominations.update(chips)
        return [j.Line(j.tray(self.table, d), sign * d * n) for d, n in sorted(chips.items())]

    # --- the fold step ---------------------------------------------------------------------

    def apply(self, event: Event) -> None:
        event_id = event.get("id")
        if event_id is not None:
            event_id = str(event_id)
            if event_id in self.struck:
                if holds_day(event):
                    self._hold(event, event_id)
                return
            seen = self.seen
            if seen is not None:
                if event_id in seen:
                    return
                seen.add(event_id)
        if self.held is not None:
            if event["type"] != "table.opened":
                return  # held: in no gaming day
            self._release(event, event_id)
        handler = HANDLERS.get(event["type"])
        if handler is None:
            return
        self.event = event
        self.event_id = event_id
        if not self.table:
            self.table = str(event.get("stream") or "")
        refused = self.refused
        if refused and event_id in refused:
            if event["type"] in ("fill.voided", "credit.voided"):
                p = event["payload"]
                kind = event["type"].split(".")[0]
                self.find(
                    "unauthorised_void",
                    f"{kind.capitalize()} slip {p['slip']}'s void was not applied: "
                    f"{refused[event_id]}; the slip stands.",
                    slip=p["slip"],
                )
            return
        handler(self, event["payload"])

    def _hold(self, event: Event, event_id: str) -> None:
        """A struck opening whose gaming day is no date: the day before it ends here, and
        what follows is in no day until the next opening (reported on the day it ended, or
        on the next opening's day when there was none before)."""
        if self.held is not None:
            return
        ended = self.day
        payload = event.get("payload")
        recorded = payload.get("gaming_day") if isinstance(payload, Mapping) else None
        self.held = (event.get("version"), str(recorded), ended)
        if ended:
            self.end_of_day(ended)
            self._report_held(event_id, key=(ended, None))
        self.day = ""

    def _release(self, event: Event, event_id: str | None) -> None:
        """The next opening: what follows it is its day's again."""
        held, self.held = self.held, None
        if held is not None and not held[2]:
            payload = event.get("payload")
            day = payload.get("gaming_day") if isinstance(payload, Mapping) else None
            self._report_held(event_id, key=(str(day or ""), None), held=held)

    def _report_held(
        self,
        event_id: str | None,
        *,
        key: tuple[str, str | None],
        held: tuple[int | None, str, str] | None = None,
    ) -> None:
        version, recorded, ended = held or self.held or (None, "", "")
        where = f"from version {version}" if version is not None else "after it"
        saved, self.event_id = self.event_id, event_id
        self.find(
            "no_gaming_day",
            f"The events of table {self.table} {where}, up to its next proper table.opened, follow an opening "
            f"struck by a correction whose gaming day ({recorded!r}) is no calendar date: they are counted in no "
            "gaming day" + (f" - not in {ended}, which that opening ended." if ended else "."),
            key=key,
            recorded=recorded,
        )
        self.event_id = saved

    def end_of_day(self, day: str) -> None:
        """Slips of ``day`` that are under way and neither complete nor voided."""
        if day in self.days_closed or not day:
            return
        self.days_closed.add(day)
        event_id, self.event_id = self.event_id, None
        for slip in self.slips.values():
            if (
                slip.gaming_day != day
                or slip.voided
                or slip.complete
                or "requested" not in slip.steps
            ):
                continue
            done = [step for step in slip.order if step in slip.steps]
            missing = [step for step in slip.order if step not in slip.steps]
            self.find(
                "slip_unfinished",
                f"{slip.kind.capitalize()} slip {slip.number} was {', '.join(done)} but never "
                f"{', '.join(missing)} by the end of gaming day {day}.",
                key=(day, slip.shift),
                slip=slip.number,
                expected=", ".join(slip.order),
                recorded=", ".join(done),
            )
        self.event_id = event_id

    def finish(self) -> None:
        """The checks that need the whole record (:meth:`closing_findings` of every day),
        made once: their findings join the fold's and every day is closed."""
        self.findings.extend(self.closing_findings())
        self.days_closed.update(key[0] for key in self.figures)
        self.days_closed.update(s.gaming_day for s in self.slips.values())

    def closing_findings(
        self, days: Collection[str] | None = None, *, drop_box: Collection[str] | None = None
    ) -> list[LedgerFinding]:
        """The end-of-day checks of ``days`` (every day when None): slips under way and
        neither complete nor voided (of days no later ``table.opened`` closed yet), every
        drop box removed but not counted, or counted (with the custody members) but not
        posted, and buy-ins into a box no drop of the day counted. ``drop_box``: the days
        whose game has a chip tray and a drop box by design - of those, an opening or
        closing count not on record (:func:`.reconcile.counts_missing`) and a day with no
        drop on record at all are findings too (None: not known, not checked). Changes
        nothing, so a fold kept to go on with later (a live projection) can be asked at
        any point."""
        saved = self.findings, self.days_closed, self.event_id
        self.findings, self.days_closed = [], set(self.days_closed)
        try:
            self._closing_checks(days, drop_box)
            return self.findings
        finally:
            self.findings, self.days_closed, self.event_id = saved

    def _closing_checks(
        self, only: Collection[str] | None, drop_box: Collection[str] | None
    ) -> None:
        def wanted(day: str) -> bool:
            return only is None or day in only

        def boxed(day: str) -> bool:
            return drop_box is not None and day in drop_box

        for day in sorted(
            {key[0] for key in self.figures} | {s.gaming_day for s in self.slips.values()}
        ):
            if wanted(day):
                self.end_of_day(day)
        self.event_id = None
        for day in sorted({key[0] for key in self.figures}):
            if not (wanted(day) and boxed(day)):
                continue
            for kind, shift in counts_missing(
                [f for (d, _), f in self.figures.items() if d == day]
            ):
                what = "opening" if kind == "opener_missing" else "closing"
                where = f"gaming day {day}" + (f", shift {shift}" if shift else "")
                self.find(
                    kind, f"No {what} count of the tray is on record for {where}.", key=(day, shift)
                )
        days_with_drop = {day for day, _ in self.drops}
        for (day, shift), drop in self.drops.items():
            if not wanted(day) or (day, shift) in self.unbookable:
                continue
            where = f"gaming day {day}" + (f", shift {shift}" if shift else "")
            if drop.counted is None:
                self.event_id = drop.removed or drop.post_event
                self.find(
                    "drop_not_counted",
                    f"The drop box of {where} was {'removed' if drop.removed else 'posted'} "
                    "but its count is not on record.",
                    key=(day, shift),
                )
            elif drop.posted is None and not drop.legacy:
                self.event_id = drop.count_event
                self.find(
                    "drop_not_posted",
                    f"The drop of {where} was counted ({self.money(sum(drop.counted))}) "
                    "but never posted to the books.",
                    key=(day, shift),
                    expected=self.money(sum(drop.counted)),
                )
        self.event_id = None
        for (day, shift), figures in self.figures.items():
            book = figures.buyins_cash + figures.markers_issued
            if not wanted(day) or day in days_with_drop:
                continue
            if book and figures.closer is not None:
                self.find(
                    "drop_not_counted",
                    f"Gaming day {day}, shift {shift}: {self.money(book)} went into the drop "
                    "box, but no drop of the day was removed or counted.",
                    key=(day, shift),
                    expected=self.money(book),
                )
                days_with_drop.add(day)
            elif boxed(day):
                self.find(
                    "drop_not_counted",
                    f"No drop of gaming day {day} was removed or counted.",
                    key=(day, None),
                )
                days_with_drop.add(day)

    def key_balances(self) -> dict[tuple[str, str | None], dict[str, int]]:
        """Each account's balance per (gaming day, shift) of its entries (shift None: a
        whole day's drop box), summed up to the last entry: kept as each is posted, so
        a fold without entries has them too. The fold's own: copy before changing."""
        return self._key_balances

    def books(
        self,
        *,
        final: bool | Collection[str] = True,
        entries: bool = True,
        drop_box: Collection[str] | None = None,
    ) -> Books:
        """The books as they stand, without changing the fold (it may go on with more
        events). ``final``: the record is complete for every day (True), for none (False),
        or for the days named - their end-of-day checks are made
        (:meth:`closing_findings`, with ``drop_box``). ``entries`` False: without the entries (a live
        projection asks after every batch and reads the balances kept per day and shift;
        copying every entry of a live day each time would cost more than the fold). A
        fold made with ``entries=False`` has none to give: ValueError."""
        if entries and not self.keeps_entries:
            raise ValueError(
                "this fold keeps no entries (Fold(entries=False)): ask books(entries=False)"
            )
        findings = list(self.findings)
        if final is True:
            findings += self.closing_findings(drop_box=drop_box)
        elif final:
            findings += self.closing_findings(final, drop_box=drop_box)
        shifts = {key: copy.copy(figures) for key, figures in self.figures.items()}
        _drops_to_shifts(shifts, self.drops)
        return Books(
            table=self.table,
            currency=self.currency,
            entries=tuple(self.entries) if entries else (),
            shifts=shifts,
            slips=dict(self.slips),
            markers=dict(self.markers),
            redemptions=tuple(self.redemptions),
            conversions=tuple(self.conversions),
            drops=dict(self.drops),
            findings=tuple(findings),
            games=dict(self.games),
            round_shifts=dict(self.round_shifts)
            if isinstance(self.round_shifts, dict)
            else self.round_shifts,
            counts=tuple(self.counts),
            balances={key: dict(b) for key, b in self.key_balances().items()},
            has_entries=entries,
        )


# --- the table and its rounds ----------------------------------------------------------------

Handler = Callable[[Fold, Mapping[str, Any]], None]


def on_table_opened(state: Fold, p: Mapping[str, Any]) -> None:
    if state.day and p["gaming_day"] != state.day:
        state.end_of_day(state.day)
    state.table = p["table"] if not state.table else state.table
    state.currency = p["currency"]
    state.day = p["gaming_day"]
    state.games[state.day] = (p["ruleset"], dict(p.get("rules") or {}))


def on_table_closed(state: Fold, p: Mapping[str, Any]) -> None:
    state.end_of_day(p["gaming_day"])


def on_round_started(state: Fold, p: Mapping[str, Any]) -> None:
    key = state.key()
    state.at(key).rounds += 1
    state.round_shifts[(key[0], p["round"])] = key[1]


def on_bet_placed(state: Fold, p: Mapping[str, Any]) -> None:
    bet = p["bet"]
    if bet in state.bets or (bet in state.settled and bet not in state.unplaced):
        return
    amount = p["amount"]
    key = state.key()
    kind = p["kind"]
    state.bets[bet] = (amount, key, kind)
    state.round_bets.setdefault(p["round"], []).append(bet)
    figures = state.at(key)
    if kind == "main" or kind == "behind":
        hands = state.round_hands.setdefault(p["round"], (key, {}))[1]
        hands[p["box"]] = hands.get(p["box"], 0) + amount
        figures.initial += amount
    elif kind == "insurance":
        figures.insurance += amount
        figures.insurance_squares += amount * amount
    figures.handle += amount
    figures.stake_squares += amount * amount
    figures.bets += 1
    state.post(f"stake {bet}", j.moves((j.PLAYERS, j.layout(state.table), amount)), key)


def _settle(
    state: Fold, stake: int, net: int, payer: str, memo: str, key: Key | None = None
) -> None:
    """The stake comes off the layout; the player gets it back with their net; the payer
    (the tray at the table, the cage for a correction) pays a win or takes a loss."""
    layout, back = j.layout(state.table), stake + net
    lines: tuple[j.Line, ...]
    # the two usual shapes made straight away (a settlement per bet: the fold's commonest posting)
    if stake and net and back:
        lines = (
            new_line(j.Line, (layout, -stake)),
            new_line(j.Line, (j.PLAYERS, back)),
            new_line(j.Line, (payer, -net)),
        )
    elif stake and not back:  # lost: the stake goes to the payer
        lines = (new_line(j.Line, (layout, -stake)), new_line(j.Line, (payer, -net)))
    else:
        lines = tuple(
            j.Line(account, amount)
            for account, amount in ((layout, -stake), (j.PLAYERS, back), (payer, -net))
            if amount
        )
    state.post(memo, lines, key)


def on_round_settled(state: Fold, p: Mapping[str, Any]) -> None:
    key = state.key()
    figures = state.at(key)
    placed = state.round_hands.pop(p["round"], None)
    if placed is not None:  # once per round, where its stakes were placed
        stakes = placed[1].values()
        placed_at = state.at(placed[0])
        placed_at.hand_squares += sum(s * s for s in stakes)
        placed_at.round_squares += sum(stakes) ** 2
    tray = j.tray(state.table, None)
    settled = state.settled
    for item in p["settlements"]:
        bet = item["bet"]
        if bet in settled:
            continue
        net = item["net"]
        figures.settled_win -= net
        _settle(
            state, state.settle(bet, net, key), net, tray, f"settle {bet} ({item['outcome']})", key
        )
    bets = state.round_bets.get(p["round"])
    if bets is not None and all(
        bet in settled for bet in bets
    ):  # a void of it would find none to return
        del state.round_bets[p["round"]]


def on_round_voided(state: Fold, p: Mapping[str, Any]) -> None:
    """Stakes still on the layout go back to the players and out of the handle."""
    state.round_hands.pop(p["round"], None)
    for bet in state.round_bets.get(p["round"], []):
        if bet in state.settled:
            continue
        _, key, kind = state.bets[bet]
        stake = state.settle(bet, 0, key)
        figures = state.at(key)
        figures.handle -= stake
        figures.stake_squares -= stake * stake
        if kind == "main" or kind == "behind":
            figures.initial -= stake
        elif kind == "insurance":
            figures.insurance -= stake
            figures.insurance_squares -= stake * stake
        figures.bets -= 1
        state.post(f"void {bet}", j.moves((j.layout(state.table), j.PLAYERS, stake)), key)


def on_correction_recorded(state: Fold, p: Mapping[str, Any]) -> None:
    """A correction's difference is paid or taken at the cage (the refund of a short pay),
    not from the tray: the chip count does not see it, so it is a known difference between
    chip-count win and recorded win."""
    for item in p["settlements"]:
        bet = item["bet"]
        net = item["net"]
        if bet in state.settled:
            old, key = state.settled[bet]
            delta = net - old
            state.settled[bet] = (net, key)
            state.at(key).corrections -= delta
            state.post(
                f"correct {bet} ({item['outcome']})", j.moves((j.CAGE, j.PLAYERS, delta)), key
            )
        else:
            key = state.bets[bet][1] if bet in state.bets else state.key()
            stake = state.settle(bet, net, key)
            state.at(key).corrections -= net
            _settle(
                state,
                stake,
                net,
                j.CAGE,
                f"correct {bet} ({item['outcome']}), never settled before",
            )


# --- buy-ins and markers ---------------------------------------------------------------------


def _marker_in(state: Fold, amount: int, memo: str) -> None:
    """Chips from the tray to the player; the marker slip (the player's promise) into the
    drop box."""
    table = state.table
    key = state.key()
    state.at(key).markers_issued += amount
    state.post(
        memo,
        j.moves(
            (j.tray(table, None), j.PLAYERS, amount),
            (j.WORLD, j.drop_box(table, "markers"), amount),
        ),
        key,
    )


def on_buyin_recorded(state: Fold, p: Mapping[str, Any]) -> None:
    amount = state.booked(p["amount"], p["currency"], f"A {p['method']} buy-in at box {p['box']}")
    if amount is None:
        return
    if p["method"] == "marker":
        _marker_in(state, amount, f"marker buy-in box {p['box']}")
        return
    table = state.table
    key = state.key()
    state.at(key).buyins_cash += amount
    state.post(
        f"cash buy-in box {p['box']}",
        j.moves(
            (j.tray(table, None), j.PLAYERS, amount), (j.WORLD, j.drop_box(table, "cash"), amount)
        ),
        key,
    )


def on_marker_issued(state: Fold, p: Mapping[str, Any]) -> None:
    number = p["marker"]
    if number in state.markers:
        state.find(
            "duplicate_slip",
            f"Marker {number} is recorded as issued twice; it counts once.",
            slip=number,
            recorded=state.money(p["amount"]),
        )
        state.at(state.key()).duplicates.append((number, p["amount"]))
        return
    state.markers[number] = Marker(
        number,
        p["player"],
        p["amount"],
        event=state.event_id,
        gaming_day=state.key()[0],
        currency=p["currency"],
    )
    amount = state.booked(p["amount"], p["currency"], f"Marker {number}")
    if amount is not None:
        _marker_in(state, amount, f"marker {number}")


def on_marker_redeemed(state: Fold, p: Mapping[str, Any]) -> None:
    number = p["marker"]
    marker = state.markers.get(number)
    state.redemptions.append(
        Redemption(number, p["amount"], p["currency"], p["method"], state.key()[0], state.event_id)
    )
    if marker is not None and marker.currency and p["currency"] != marker.currency:
        # paid in another currency than the marker's: it pays nothing of it in the books
        state.find(
            "currency_mismatch",
            f"Marker {number} ({format_money(marker.amount, marker.currency)}) was redeemed with "
            f"{format_money(p['amount'], p['currency'])}: another currency than the marker's; not booked.",
            slip=number,
            expected=marker.currency,
            recorded=format_money(p["amount"], p["currency"]),
        )
        return
    amount = state.booked(p["amount"], p["currency"], f"A redemption of marker {number}")
    if amount is None:
        return
    if marker is not None:
        marker.redeemed += p["amount"]
    if p["method"] == "chips":
        # the player hands the casino's chips back: they leave the players' hands for the
        # cage, and the promise the marker was is settled (it goes back to the outside world)
        state.post(
            f"marker {number} redeemed (chips)",
            j.moves((j.PLAYERS, j.CAGE, amount), (j.MARKERS_RECEIVABLE, j.WORLD, amount)),
        )
        return
    state.post(
        f"marker {number} redeemed ({p['method']})", j.moves((j.MARKERS_RECEIVABLE, j.CAGE, amount))
    )


# --- inventory counts --------------------------------------------------------------------------


def on_inventory_counted(state: Fold, p: Mapping[str, Any]) -> None:
    """Set the tray's books to the count: each denomination to its counted chips, the
    unsorted chips of play sorted away, and what is left over or short to over/short (the
    table's first count in the record is its imprest, from the cage)."""
    chips = _chips(p["chips"])
    kind = p["kind"]
    day = p["gaming_day"] or state.day
    if kind == "opening":
        if day != state.day and state.day:
            state.end_of_day(state.day)
        state.day = day
        shift = p["shift"] or state.clock_shift()
        state.opened_shift[day] = shift
        previous = state.last_count
        if previous is not None and previous[0] == "closing" and previous[1] != chips:
            state.find(
                "opener_mismatch",
                f"The opener of gaming day {day}, shift {shift} is {state.chips_text(chips)}; "
                f"the closer before it was {state.chips_text(previous[1])}.",
                key=(day, shift),
                slip=p["slip"],
                expected=state.chips_text(previous[1]),
                recorded=state.chips_text(chips),
            )
        key = (day, shift)
        figures = state.at(key)
        if figures.opener is None:
            figures.opener, figures.opener_chips = chip_value(chips), chips
    else:
        key = (day, p["shift"] or state.key()[1])
        figures = state.at(key)
        figures.closer, figures.closer_chips = chip_value(chips), chips
    state.last_count = (kind, chips, state.event_id)
    state.counts.append(
        Count(
            state.event_id,
            key[0],
            key[1],
            kind,
            chips,
            p["slip"],
            p["counted_by"],
            p["witnessed_by"],
        )
    )
    table = state.table
    lines = [
        j.Line(j.tray(table, d), d * chips.get(d, 0) - state.balances.get(j.tray(table, d), 0))
        for d in sorted(state.tray_denominations | set(chips))
    ]
    lines.append(j.Line(j.tray(table, None), -state.balances.get(j.tray(table, None), 0)))
    state.tray_denominations.update(chips)
    rest = -sum(line.amount for line in lines)
    lines.append(j.Line(j.CAGE if not state.counted_before else j.over_short(table), rest))
    memo = f"{kind} count" + (" (imprest brought forward)" if not state.counted_before else "")
    state.counted_before = True
    state.post(memo, tuple(line for line in lines if line.amount), key)


# --- fills and credits -------------------------------------------------------------------------


def _slip(state: Fold, number: str, kind: str) -> Slip:
    slip = state.slips.get(number)
    if slip is None:
        day, shift = state.key()
        slip = state.slips[number] = Slip(number, kind, day, shift)
    return slip


def _step(
    state: Fold, p: Mapping[str, Any], kind: str, step: str, people: dict[str, str | None]
) -> Slip | None:
    """Record a step of a slip; None when the step is a repeat (a duplicate slip, counted
    once). Reports a step with no request and chips that differ from the slip's first step."""
    number = p["slip"]
    slip = _slip(state, number, kind)
    chips = _chips(p["chips"])
    if step in slip.steps:
        state.find(
            "duplicate_slip",
            f"{kind.capitalize()} slip {number} is recorded {step} twice; it counts once.",
            slip=number,
            recorded=state.chips_text(chips),
        )
        state.at(state.key()).duplicates.append((number, chip_value(chips)))
        return None
    legacy = step == slip.table_step and not any(people.values())
    if (
        step != "requested"
        and "requested" not in slip.steps
        and not legacy
        and not slip.legacy
        and not any(s != "requested" for s in slip.steps)
    ):
        state.find(
            "slip_without_request",
            f"{kind.capitalize()} slip {number} was {step} with no request from a floor supervisor on record.",
            slip=number,
            recorded=state.chips_text(chips),
        )
    if slip.steps:
        first_step, (_, reference) = next(iter(slip.steps.items()))
        if reference != chips:
            state.find(
                "slip_mismatch",
                f"{kind.capitalize()} slip {number} was {first_step} for {state.chips_text(reference)} "
                f"but {step} {state.chips_text(chips)}.",
                slip=number,
                expected=state.chips_text(reference),
                recorded=state.chips_text(chips),
            )
    elif legacy:
        slip.legacy = True
    slip.steps[step] = (state.event_id, chips)
    slip.people.update(people)
    return slip


def on_fill_requested(state: Fold, p: Mapping[str, Any]) -> None:
    _step(state, p, "fill", "requested", {"requested_by": p["requested_by"]})


def on_credit_requested(state: Fold, p: Mapping[str, Any]) -> None:
    _step(state, p, "credit", "requested", {"requested_by": p["requested_by"]})


def on_fill_issued(state: Fold, p: Mapping[str, Any]) -> None:
    slip = _step(
        state, p, "fill", "issued", {"issued_by": p["cashier"], "carried_by": p["carried_by"]}
    )
    if slip is not None:
        value = chip_value(slip.steps["issued"][1])
        state.post(f"fill {slip.number} issued", j.moves((j.CAGE, j.transit(state.table), value)))


def _table_step(state: Fold, p: Mapping[str, Any], kind: str) -> None:
    """The tray changes: a fill's chips come in from transit (from the cage, if the record
    never issued them), a credit's go out to transit (to the cage, for a record of
    version 1, which has no cage step)."""
    step = "received" if kind == "fill" else "released"
    slip = _step(state, p, kind, step, {"dealer": p["dealer"], "supervisor": p["supervisor"]})
    if slip is None:
        return
    chips = slip.steps[step][1]
    value = chip_value(chips)
    figures = state.at(state.key())
    if kind == "fill":
        figures.fills += value
        other = j.transit(state.table) if "issued" in slip.steps else j.CAGE
        state.post(
            f"fill {slip.number} received", (j.Line(other, -value), *state.tray_lines(chips, 1))
        )
    else:
        figures.credits += value
        other = j.CAGE if slip.legacy else j.transit(state.table)
        state.post(
            f"credit {slip.number} released", (*state.tray_lines(chips, -1), j.Line(other, value))
        )


def on_chips_filled(state: Fold, p: Mapping[str, Any]) -> None:
    _table_step(state, p, "fill")


def on_chips_credited(state: Fold, p: Mapping[str, Any]) -> None:
    _table_step(state, p, "credit")


def on_credit_received(state: Fold, p: Mapping[str, Any]) -> None:
    slip = _step(
        state, p, "credit", "received", {"received_by": p["cashier"], "carried_by": p["carried_by"]}
    )
    if slip is not None:
        value = chip_value(slip.steps["received"][1])
        state.post(
            f"credit {slip.number} received", j.moves((j.transit(state.table), j.CAGE, value))
        )


def _void(state: Fold, p: Mapping[str, Any], kind: str) -> None:
    number = p["slip"]
    slip = _slip(state, number, kind)
    if slip.voided:
        return
    if p["reason"] is None:
        state.find(
            "void_without_reason",
            f"{kind.capitalize()} slip {number} was voided without a reason.",
            slip=number,
        )
    if slip.table_step in slip.steps:
        state.find(
            "void_after_receipt",
            f"{kind.capitalize()} slip {number} was voided after its chips had moved at the table; they stay counted.",
            slip=number,
            recorded=state.chips_text(slip.steps[slip.table_step][1]),
        )
        return
    slip.voided = True
    slip.void_reason = p["reason"]
    slip.people["voided_by"] = p["voided_by"]
    slip.people["void_witnessed_by"] = p["witnessed_by"]
    if kind == "fill" and "issued" in slip.steps:  # the chips go back to the cage
        value = chip_value(slip.steps["issued"][1])
        state.post(f"fill {number} voided", j.moves((j.transit(state.table), j.CAGE, value)))


def on_fill_voided(state: Fold, p: Mapping[str, Any]) -> None:
    _void(state, p, "fill")


def on_credit_voided(state: Fold, p: Mapping[str, Any]) -> None:
    _void(state, p, "credit")


# --- the drop ----------------------------------------------------------------------------------


def _drop(state: Fold, p: Mapping[str, Any]) -> Drop:
    where = (p["gaming_day"], p["shift"])
    drop = state.drops.get(where)
    if drop is None:
        drop = state.drops[where] = Drop(*where)
    return drop


def _drop_amounts(
    state: Fold, p: Mapping[str, Any], what: str, where: tuple[str, str | None]
) -> tuple[int, int, int] | None:
    """A drop's count or posting (cash, markers, chips) in the table's currency: as
    recorded, or converted at the day's rate (both kept); None - found, not booked -
    where it is in another currency and no rate of the day converts it."""
    amounts = (p["cash"], p["markers"], p["chips"] or 0)
    if p["currency"] == state.currency or state.currency == "XXX":
        return amounts
    day, shift = where
    rate = state.rates.get((day, p["currency"], state.currency))
    if rate is not None:
        cash, markers, chips = (convert(a, p["currency"], state.currency, rate) for a in amounts)
        state.conversions.append(
            Conversion(
                state.event_id,
                f"drop {what}",
                day,
                shift,
                p["currency"],
                sum(amounts),
                rate,
                cash + markers + chips,
            )
        )
        return cash, markers, chips
    box = f"gaming day {day}" + (f", shift {shift}" if shift else "")
    state.find(
        "currency_mismatch",
        f"The drop {what} of {box} is in {p['currency']} ({format_money(sum(amounts), p['currency'])}) at a "
        f"{state.currency} table, and no rate of {p['currency']} to {state.currency} converts it: not booked.",
        key=where,
        expected=state.currency,
        recorded=format_money(sum(amounts), p["currency"]),
    )
    state.unbookable.add(where)
    return None


def _book_drop(state: Fold, day: str, shift: str | None) -> tuple[int, int]:
    """Cash and markers the table's record put into the box (or compartment)."""
    cash = markers = 0
    for (d, s), figures in state.figures.items():
        if d == day and (shift is None or s == shift):
            cash += figures.buyins_cash
            markers += figures.markers_issued
    return cash, markers


def on_drop_removed(state: Fold, p: Mapping[str, Any]) -> None:
    _drop(state, p).removed = state.event_id


def on_drop_counted(state: Fold, p: Mapping[str, Any]) -> None:
    """The count replaces the box's book contents: what the record says went in against
    what the team found goes to over/short (chips found came from players' hands). A
    count without the custody members (version 1) is also its posting: the contents go to
    the cage and the markers to markers receivable at once."""
    drop = _drop(state, p)
    if drop.counted is not None:
        return
    amounts = _drop_amounts(state, p, "count", (drop.gaming_day, drop.shift))
    if amounts is None:
        return
    cash, markers, chips = amounts
    drop.counted = (cash, markers, chips)
    drop.count_event = state.event_id
    drop.legacy = p["shift"] is None and p["chips"] is None and p["team"] is None
    table = state.table
    book_cash, book_markers = _book_drop(state, drop.gaming_day, drop.shift)
    key = (drop.gaming_day, drop.shift)
    state.post(
        "drop counted",
        j.moves(
            (j.over_short(table), j.drop_box(table, "cash"), cash - book_cash),
            (j.over_short(table), j.drop_box(table, "markers"), markers - book_markers),
            (j.PLAYERS, j.drop_box(table, "chips"), chips),
        ),
        key,
    )
    if drop.legacy:
        _post_drop(state, key, (cash, markers, chips))


def _post_drop(state: Fold, key: tuple[str, str | None], amounts: tuple[int, int, int]) -> None:
    table = state.table
    cash, markers, chips = amounts
    state.post(
        "drop posted",
        j.moves(
            (j.drop_box(table, "cash"), j.CAGE, cash),
            (j.drop_box(table, "chips"), j.CAGE, chips),
            (j.drop_box(table, "markers"), j.MARKERS_RECEIVABLE, markers),
        ),
        key,
    )


def on_drop_posted(state: Fold, p: Mapping[str, Any]) -> None:
    drop = _drop(state, p)
    if drop.posted is not None:
        return
    posted = _drop_amounts(state, p, "posting", (drop.gaming_day, drop.shift))
    if posted is None:
        return
    drop.posted = posted
    drop.post_event = state.event_id
    key = (drop.gaming_day, drop.shift)
    if drop.counted is not None and drop.counted != posted:
        names = ("cash", "markers", "chips")
        differ = ", ".join(
            f"{name} {state.money(c)} counted, {state.money(q)} posted"
            for name, c, q in zip(names, drop.counted, posted)
            if c != q
        )
        state.find(
            "drop_mismatch",
            f"The drop of gaming day {drop.gaming_day}"
            + (f", shift {drop.shift}" if drop.shift else "")
            + f" was posted as counted but for: {differ}.",
            key=key,
            expected=state.money(sum(drop.counted)),
            recorded=state.money(sum(posted)),
        )
    _post_drop(state, key, posted)


HANDLERS: dict[str, Handler] = {
    "table.opened": on_table_opened,
    "table.closed": on_table_closed,
    "round.started": on_round_started,
    "bet.placed": on_bet_placed,
    "round.settled": on_round_settled,
    "round.voided": on_round_voided,
    "correction.recorded": on_correction_recorded,
    "buyin.recorded": on_buyin_recorded,
    "marker.issued": on_marker_issued,
    "marker.redeemed": on_marker_redeemed,
    "inventory.counted": on_inventory_counted,
    "fill.requested": on_fill_requested,
    "fill.issued": on_fill_issued,
    "chips.filled": on_chips_filled,
    "fill.voided": on_fill_voided,
    "credit.requested": on_credit_requested,
    "chips.credited": on_chips_credited,
    "credit.received": on_credit_received,
    "credit.voided": on_credit_voided,
    "drop.removed": on_drop_removed,
    "drop.counted": on_drop_counted,
    "drop.posted": on_drop_posted,
}
# the kinds apply folds: an event of any other kind changes nothing in the fold (a caller
# that reads every event of a long stream - the offline auditor - asks this before the call)
FOLDED: frozenset[str] = frozenset(HANDLERS)


@dataclass(frozen=True, slots=True)
class Books:
    """One table's books: every entry, the figures per gaming day and shift, the custody
    of slips, markers and drops, and the custody findings."""

    table: str
    currency: str
    entries: tuple[j.Entry, ...]
    shifts: Mapping[Key, Figures]
    slips: Mapping[str, Slip]
    markers: Mapping[str, Marker]
    drops: Mapping[tuple[str, str | None], Drop]
    findings: tuple[LedgerFinding, ...]
    # gaming day -> (rule set, overrides) of the day's table.opened
    games: Mapping[str, tuple[str, Mapping[str, Any]]] = field(default_factory=dict)
    # (gaming day, round number) -> the shift the round started in
    round_shifts: Mapping[tuple[str, int], str] = field(default_factory=dict)
    # every inventory slip, in the order counted
    counts: tuple[Count, ...] = ()
    # (gaming day, shift) -> {account: balance} of the entries there (shift None: a whole
    # day's drop box)
    balances: Mapping[tuple[str, str | None], Mapping[str, int]] = field(default_factory=dict)
    # False: made without its entries (Fold.books(entries=False)); balances_of still holds
    has_entries: bool = True
    # every marker.redeemed, in the order recorded (a marker issued before the fold's first
    # day has no Marker here, its redemptions still do)
    redemptions: tuple[Redemption, ...] = ()
    # every amount recorded in a foreign currency and booked at its day's rate, both kept
    conversions: tuple[Conversion, ...] = ()

    def days(self) -> list[str]:
        """The gaming days with figures, in order."""
        return sorted({day for day, _ in self.shifts})

    def shifts_of(self, day: str) -> list[Figures]:
        """The day's shifts in the order they were first met."""
        out = [f for (d, _), f in self.shifts.items() if d == day]
        return out

    def shift(self, day: str, shift: str) -> Figures:
        for figures in self.shifts_of(day):
            if figures.shift == shift:
                return figures
        raise KeyError(f"{self.table} has no shift {shift!r} on gaming day {day}")

    def day(self, day: str) -> Figures:
        """The whole gaming day: the opener of its first counted shift and the closer of
        its last (None where that shift lacks it: a day whose last shift has an opener and
        no closer has no closer, so no chip-count win), the sums of the shifts' flows,
        every drop count of the day, and what the tray changed between shifts."""
        shifts = self.shifts_of(day)
        if not shifts:
            raise KeyError(f"{self.table} has no figures for gaming day {day}")
        total = Figures(self.table, day, None, self.currency)
        counted = [f for f in shifts if f.opener is not None or f.closer is not None]
        if counted:
            # the day's opener is its first counted shift's and its closer its last's; where
            # that shift lacks it the day has none (its chip-count win is n/a), never the
            # count of another shift in its place
            first, last = counted[0], counted[-1]
            total.opener, total.opener_chips = first.opener, first.opener_chips
            total.closer, total.closer_chips = last.closer, last.closer_chips
            for before, after in itertools.pairwise(counted):
                if before.closer is not None and after.opener is not None:
                    total.between_shifts += after.opener - before.closer
        for f in shifts:
            for name in (
                "fills",
                "credits",
                "buyins_cash",
                "markers_issued",
                "handle",
                "stake_squares",
                "initial",
                "insurance",
                "insurance_squares",
                "hand_squares",
                "round_squares",
                "settled_win",
                "corrections",
                "rounds",
                "bets",
            ):
                setattr(total, name, getattr(total, name) + getattr(f, name))
            total.duplicates.extend(f.duplicates)
        drops = [
            d.counted
            for (d_day, _), d in self.drops.items()
            if d_day == day and d.counted is not None
        ]
        if drops:
            total.drop_cash = sum(c for c, _, _ in drops)
            total.drop_markers = sum(m for _, m, _ in drops)
            total.drop_chips = sum(ch for _, _, ch in drops)
        return total

    def trial_balance(self, day: str | None = None, shift: str | None = None) -> dict[str, int]:
        """Balances by the entries of the table (of one gaming day, of one shift)."""
        if not self.has_entries:
            raise ValueError(
                "these books were made without their entries: use balances_of(day, shift)"
            )
        return j.trial_balance(
            e
            for e in self.entries
            if (day is None or e.gaming_day == day) and (shift is None or e.shift == shift)
        )

    def missing(self, day: str, *, drop_box: bool) -> tuple[str, ...]:
        """What the day's record lacks (:func:`.reconcile.missing_of`): its counts where
        its game has a drop box, each drop box counted and posted, its slips finished."""
        drops = [
            (d.counted is not None, d.posted is not None or (d.legacy and d.counted is not None))
            for (d_day, _), d in self.drops.items()
            if d_day == day
        ]
        unfinished = sum(
            1
            for s in self.slips.values()
            if s.gaming_day == day and not s.voided and not s.complete and "requested" in s.steps
        )
        return missing_of(
            shifts=self.shifts_of(day), drops=drops, unfinished_slips=unfinished, drop_box=drop_box
        )

    def differences(self, day: str) -> tuple[str, ...]:
        """The custody differences of the day that nothing explains, as the kinds of their
        findings (:data:`.reconcile.DIFFERENCES`): a drop posted other than counted
        (``drop_mismatch``), an amount in another currency that no rate of the day
        converts and that was not booked (``currency_mismatch``), a fill or credit slip whose
        steps disagree (``slip_mismatch``: chips may be left in transit that no count of
        the tray shows). A day with one is never
        reconciled, however small it is."""
        found = {f.kind for f in self.findings if f.gaming_day == day and f.kind in DIFFERENCES}
        if any(
            d.counted is not None and d.posted is not None and d.counted != d.posted
            for (d_day, _), d in self.drops.items()
            if d_day == day
        ):
            found.add("drop_mismatch")
        return tuple(kind for kind in DIFFERENCES if kind in found)

    def balances_of(self, day: str, shift: str | None = None) -> dict[str, int]:
        """:meth:`trial_balance` of one gaming day (or one of its shifts) from the balances
        kept per day and shift (no pass over the entries)."""
        out: dict[str, int] = {}
        for (d, s), balances in self.balances.items():
            if d == day and (shift is None or s == shift):
                for account, amount in balances.items():
                    out[account] = out.get(account, 0) + amount
        return out


def _drops_to_shifts(
    figures_of: Mapping[Key, Figures], drops: Mapping[tuple[str, str | None], Drop]
) -> None:
    """Each shift's drop: its own compartment's count, or the whole day's count where the
    day had one shift (a day of several shifts with one box is reconciled by the day)."""
    per_day: dict[str, list[Figures]] = {}
    for (day, _), figures in figures_of.items():
        per_day.setdefault(day, []).append(figures)
    for day, shifts in per_day.items():
        whole = drops.get((day, None))
        for figures in shifts:
            drop = drops.get((day, figures.shift))
            if drop is None and len(shifts) == 1:
                drop = whole
            if drop is not None and drop.counted is not None:
                figures.drop_cash, figures.drop_markers, figures.drop_chips = drop.counted


def fold(
    events: Iterable[Event],
    *,
    plan: ShiftPlan = WHOLE_DAY,
    final: bool = True,
    refused: Mapping[str, str] | None = None,
    drop_box: Collection[str] | None = None,
    rates: Mapping[tuple[str, str, str], Fraction] | None = None,
) -> Books:
    """Fold one table's events (envelope dicts in version order). ``final``: the record
    is complete for its days - slips still under way and drops not counted or posted are
    findings (a live projection passes False). ``refused``: the money-changing events no
    one with the authority recorded (id -> why), not applied. ``drop_box``: the days whose
    game has a chip tray and a drop box (their counts and a drop must be on record).
    ``rates``: the exchange rates of the days (:class:`Fold`)."""
    events = events if isinstance(events, list) else list(events)
    refused = dict(refused or {})
    state = Fold(
        plan=plan, struck=struck_events(applicable(events, refused)), refused=refused, rates=rates
    )
    for event in events:
        state.apply(event)
    return state.books(final=final, drop_box=drop_box)
