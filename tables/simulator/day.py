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
from collections.abc import Callable, Iterator
from typing import Any

from tables.engine.cards import RANKS, VALUE, deck
from tables.engine.math.cashout import cashout_offer
from tables.engine.math.composition import remaining
from tables.engine.money import apply_ratio
from tables.engine.shoes import Shoe, commitment, cut
from tables.engine.table_round import Bet, Hand, Round

from .chips import Tray, chip_list, par_for
from .config import SimConfig, TableSpec, chip_step
from .dealer import deal_round
from .faults import KINDS, ROUND_KINDS, FaultAt
from .players import HI_LO_CARD, Limits, Player, strategy_for

Event = tuple[str, dict[str, Any], int, str]
# the house's share of a hand's value on a cash-out, where the engine's rule set has none
CASHOUT_MARGIN = (1, 50)
_HOUR = 3_600_000_000


class Seated:
    """The :class:`.dealer.Seats` of a table with a chip tray: players by id."""

    def __init__(self, table: TableSim) -> None:
        self.table = table
        self.players = table.people

    def decide(self, bet: Bet, hand: Hand, up: str, legal: frozenset[str]) -> str:
        return self.players[bet.player or ""].decide(hand.cards, up, legal, hand.from_split)

    def insure(self, bet: Bet) -> int:
        return self.players[bet.player or ""].insurance(bet.amount, self.table.rules, self.table.true_count())

    def even_money(self, bet: Bet) -> bool:
        return self.players[bet.player or ""].even_money()

    def opt_in(self, bet: Bet, action: str) -> bool:
        return self.players[bet.player or ""].follows(action)

    def offer(self, round: Round, hand: Hand) -> None:
        return None

    def accept(self, bet: Bet, amount: int) -> bool:
        return False


class Crowd:
    """The live game's bettors: they share the hands, opt in to doubles and split hands,
    insure now and then and take a cash-out offer sometimes."""

    def __init__(self, table: TableSim) -> None:
        self.table = table
        self.rng = table.rng

    def decide(self, bet: Bet, hand: Hand, up: str, legal: frozenset[str]) -> str:  # pragma: no cover - the dealer plays
        raise AssertionError("the live game's dealer plays every hand")

    def insure(self, bet: Bet) -> int:
        if self.rng.random() < 0.1:
            return apply_ratio(bet.amount, (1, 2), self.table.rules.rounding)
        return 0

    def even_money(self, bet: Bet) -> bool:
        return False

    def opt_in(self, bet: Bet, action: str) -> bool:
        return self.rng.random() < 0.5

    def offer(self, round: Round, hand: Hand) -> Callable[[Bet], int | None]:
        table = self.table
        rules = table.rules
        dealt = len(round.dealer) + sum(len(h.cards) for h in round.hands.values())
        seen = table.order[: table.round_pos + dealt]
        left = remaining(rules.decks, seen)
        if table.left_adjust is not None:  # replay's view of a shoe with an impossible card in it
            left = tuple(a + b for a, b in zip(left, table.left_adjust, strict=True))
        value = cashout_offer(hand.cards, round.dealer[0], left, stake=0, rules=rules,
                              margin=getattr(rules, "cashout_margin", CASHOUT_MARGIN), split_done=hand.from_split)
        share = value.expected_return * (1 - value.margin)
        ratio = (share.numerator, share.denominator) if share else (0, 1)
        rounding = rules.rounding
        rng = self.rng

        def amount(bet: Bet) -> int | None:
            if rng.random() < 0.5:
                return None  # this player has offers switched off
            return apply_ratio(bet.amount, ratio, rounding) if ratio[0] else 0

        return amount

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
        # the players' computed basic strategy (the live game's dealer plays the engine's own)
        self.strategy = strategy_for(self.rules) if not spec.live else None
        self.people: dict[str, Player] = {}  # every player who sat or bet at the table, by id
        self.seats: Seated | Crowd = Crowd(self) if self.live else Seated(self)
        self.memo: dict[tuple[object, ...], str] = {}
        # the stream
        self.version = 0  # events handed out so far
        self.buffer: list[Event] = []
        self.clock = 0
        self.planted: list[dict[str, Any]] = []
        self.marks: dict[int, dict[str, Any]] = {}
        self.pending = sorted((f for f in config.at if f.table == spec.code), key=lambda f: (f.round, f.kind))
        self.not_planted: list[dict[str, Any]] = []
        # the shoe
        self.order: tuple[str, ...] = ()
        self.pos = 0
        self.round_pos = 0
        self.cut_card = 0
        self.shoe_no = 0
        self.shoe_id = ""
        self.shuffled: dict[str, Any] | None = None
        self.shoe_faults: set[str] = set()
        # cards by value that replay still counts in the shoe after an impossible card
        # (it cannot take out a card the shoe does not hold), for the live game's offers
        self.left_adjust: list[int] | None = None
        self.running = 0
        # the game
        self.number = 0
        self.dealer = ""
        self.carried: list[tuple[str, int, int, str | None, str, str | None]] = []
        self.players: dict[int, Player] = {}
        self.back: list[Player] = []
        self.player_no = 0
        self.tray: Tray | None = None
        self.drop_cash = 0
        self.drop_markers = 0
        self.slip_no = 0
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

    def plant(self, kind: str, at_version: int, type: str, *, round: int | None, requested: FaultAt | None = None, **where: Any) -> dict[str, Any]:
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
        per_day = config.rounds_per_day
        step = int(config.round_seconds * 1_000_000)
        day_offset = 0
        for day in range(config.days):
            self.day_no = day
            start, self.gaming_day = config.day(day)
            day_offset = int((start - config.clock_start).total_seconds()) * 1_000_000
            self.clock = max(self.clock, day_offset)
            self.open_day()
            played = 0
            while played < per_day or self.carried:
                round_start = day_offset + 600_000_000 + played * step
                self.clock = max(self.clock, round_start - 30_000_000)
                self.rotate(played * step)
                yield from self.between_rounds(played)
                self.clock = max(self.clock, round_start)
                self.play_round(step)
                played += 1
            yield from self.close_day()
        for fault in self.pending:
            self.not_planted.append({"kind": fault.kind, "table": fault.table, "round": fault.round,
                                     "reason": "no round of the table allowed it"})
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
        self.emit("table.opened", {"table": spec.code, "ruleset": self.rules.name, "min_bet": spec.min_bet, "max_bet": spec.max_bet,
                                   "currency": self.config.currency, "gaming_day": self.gaming_day, "rules": {}}, boss)
        self.dealer = ""
        self.rotate(0)
        self.drop_cash = self.drop_markers = 0
        if not self.live:
            if self.tray is None:
                self.tray = Tray(par_for(spec.max_bet))
            self.emit("inventory.counted", {"kind": "opening", "chips": chip_list(self.tray.counts), "counted_by": self.dealer,
                                            "witnessed_by": self.pit_boss()}, boss)
        self.order = ()  # a new day opens with a new shoe

    def close_day(self) -> Iterator[list[Event]]:
        boss = f"user:{self.pit_boss()}"
        if not self.live:
            assert self.tray is not None
            counts = dict(self.tray.counts)
            version = self.version + len(self.buffer) + 1
            if self.due("chip_variance", self.number, per_day=True):
                short = 2_500 if counts.get(2_500, 0) >= 2 else max(d for d, n in counts.items() if n >= 1)
                counts[short] -= 1
                self.plant("chip_variance", version, "inventory.counted", round=None, gaming_day=self.gaming_day,
                           variance=-short, requested=self._claimed)
            self.emit("inventory.counted", {"kind": "closing", "chips": chip_list(counts), "counted_by": self.dealer,
                                            "witnessed_by": self.pit_boss()}, boss)
        self.emit("table.closed", {"gaming_day": self.gaming_day}, boss)
        if not self.live:
            self.clock += 8 * _HOUR  # the count room counts the next morning
            self.emit("drop.counted", {"gaming_day": self.gaming_day, "cash": self.drop_cash, "markers": self.drop_markers,
                                       "currency": self.config.currency, "counted_by": "CR-1"}, "user:CR-1")
        yield self.flush()

    # --- faults: what is due --------------------------------------------------------------

    _claimed: FaultAt | None = None

    def due(self, kind: str, number: int, *, per_day: bool = False) -> bool:
        """Is a fault of ``kind`` to be planted now? An asked-for one at or before this
        round (for a per-day fault: within this day), or one drawn at its rate."""
        self._claimed = None
        for fault in self.pending:
            if fault.kind == kind and (fault.round <= number or per_day and fault.round <= self.number):
                self._claimed = fault
                self.pending.remove(fault)
                return True
        rate = self.config.rates.get(kind)
        return bool(rate) and self.fault_rng.random() < rate  # type: ignore[operator]

    def round_faults(self, number: int) -> list[tuple[str, FaultAt | None]]:
        """The round-changing faults to try on round ``number``, asked-for ones first."""
        wanted: list[tuple[str, FaultAt | None]] = [(f.kind, f) for f in self.pending if f.kind in ROUND_KINDS and f.round <= number]
        for kind in sorted(self.config.rates):
            if kind in ROUND_KINDS and self.fault_rng.random() < self.config.rates[kind]:
                wanted.append((kind, None))
        return wanted

    # --- between rounds -----------------------------------------------------------------

    def new_player(self, box: int, kind: str | None = None) -> Player:
        self.player_no += 1
        kind = kind or self.rng.choice(("basic", "basic", "casual", "casual", "casual", "counter"))
        assert self.strategy is not None
        player = Player(f"P{self.spec.index + 1:02d}-{self.player_no:05d}", kind, box, self.rng, self.strategy, self.limits)
        self.people[player.id] = player
        return player

    def seat_players(self) -> None:
        rng = self.rng
        boxes = self.rules.boxes
        carried_boxes = {s[1] for s in self.carried}
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
            joining = rng.randint(2, 4) if not self.players else int(len(self.players) < 5 and rng.random() < 0.05)
            for box in rng.sample(free, joining):
                self.players[box] = self.new_player(box)
        if self.rules.back_betting and not self.back:
            self.back = [self.new_player(0, "back") for _ in range(4)]

    def buy_in(self, player: Player, need: int) -> None:
        assert self.tray is not None
        step = self.limits.step
        amount = max(need * 4, player.unit * 20)
        amount -= amount % step
        method = "marker" if amount >= 200_000 and self.rng.random() < 0.3 else "cash"
        self.emit("buyin.recorded", {"box": player.box or None, "player": player.id, "method": method, "amount": amount,
                                     "currency": self.config.currency}, f"dealer:{self.dealer}")
        self.tray.pay(amount)
        if method == "cash":
            self.drop_cash += amount
        else:
            self.drop_markers += amount
        player.stack += amount
        player.buyins += 1

    def fill_or_credit(self, number: int) -> None:
        tray = self.tray
        assert tray is not None
        forced = self.due("fill_twice", number)
        requested = self._claimed
        chips = tray.due_fill()
        if forced and not chips:
            chips = {d: max(n // 4, 1) for d, n in tray.par.items() if n}
        if chips:
            self.slip_no += 1
            slip = f"F-{self.spec.index + 1:02d}{self.slip_no:05d}"
            payload = {"slip": slip, "chips": chip_list(chips)}
            self.emit("chips.filled", payload, "user:cage")
            tray.fill(chips)
            if forced:
                version = self.emit("chips.filled", dict(payload), "user:cage")
                self.plant("fill_twice", version, "chips.filled", round=None, slip=slip, gaming_day=self.gaming_day, requested=requested)
        chips = tray.due_credit()
        if chips:
            self.slip_no += 1
            self.emit("chips.credited", {"slip": f"C-{self.spec.index + 1:02d}{self.slip_no:05d}", "chips": chip_list(chips)}, "user:cage")
            tray.credit(chips)

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
        self.shuffled = {"shoe": shoe, "decks": rules.decks, "method": "rng", "order": list(order),
                         "commitment": commitment(order), "seed": seed}
        self.emit("shoe.shuffled", self.shuffled, f"device:shuffler-{self.code}")
        rng = self.rng
        position = rng.randint(size // 4, 3 * size // 4)
        behind = rng.randint(*rules.penetration) if rules.penetration else rng.randint(size // 5, size // 4)
        self.cut_card = size - behind
        self.emit("shoe.cut", {"shoe": shoe, "position": position, "cut_card": self.cut_card}, f"dealer:{self.dealer}")
        self.order = cut(order, position)
        self.pos = 0
        self.shoe_id = shoe
        self.shoe_faults = set()
        self.left_adjust = None
        self.running = 0
        for _ in range(rules.burn_on_shuffle):
            self.emit("card.burned", {"shoe": shoe, "round": None, "card": self.order[self.pos], "face": "down", "reason": "after_shuffle"},
                      f"dealer:{self.dealer}")
            self.pos += 1

    def true_count(self) -> float:
        left = (len(self.order) - self.pos) / 52
        return self.running / left if left > 0.25 else 0.0

    # --- a round ------------------------------------------------------------------------

    def stakes(self, number: int) -> list[tuple[str, int, int, str | None, str, str | None]]:
        if self.live:
            rng = self.rng
            amounts = (100, 100, 200, 500, 500, 1_000, 2_000, 2_500, 5_000, 10_000)
            boxes = self.rules.boxes
            return [(f"r{number}-{i}", i % boxes + 1, amounts[rng.randrange(10)], f"L{i:06d}", "main", None)
                    for i in range(self.config.live_bets)]
        stakes = list(self.carried)
        carried_players = {s[3] for s in stakes}
        limits = self.limits
        tc = self.true_count()
        for box in sorted(self.players):
            player = self.players[box]
            if player.id in carried_players:
                continue
            stakes.append((f"r{number}-b{box}", box, player.stake(limits, tc), player.id, "main", None))
        if self.rules.back_betting and self.players:
            mains = [s for s in stakes if s[4] == "main"]
            for k, back in enumerate(self.back):
                if back.id not in carried_players and self.rng.random() < 0.3:
                    main = mains[self.rng.randrange(len(mains))]
                    back.box = main[1]
                    stakes.append((f"r{number}-k{k}", main[1], back.stake(limits, tc), back.id, "behind", main[0]))
        people = self.people
        for stake in stakes:
            player = people[stake[3] or ""]
            if stake[5] is None or stake[4] == "behind":  # a carried stake is on the layout already
                if player.stack < 3 * stake[2]:
                    self.buy_in(player, stake[2])
                player.stack -= stake[2]
        return stakes

    def play_round(self, step: int) -> None:
        self.number += 1
        number = self.number
        stakes = self.stakes(number)
        faults = self.round_faults(number)
        dealer_fault = next((k for k, _ in faults if k in ("dealer_draws_17", "dealer_stands_16")), None)
        while True:
            try:
                self.round_pos = self.pos
                dealt = deal_round(
                    self.rules, self.order, self.pos, self.shoe_id, number, stakes, self.seats,
                    min_bet=self.spec.min_bet, max_bet=self.spec.max_bet, memo=self.memo,
                    dealer_fault={"dealer_draws_17": "draw17", "dealer_stands_16": "stand16"}.get(dealer_fault or ""),
                )
                break
            except IndexError:  # the shoe ran out mid-round (a small deck): deal it again from a new one
                self.new_shoe()
        events = dealt.events
        r = dealt.round
        assert r is not None
        planted: tuple[str, FaultAt | None] | None = None
        base = self.version + len(self.buffer) + 1
        if dealer_fault is not None and dealt.dealer_fault:
            planted = next(f for f in faults if f[0] == dealer_fault)
            index = next(i for i in range(len(events) - 1, -1, -1) if events[i][0] == "card.dealt") if dealer_fault == "dealer_draws_17" else len(events) - 1
            self.plant(dealer_fault, base + index, events[index][0], round=number, requested=planted[1])
        else:
            for kind, requested in faults:
                if kind in ("dealer_draws_17", "dealer_stands_16"):
                    continue
                if self.plant_in_round(kind, events, r, number, base, requested):
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
        for card in self.order[self.round_pos:dealt.pos]:
            count += HI_LO_CARD[card]
        self.running = count
        self.pos = dealt.pos
        self.carried = [
            (f"r{number + 1}-c{i}", bets[s.bet].box, bets[s.bet].amount, bets[s.bet].player, "main", s.bet)
            for i, s in enumerate(dealt.settlements)
            if s.outcome == "carried" and bets[s.bet].kind != "insurance"
        ]

    # --- faults inside a round ----------------------------------------------------------

    def plant_in_round(self, kind: str, events: list[tuple[str, dict[str, Any]]], r: Round, number: int, base: int, requested: FaultAt | None) -> bool:
        rng = self.fault_rng
        if kind in ("short_pay", "overpay", "natural_even_money"):
            settled = events[-1][1]
            want = ("natural",) if kind == "natural_even_money" else ("win", "natural")
            choices = [i for i, s in enumerate(settled["settlements"]) if s["outcome"] in want and s["net"] > 0]
            if not choices:
                return False
            i = choices[rng.randrange(len(choices))]
            items = [dict(s) for s in settled["settlements"]]
            item = items[i]
            expected = f"{item['outcome']} {item['net']:+d}"
            if kind == "short_pay":
                item["net"] -= 500 if item["net"] > 500 else 50
            elif kind == "overpay":
                item["net"] += 500
            else:
                item["outcome"], item["net"] = "win", r.bets[item["bet"]].amount
            events[-1] = ("round.settled", {"round": number, "settlements": items})
            self.plant(kind, base + len(events) - 1, "round.settled", round=number, bet=item["bet"], expected=expected,
                       recorded=f"{item['outcome']} {item['net']:+d}", requested=requested)
            return True
        if kind == "card_out_of_sequence":
            if "hidden" in self.shoe_faults:
                return False
            cards = [i for i, (t, p) in enumerate(events) if t == "card.dealt" and p["box"] is not None]
            i = cards[rng.randrange(len(cards))]
            payload = dict(events[i][1])
            card = payload["card"]
            payload["card"] = RANKS[(RANKS.index(card[0]) + 1) % 13] + card[1]
            events[i] = ("card.dealt", payload)
            self.shoe_faults.add("sequence")
            self.plant(kind, base + i, "card.dealt", round=number, expected=card, recorded=payload["card"], requested=requested)
            return True
        if kind == "impossible_card":
            if self.shoe_faults or self.shuffled is None:
                return False
            decks = self.rules.decks
            counts: dict[str, int] = {}
            for card in self.order[: self.round_pos]:
                counts[card] = counts.get(card, 0) + 1
            pos = self.round_pos
            # on the live table, replay values cash-out offers from the shoe as it counts
            # it: no offer may follow the impossible card within its round
            offers = [i for i, (t, _) in enumerate(events) if t == "cashout.offered"]
            last_offer = offers[-1] if offers else -1
            for i, (t, p) in enumerate(events):
                if t != "card.dealt":
                    continue
                card = p["card"]
                if p["box"] is not None and i > last_offer:
                    value = VALUE[card]
                    gone = [c for c in sorted(VALUE) if VALUE[c] == value and c != card and counts.get(c, 0) >= decks]
                    if gone:
                        payload = dict(p)
                        payload["card"] = gone[0]
                        events[i] = ("card.dealt", payload)
                        # the shoe was shuffled by hand: its order is not on record
                        self.shuffled.update(method="hand", order=None, commitment=None, seed=None)
                        self.shoe_faults.add("hidden")
                        self.left_adjust = [0] * 10
                        self.left_adjust[value - 1] = 1
                        self.plant(kind, base + i, "card.dealt", round=number, recorded=gone[0], requested=requested)
                        return True
                counts[card] = counts.get(card, 0) + 1
                pos += 1
            return False
        if kind == "missing_event":
            i = next(i for i, (t, _) in enumerate(events) if t == "betting.closed")
            del events[i]
            # nothing carries the missing event's version: the manifest names the one after it
            self.plant(kind, base + i, events[i][0], round=number, requested=requested, missing="betting.closed")
            return True
        if kind == "duplicate_event":
            # not a pushed stake placed again: its second copy would claim a carried bet
            # that is no longer on the layout (illegal_bet) before it is seen as a repeat
            fresh = [i for i, (t, p) in enumerate(events) if t == "bet.placed" and not (p["kind"] == "main" and p["parent"])]
            if not fresh:
                return False
            i = fresh[0]
            events.insert(i + 1, ("bet.placed", dict(events[i][1])))
            self.plant(kind, base + i + 1, "bet.placed", round=number, bet=events[i][1]["bet"], requested=requested)
            return True
        if kind == "tamper":
            i = next(i for i, (t, p) in enumerate(events) if t == "bet.placed")
            record = self.plant(kind, base + i, "bet.placed", round=number, requested=requested, stream=self.code, version=base + i)
            altered = dict(events[i][1])
            altered["player"] = "P-" + format(rng.getrandbits(32), "08x")
            record["altered_payload"] = altered
            return True
        raise AssertionError(kind)  # pragma: no cover
