"""One table's gaming days as events, with the faults planned for it planted.

A table's stream, per gaming day: ``table.opened``, ``dealer.assigned``, the opening
``inventory.counted``; then rounds at the table's pace, each preceded by what happens
between rounds (dealer rotations, buy-ins, fills and credits, a new shoe with its cut
and burns when the cut card has come out); then the closing count, ``table.closed`` and
the count room's ``drop.counted``. A live table (``it-live``) has thousands of bettors
on the hands and no chip tray (its players are remote: no buy-ins, counts or drop).

Events leave as chunks of ``(type, payload, microseconds after the start, actor)``,
one chunk per shoe, so that a fault that changes how a shoe was recorded (a hand
shuffle, for an impossible card) can still change its ``shoe.shuffled``.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from audit.record.collector import bulk_work
from audit.record.events.fields import HandAction
from tables.engine.cards import HI_LO, deck
from tables.engine.dealing import (
    OptIn,
    Seats,
    ShoeCursor,
    Stake,
    SystemOffer,
    deal_round,
    shuffle_burns,
)
from tables.engine.money import apply_ratio
from tables.engine.shoes import Shoe, commitment, cut
from tables.engine.strategy import Strategy, computed_strategy
from tables.engine.table_round import Bet, Hand, LiveMemo

from .chips import Tray, chip_list, par_for
from .config import SimConfig, TableSpec, chip_step
from .faults import CLOSING_KINDS, FILL_KINDS, KINDS, ROUND_KINDS, FaultAt
from .planting import PLANTERS, DealtEvents
from .players import Limits, Player

Event = tuple[str, dict[str, Any], int, str]
_HOUR = 3_600_000_000
# what a custody fault takes from the tray or the drop: above the variance report threshold
# (N.J.A.C. 13:69D-1.21(e): $25)
_MISSING = 10_000
_NOT_PLANTED = {
    "round": "no round of the table allowed it",
    "fill": "no fill or credit after it (a table with no chip tray?)",
    "opening": "no gaming day opened after it with a count before it (simulate two days or more)",
    "closing": "no gaming day closed after it with a chip tray",
}


class Seated(Seats):
    """The people at a table with a chip tray, by player id; no cash-outs here."""

    def __init__(self, table: TableSim) -> None:
        self.table = table
        self.players = table.people

    def decide(self, bet: Bet, hand: Hand, up: str, legal: frozenset[HandAction]) -> HandAction:
        player = self.players[bet.player or ""]
        action = player.decide(hand.cards, up, legal, hand.from_split)
        if player.kind == "casual":
            # what was planted: a casual player's play that is not the chart's (the
            # analytics' strategy accuracy must find exactly these)
            chart = player.strategy.action(hand.cards, up, legal, split_done=hand.from_split)
            if action != chart:
                table = self.table
                table.strategy_errors.append(
                    {
                        "table": table.code,
                        "gaming_day": table.gaming_day,
                        "round": table.number,
                        "box": bet.box,
                        "hand": hand.number,
                        "player": player.id,
                        "cards": list(hand.cards),
                        "up": up,
                        "from_split": hand.from_split,
                        "action": action,
                        "chart": chart,
                    }
                )
        return action

    def insure(self, bet: Bet) -> int:
        return self.players[bet.player or ""].insurance(
            bet.amount, self.table.rules, self.table.true_count()
        )

    def even_money(self, bet: Bet) -> bool:
        return self.players[bet.player or ""].even_money()

    def opt_in(self, bet: Bet, action: OptIn) -> bool:
        return self.players[bet.player or ""].follows(action)


class Crowd(Seats):
    """The live game's bettors: they share the hands (the dealer plays them), opt in to
    doubles and split hands, insure now and then and take a cash-out offer sometimes."""

    def __init__(self, table: TableSim) -> None:
        self.table = table
        self.rng = table.rng

    def insure(self, bet: Bet) -> int:
        if self.rng.random() < 0.1:
            return apply_ratio(bet.amount, (1, 2), self.table.rules.rounding)
        return 0

    def opt_in(self, bet: Bet, action: OptIn) -> bool:
        return self.rng.random() < 0.5

    def offer(self, bet: Bet, hand: Hand, up: str, system: SystemOffer) -> int | None:
        """The system's offer, on a hand's first two cards, to the half of the bettors
        who have offers switched on."""
        if len(hand.cards) != 2 or self.rng.random() < 0.5:
            return None
        return system(bet)

    def accept(self, bet: Bet, amount: int) -> bool:
        return self.rng.random() < 0.2


class TableSim:
    """Generates one table's events; ``planted`` lists the faults as they were planted."""

    def __init__(self, config: SimConfig, spec: TableSpec) -> None:
        self.config = config
        self.spec = spec
        self.code = spec.code
        self.rules = spec.rules
        root = config.root
        self.rng = random.Random(f"{root}/{spec.code}/play")
        self.fault_rng = random.Random(f"{root}/{spec.code}/faults")
        self.shuffler: random.Random = random.Random(0) if config.seeded else random.SystemRandom()
        self.live = spec.live
        self.limits = Limits(spec.min_bet, spec.max_bet, chip_step(self.rules))
        # the players' computed basic strategy (the live game's dealer plays it too)
        self.strategy: Strategy | None = computed_strategy(self.rules) if not spec.live else None
        self.people: dict[str, Player] = {}  # every player who sat or bet at the table, by id
        self.seats: Seats = Crowd(self) if self.live else Seated(self)
        self.memo: LiveMemo = {}
        # the stream
        self.version = 0  # events handed out so far
        self.buffer: list[Event] = []
        self.clock = 0
        self.planted: list[dict[str, Any]] = []
        self.marks: dict[int, dict[str, Any]] = {}
        self.pending = sorted(
            (f for f in config.at if f.table == spec.code), key=lambda f: (f.round, f.kind)
        )
        self.not_planted: list[dict[str, Any]] = []
        self.strategy_errors: list[dict[str, Any]] = []  # casual players' plays off the chart
        # the shoe: its order, the dealer's place in it and the cards out before the round
        self.order: tuple[str, ...] = ()
        self.cursor: ShoeCursor | None = None
        self.pos = 0
        self.round_pos = 0
        self.cut_card = 0
        self.shoe_no = 0
        self.shoe_id = ""
        self.shuffled: dict[str, Any] | None = None
        self.shoe_faults: set[str] = set()
        self.running = 0
        # the game
        self.number = 0
        self.dealer = ""
        self.carried: list[Stake] = []
        self.players: dict[int, Player] = {}
        self.back: list[Player] = []
        self.player_no = 0
        self.tray: Tray | None = None
        self.drop_cash = 0
        self.drop_markers = 0
        self.slip_no = 0
        self.markers: list[tuple[str, int]] = []  # issued today, not yet redeemed: (number, amount)
        self.gaming_day = ""
        self.day_no = 0
        self.settled_rounds = 0

    # --- output ---------------------------------------------------------------------------

    def emit(self, type: str, payload: dict[str, Any], actor: str) -> int:
        self.clock += 1_000_000
        self.buffer.append((type, payload, self.clock, actor))
        return self.version + len(self.buffer)

    def flush(self) -> list[Event]:
        chunk, self.buffer = self.buffer, []
        self.version += len(chunk)
        return chunk

    def plant(
        self,
        kind: str,
        at_version: int,
        type: str,
        *,
        round: int | None,
        requested: FaultAt | None = None,
        **where: Any,
    ) -> dict[str, Any]:
        fault = KINDS[kind]
        record: dict[str, Any] = {
            "kind": kind,
            "table": self.code,
            "round": round,
            "gaming_day": self.gaming_day,
            "event": {"version": at_version, "id": None, "type": type},
            "finding": {"kind": fault.finding, "check": fault.check, "round": round, **where},
            "detail": fault.what,
        }
        if requested is not None:
            record["requested_round"] = requested.round
        self.planted.append(record)
        self.marks[at_version] = record
        return record

    # --- the days -----------------------------------------------------------------------

    def run(self) -> Iterator[list[Event]]:
        config = self.config
        step = int(config.round_seconds * 1_000_000)
        day_offset = 0
        for day in range(config.days):
            self.day_no = day
            start, self.gaming_day = config.day(day)
            day_offset = int((start - config.clock_start).total_seconds()) * 1_000_000
            self.clock = max(self.clock, day_offset)
            self.open_day()
            per_day = config.rounds_of_day(day)
            played = 0
            while played < per_day or self.carried:
                round_start = day_offset + 600_000_000 + played * step
                self.clock = max(self.clock, round_start - 30_000_000)
                self.rotate(played * step)
                yield from self.between_rounds(played)
                self.clock = max(self.clock, round_start)
                # bulk work (a live round deals 10,000 bets): the collector's young
                # threshold raised while the round is dealt (audit.record.collector)
                with bulk_work():
                    self.play_round(step)
                played += 1
            yield from self.close_day()
        for fault in self.pending:
            self.not_planted.append(
                {
                    "kind": fault.kind,
                    "table": fault.table,
                    "round": fault.round,
                    "reason": _NOT_PLANTED[KINDS[fault.kind].moment],
                }
            )
        yield self.flush()

    def dealer_at(self, offset: int) -> str:
        shift = (self.day_no * 24 * _HOUR + offset) // (4 * _HOUR)  # 4-hour shifts
        slot = offset // (1_800_000_000)  # a new dealer every half hour
        return f"D-{shift % 6 + 1}{(self.spec.index + slot) % 12 + 1:02d}"

    def pit_boss(self) -> str:
        return f"PB-{self.day_no % 3 + 1}"

    def rotate(self, offset: int) -> None:
        dealer = self.dealer_at(offset)
        if dealer != self.dealer:
            self.dealer = dealer
            self.emit("dealer.assigned", {"dealer": dealer}, f"user:{self.pit_boss()}")

    def open_day(self) -> None:
        spec = self.spec
        boss = f"user:{self.pit_boss()}"
        self.emit(
            "table.opened",
            {
                "table": spec.code,
                "ruleset": self.rules.name,
                "min_bet": spec.min_bet,
                "max_bet": spec.max_bet,
                "currency": self.config.currency,
                "gaming_day": self.gaming_day,
                "rules": {},
            },
            boss,
        )
        self.dealer = ""
        self.rotate(0)
        self.drop_cash = self.drop_markers = 0
        if not self.live:
            gone = 0
            if self.tray is None:
                self.tray = Tray(par_for(spec.max_bet))
            elif self.due("opener_mismatch", self.number + 1, per_day=True):
                gone = self.tray.lose(_MISSING)
            version = self.count("opening")
            if gone:
                self.plant(
                    "opener_mismatch",
                    version,
                    "inventory.counted",
                    round=None,
                    gaming_day=self.gaming_day,
                    variance=-gone,
                    requested=self._claimed,
                )
        self.order = ()  # a new day opens with a new shoe

    def count(self, kind: str) -> int:
        """An inventory slip of the tray as it is: counted by the dealer, witnessed by the
        floor supervisor."""
        assert self.tray is not None
        return self.emit(
            "inventory.counted",
            {
                "kind": kind,
                "chips": chip_list(self.tray.counts),
                "counted_by": self.dealer,
                "witnessed_by": self.pit_boss(),
                "gaming_day": self.gaming_day,
                "slip": self.next_slip("I"),
            },
            f"user:{self.pit_boss()}",
        )

    def close_day(self) -> Iterator[list[Event]]:
        """The closing count, ``table.closed`` and the drop, with at most one closing
        fault (a variance cannot be seen on a day whose drop was never counted)."""
        boss = f"user:{self.pit_boss()}"
        fault: str | None = None
        claimed: FaultAt | None = None
        if not self.live:
            assert self.tray is not None
            fault = next(
                (kind for kind in CLOSING_KINDS if self.due(kind, self.number, per_day=True)), None
            )
            claimed = self._claimed
            gone = self.tray.lose(_MISSING) if fault == "chip_variance" else 0
            if fault != "closer_missing":
                version = self.count("closing")
            if gone:
                self.plant(
                    "chip_variance",
                    version,
                    "inventory.counted",
                    round=None,
                    gaming_day=self.gaming_day,
                    variance=-gone,
                    requested=claimed,
                )
        version = self.emit("table.closed", {"gaming_day": self.gaming_day}, boss)
        if fault == "closer_missing":  # the table closed with no closing count of its tray
            self.plant(
                fault,
                version,
                "table.closed",
                round=None,
                gaming_day=self.gaming_day,
                requested=claimed,
            )
        if not self.live:
            self.clock += 8 * _HOUR  # the count room counts the next morning
            self.drop(fault, claimed)
            self.redeem_markers()
        yield self.flush()

    def redeem_markers(self) -> None:
        """Half the day's markers are paid at the cage the morning after, the rest later."""
        for marker, amount in self.markers:
            if self.rng.random() < 0.5:
                self.emit(
                    "marker.redeemed",
                    {
                        "marker": marker,
                        "amount": amount,
                        "currency": self.config.currency,
                        "method": "cash",
                        "received_by": "CG-1",
                    },
                    "user:cage",
                )
        self.markers = []

    def drop(self, fault: str | None, claimed: FaultAt | None) -> None:
        """The drop box from the table to the books: removed by security, counted by the
        count team, posted by accounting - or a closing fault on the way."""
        day, currency = self.gaming_day, self.config.currency
        version = self.emit(
            "drop.removed",
            {
                "gaming_day": day,
                "shift": None,
                "box": f"DB-{self.code}",
                "removed_by": "SEC-1",
                "witnessed_by": self.pit_boss(),
            },
            "user:SEC-1",
        )
        if fault == "drop_not_counted":
            self.plant(
                fault, version, "drop.removed", round=None, gaming_day=day, requested=claimed
            )
            return
        cash, markers = self.drop_cash, self.drop_markers
        version = self.emit(
            "drop.counted",
            {
                "gaming_day": day,
                "cash": cash,
                "markers": markers,
                "chips": 0,
                "currency": currency,
                "counted_by": "CR-1",
                "team": ["CR-2", "CR-3"],
            },
            "user:CR-1",
        )
        if fault == "drop_not_posted":
            self.plant(
                fault, version, "drop.counted", round=None, gaming_day=day, requested=claimed
            )
            return
        posted = cash
        if fault == "drop_mismatch":
            posted = cash - _MISSING if cash >= _MISSING else cash + _MISSING
        version = self.emit(
            "drop.posted",
            {
                "gaming_day": day,
                "shift": None,
                "cash": posted,
                "markers": markers,
                "chips": 0,
                "currency": currency,
                "posted_by": "ACC-1",
            },
            "user:ACC-1",
        )
        if fault == "drop_mismatch":
            self.plant(fault, version, "drop.posted", round=None, gaming_day=day, requested=claimed)

    # --- faults: what is due --------------------------------------------------------------

    _claimed: FaultAt | None = None

    def due(self, kind: str, number: int, *, per_day: bool = False) -> bool:
        """Is a fault of ``kind`` to be planted now? An asked-for one at or before this
        round (for a per-day fault: within this day), or one drawn at its rate."""
        self._claimed = None
        for fault in self.pending:
            if fault.kind == kind and (
                fault.round <= number or per_day and fault.round <= self.number
            ):
                self._claimed = fault
                self.pending.remove(fault)
                return True
        rate = self.config.rates.get(kind)
        return bool(rate) and self.fault_rng.random() < rate  # type: ignore[operator]

    def round_faults(self, number: int) -> list[tuple[str, FaultAt | None]]:
        """The round-changing faults to try on round ``number``, asked-for ones first."""
        wanted: list[tuple[str, FaultAt | None]] = [
            (f.kind, f) for f in self.pending if f.kind in ROUND_KINDS and f.round <= number
        ]
        for kind in sorted(self.config.rates):
            if kind in ROUND_KINDS and self.fault_rng.random() < self.config.rates[kind]:
                wanted.append((kind, None))
        return wanted

    # --- between rounds -----------------------------------------------------------------

    def new_player(self, box: int, kind: str | None = None) -> Player:
        self.player_no += 1
        kind = kind or self.rng.choice(self.config.players)
        assert self.strategy is not None
        player = Player(
            f"P{self.spec.index + 1:02d}-{self.player_no:05d}",
            kind,
            box,
            self.rng,
            self.strategy,
            self.limits,
        )
        self.people[player.id] = player
        return player

    def seat_players(self) -> None:
        rng = self.rng
        boxes = self.rules.boxes
        carried_boxes = {s.box for s in self.carried}
        for box in list(self.players):
            if box not in carried_boxes and rng.random() < 1 / 40:
                del self.players[box]
        want = self.config.seats if self.config.seats is not None else None
        free = [b for b in range(1, boxes + 1) if b not in self.players]
        if want is not None:
            while len(self.players) < want and free:
                box = free.pop(0)
                self.players[box] = self.new_player(box)
        else:
            joining = (
                rng.randint(2, 4)
                if not self.players
                else int(len(self.players) < 5 and rng.random() < 0.05)
            )
            for box in rng.sample(free, joining):
                self.players[box] = self.new_player(box)
        if self.rules.back_betting and not self.back:
            self.back = [self.new_player(0, "back") for _ in range(4)]

    def buy_in(self, player: Player, need: int) -> None:
        assert self.tray is not None
        step = self.limits.step
        amount = max(need * 4, player.unit * 20)
        amount -= amount % step
        if (
            amount >= 50_000 and self.rng.random() < 0.2
        ):  # on credit: a marker, approved by the pit boss
            marker = self.next_slip("M")
            self.emit(
                "marker.issued",
                {
                    "marker": marker,
                    "player": player.id,
                    "box": player.box or None,
                    "amount": amount,
                    "currency": self.config.currency,
                    "approved_by": self.pit_boss(),
                    "dealer": self.dealer,
                },
                f"dealer:{self.dealer}",
            )
            self.markers.append((marker, amount))
            self.drop_markers += amount
        else:
            self.emit(
                "buyin.recorded",
                {
                    "box": player.box or None,
                    "player": player.id,
                    "method": "cash",
                    "amount": amount,
                    "currency": self.config.currency,
                },
                f"dealer:{self.dealer}",
            )
            self.drop_cash += amount
        self.tray.pay(amount)
        player.stack += amount
        player.buyins += 1

    def fill_or_credit(self, number: int) -> None:
        """Bring the tray back towards par: a fill slip through its steps (requested by
        the floor supervisor, issued by the cage, received at the table), a credit slip
        through its own (requested, released at the table, received at the cage). A fill
        fault due now rides on a fill (one forced if the tray needs none) or on a slip of
        its own."""
        tray = self.tray
        assert tray is not None
        fault = next((kind for kind in FILL_KINDS if self.due(kind, number)), None)
        claimed = self._claimed
        if fault in ("void_without_reason", "fill_unfinished"):
            self.stray_fill(fault, claimed)
            fault = None
        chips = tray.due_fill()
        if fault and not chips:
            chips = tray.quarter_par()
        if chips:
            self.fill(chips, fault, claimed)
        chips = tray.due_credit()
        if chips:
            slip, boss = self.next_slip("C"), self.pit_boss()
            listed = chip_list(chips)
            self.emit(
                "credit.requested",
                {"slip": slip, "chips": listed, "requested_by": boss},
                f"user:{boss}",
            )
            self.emit(
                "chips.credited",
                {"slip": slip, "chips": listed, "dealer": self.dealer, "supervisor": boss},
                f"dealer:{self.dealer}",
            )
            tray.credit(chips)
            self.emit(
                "credit.received",
                {"slip": slip, "chips": listed, "cashier": "CG-1", "carried_by": "SEC-1"},
                "user:cage",
            )

    def next_slip(self, prefix: str) -> str:
        self.slip_no += 1
        return f"{prefix}-{self.spec.index + 1:02d}{self.slip_no:05d}"

    def fill(self, chips: dict[int, int], fault: str | None, claimed: FaultAt | None) -> None:
        assert self.tray is not None
        slip, boss = self.next_slip("F"), self.pit_boss()
        listed = chip_list(chips)
        if fault != "fill_without_request":
            self.emit(
                "fill.requested",
                {"slip": slip, "chips": listed, "requested_by": boss},
                f"user:{boss}",
            )
        # the event that shows the fault: the cage's issue of an unrequested fill, unless a later step shows it
        shown = (
            self.emit(
                "fill.issued",
                {"slip": slip, "chips": listed, "cashier": "CG-1", "carried_by": "SEC-1"},
                "user:cage",
            ),
            "fill.issued",
        )
        received = dict(chips)
        if fault == "fill_short":
            received[min(received)] -= 1
        table_step = {
            "slip": slip,
            "chips": chip_list(received),
            "dealer": self.dealer,
            "supervisor": boss,
        }
        step = self.emit("chips.filled", table_step, f"dealer:{self.dealer}")
        self.tray.fill(received)
        if fault == "fill_short":
            shown = (step, "chips.filled")
        elif fault == "fill_twice":
            shown = (
                self.emit("chips.filled", dict(table_step), f"dealer:{self.dealer}"),
                "chips.filled",
            )
        elif fault == "void_after_receipt":
            shown = (
                self.emit(
                    "fill.voided",
                    {
                        "slip": slip,
                        "reason": "entered in error",
                        "voided_by": boss,
                        "witnessed_by": "CG-1",
                    },
                    f"user:{boss}",
                ),
                "fill.voided",
            )
        if fault:
            self.plant(
                fault, *shown, round=None, slip=slip, gaming_day=self.gaming_day, requested=claimed
            )

    def stray_fill(self, fault: str, claimed: FaultAt | None) -> None:
        """A fill slip that moves no chips at the table: voided with no reason, or issued by
        the cage and then lost track of."""
        assert self.tray is not None
        slip, boss = self.next_slip("F"), self.pit_boss()
        listed = chip_list(self.tray.quarter_par())
        self.emit(
            "fill.requested", {"slip": slip, "chips": listed, "requested_by": boss}, f"user:{boss}"
        )
        if fault == "void_without_reason":
            version = self.emit(
                "fill.voided",
                {"slip": slip, "reason": None, "voided_by": boss, "witnessed_by": "CG-1"},
                f"user:{boss}",
            )
            type = "fill.voided"
        else:
            version = self.emit(
                "fill.issued",
                {"slip": slip, "chips": listed, "cashier": "CG-1", "carried_by": "SEC-1"},
                "user:cage",
            )
            type = "fill.issued"
        self.plant(
            fault,
            version,
            type,
            round=None,
            slip=slip,
            gaming_day=self.gaming_day,
            requested=claimed,
        )

    def between_rounds(self, played: int) -> Iterator[list[Event]]:
        number = self.number + 1
        if not self.live:
            self.seat_players()
            self.fill_or_credit(number)
        if not self.order or self.pos >= self.cut_card:
            yield self.flush()
            self.new_shoe()

    # --- the shoe ---------------------------------------------------------------------------

    def new_shoe(self) -> None:
        rules = self.rules
        self.shoe_no += 1
        shoe = f"{self.code}-S{self.day_no + 1}.{self.shoe_no}"
        if self.config.seeded:
            seed: str | None = f"{self.config.seed}/{self.code}/{self.shoe_no}"
            order = Shoe.shuffled(shoe, decks=rules.decks, seed=seed).order  # type: ignore[arg-type]
            assert order is not None
        else:
            seed = None
            cards = list(deck() * rules.decks)
            self.shuffler.shuffle(cards)
            order = tuple(cards)
        size = len(order)
        self.shuffled = {
            "shoe": shoe,
            "decks": rules.decks,
            "method": "rng",
            "order": list(order),
            "commitment": commitment(order),
            "seed": seed,
        }
        self.emit("shoe.shuffled", self.shuffled, f"device:shuffler-{self.code}")
        rng = self.rng
        position = rng.randint(size // 4, 3 * size // 4)
        behind = (
            rng.randint(*rules.penetration)
            if rules.penetration
            else rng.randint(size // 5, size // 4)
        )
        self.cut_card = size - behind
        self.emit(
            "shoe.cut",
            {"shoe": shoe, "position": position, "cut_card": self.cut_card},
            f"dealer:{self.dealer}",
        )
        self.order = cut(order, position)
        self.cursor = cursor = ShoeCursor(Shoe(shoe, rules.decks, self.order, seed))
        self.shoe_id = shoe
        self.shoe_faults = set()
        self.running = 0
        for _ in range(shuffle_burns(rules)):
            self.emit(
                "card.burned",
                {
                    "shoe": shoe,
                    "round": None,
                    "card": cursor.next(),
                    "face": "down",
                    "reason": "after_shuffle",
                },
                f"dealer:{self.dealer}",
            )
        self.pos = cursor.pos

    def true_count(self) -> float:
        left = (len(self.order) - self.pos) / 52
        return self.running / left if left > 0.25 else 0.0

    # --- a round ------------------------------------------------------------------------

    def stakes(self, number: int) -> list[Stake]:
        if self.live:
            rng = self.rng
            amounts = (100, 100, 200, 500, 500, 1_000, 2_000, 2_500, 5_000, 10_000)
            boxes = self.rules.boxes
            return [
                Stake(f"r{number}-{i}", i % boxes + 1, amounts[rng.randrange(10)], f"L{i:06d}")
                for i in range(self.config.live_bets)
            ]
        stakes = list(self.carried)
        carried_players = {s.player for s in stakes}
        limits = self.limits
        tc = self.true_count()
        for box in sorted(self.players):
            player = self.players[box]
            if player.id in carried_players:
                continue
            stakes.append(Stake(f"r{number}-b{box}", box, player.stake(limits, tc), player.id))
        if self.rules.back_betting and self.players:
            mains = [s for s in stakes if s.kind == "main"]
            for k, back in enumerate(self.back):
                if back.id not in carried_players and self.rng.random() < 0.3:
                    main = mains[self.rng.randrange(len(mains))]
                    back.box = main.box
                    stakes.append(
                        Stake(
                            f"r{number}-k{k}",
                            main.box,
                            back.stake(limits, tc),
                            back.id,
                            "behind",
                            main.bet,
                        )
                    )
        people = self.people
        for stake in stakes:
            player = people[stake.player or ""]
            if (
                stake.parent is None or stake.kind == "behind"
            ):  # a carried stake is on the layout already
                if player.stack < 3 * stake.amount:
                    self.buy_in(player, stake.amount)
                player.stack -= stake.amount
        return stakes

    def play_round(self, step: int) -> None:
        self.number += 1
        number = self.number
        stakes = self.stakes(number)
        faults = self.round_faults(number)
        # a fault of the dealer's own play is dealt as the dealer's mistake
        mistaken = next((f for f in faults if PLANTERS[f[0]].mistake is not None), None)
        while True:
            cursor = self.cursor
            assert cursor is not None
            try:
                self.round_pos = self.pos
                dealt = deal_round(
                    self.rules,
                    cursor,
                    number,
                    stakes,
                    self.seats,
                    min_bet=self.spec.min_bet,
                    max_bet=self.spec.max_bet,
                    memo=self.memo,
                    mistake=PLANTERS[mistaken[0]].mistake if mistaken is not None else None,
                )
                break
            except (
                IndexError
            ):  # the shoe ran out mid-round (a small deck): deal it again from a new one
                self.new_shoe()
        events = dealt.events
        r = dealt.round
        assert r is not None
        record = DealtEvents(events, r, number, self.version + len(self.buffer) + 1, dealt.mistaken)
        planted: tuple[str, FaultAt | None] | None = None
        if mistaken is not None and dealt.mistaken:
            PLANTERS[mistaken[0]].plant(self, mistaken[0], record, mistaken[1])
            planted = mistaken
        else:
            for kind, requested in faults:
                planter = PLANTERS[kind]
                if planter.mistake is None and planter.plant(self, kind, record, requested):
                    planted = (kind, requested)
                    break
        if planted is not None and planted[1] is not None:
            self.pending.remove(planted[1])
        # the record of the round, spread over its time at the table
        n = len(events)
        gap = min(1_000_000, int(step * 0.8) // (n + 1))
        start = self.clock
        actor = f"dealer:{self.dealer}"
        buffer = self.buffer
        for i, (type, payload) in enumerate(events):
            buffer.append((type, payload, start + (i + 1) * gap, actor))
        self.clock = start + (n + 1) * gap
        # chips and stacks follow what was recorded
        settled = events[-1][1]["settlements"]
        bets = r.bets
        for s in settled:
            bet = bets[s["bet"]]
            net = s["net"]
            if self.tray is not None:
                if net > 0:
                    self.tray.pay(net)
                elif net < 0:
                    self.tray.take(-net)
                player = self.people.get(bet.player or "")
                if player is not None:
                    if bet.kind not in ("main", "behind"):
                        player.stack -= bet.amount
                    if s["outcome"] != "carried":
                        player.stack += bet.amount + net
        count = self.running
        for card in self.order[self.round_pos : cursor.pos]:
            count += HI_LO[card]
        self.running = count
        self.pos = cursor.pos
        self.carried = [
            Stake(
                f"r{number + 1}-c{i}",
                bets[s.bet].box,
                bets[s.bet].amount,
                bets[s.bet].player,
                "main",
                s.bet,
            )
            for i, s in enumerate(dealt.settlements)
            if s.outcome == "carried" and bets[s.bet].kind != "insurance"
        ]
