"""A table's custody and round events, written by the engine's envelope builder, for the
ledger's tests: each method appends the events of one thing that happens at the table."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from tables.engine.envelope import EnvelopeWriter

DAY = "2026-11-29"
START = datetime(2026, 11, 29, 6, 0, tzinfo=UTC)


def chip_list(chips: dict[int, int]) -> list[dict[str, int]]:
    return [{"denomination": d, "count": n} for d, n in sorted(chips.items()) if n]


class Table:
    """One table's stream. Amounts in EUR cents; chips as {denomination: count}."""

    def __init__(
        self, code: str = "BJ-01", *, start: datetime = START, currency: str = "EUR"
    ) -> None:
        self.code = code
        self.currency = currency
        self.writer = EnvelopeWriter(code, start=start, step=timedelta(seconds=10), hashed=False)
        self.events: list[dict[str, Any]] = []
        # the money-changing events no one with the authority recorded (id -> why), as the
        # back-office's reader hands them to the fold (audit.access.authority.refused_events)
        self.refused: dict[str, str] = {}
        self.round = 0
        self.bets = 0

    def add(
        self, type: str, payload: dict[str, Any], *, schema_version: int | None = None
    ) -> dict[str, Any]:
        event = self.writer.write(type, payload)
        if schema_version is not None:
            event["schema_version"] = schema_version
        self.events.append(event)
        return event

    def wait(self, **delta: float) -> None:
        self.writer.clock += timedelta(**delta)

    # --- the day -------------------------------------------------------------------------

    def open(self, day: str = DAY, ruleset: str = "hoyle") -> None:
        self.add(
            "table.opened",
            {
                "table": self.code,
                "ruleset": ruleset,
                "min_bet": 500,
                "max_bet": 500_000,
                "currency": self.currency,
                "gaming_day": day,
                "rules": {},
            },
        )

    def close(self, day: str = DAY) -> None:
        self.add("table.closed", {"gaming_day": day})

    def count(
        self,
        kind: str,
        chips: dict[int, int],
        *,
        shift: str | None = "06:00",
        day: str | None = DAY,
        slip: str | None = None,
    ) -> dict[str, Any]:
        return self.add(
            "inventory.counted",
            {
                "kind": kind,
                "chips": chip_list(chips),
                "counted_by": "D-1",
                "witnessed_by": "PB-1",
                "gaming_day": day,
                "shift": shift,
                "slip": slip,
            },
        )

    # --- slips -----------------------------------------------------------------------------

    def fill(
        self,
        slip: str,
        chips: dict[int, int],
        *,
        steps: tuple[str, ...] = ("requested", "issued", "received"),
        received: dict[int, int] | None = None,
    ) -> None:
        for step in steps:
            if step == "requested":
                self.add(
                    "fill.requested",
                    {"slip": slip, "chips": chip_list(chips), "requested_by": "PB-1"},
                )
            elif step == "issued":
                self.add(
                    "fill.issued",
                    {
                        "slip": slip,
                        "chips": chip_list(chips),
                        "cashier": "CA-1",
                        "carried_by": "SEC-1",
                    },
                )
            else:
                self.add(
                    "chips.filled",
                    {
                        "slip": slip,
                        "chips": chip_list(received or chips),
                        "dealer": "D-1",
                        "supervisor": "PB-1",
                    },
                )

    def credit(
        self,
        slip: str,
        chips: dict[int, int],
        *,
        steps: tuple[str, ...] = ("requested", "released", "received"),
    ) -> None:
        for step in steps:
            if step == "requested":
                self.add(
                    "credit.requested",
                    {"slip": slip, "chips": chip_list(chips), "requested_by": "PB-1"},
                )
            elif step == "released":
                self.add(
                    "chips.credited",
                    {
                        "slip": slip,
                        "chips": chip_list(chips),
                        "dealer": "D-1",
                        "supervisor": "PB-1",
                    },
                )
            else:
                self.add(
                    "credit.received",
                    {
                        "slip": slip,
                        "chips": chip_list(chips),
                        "cashier": "CA-1",
                        "carried_by": "SEC-1",
                    },
                )

    def void(self, kind: str, slip: str, reason: str | None = "requested by mistake") -> None:
        self.add(
            f"{kind}.voided",
            {"slip": slip, "reason": reason, "voided_by": "PB-1", "witnessed_by": "CA-1"},
        )

    # --- cash, markers, the drop ----------------------------------------------------------------

    def buyin(self, amount: int, method: str = "cash", box: int = 1) -> None:
        self.add(
            "buyin.recorded",
            {
                "box": box,
                "player": f"P-{box}",
                "method": method,
                "amount": amount,
                "currency": self.currency,
            },
        )

    def marker(self, number: str, amount: int, box: int = 1) -> None:
        self.add(
            "marker.issued",
            {
                "marker": number,
                "player": f"P-{box}",
                "box": box,
                "amount": amount,
                "currency": self.currency,
                "approved_by": "PB-1",
                "dealer": "D-1",
            },
        )

    def redeem(self, number: str, amount: int, method: str = "cash") -> None:
        self.add(
            "marker.redeemed",
            {
                "marker": number,
                "amount": amount,
                "currency": self.currency,
                "method": method,
                "received_by": "CA-1",
            },
        )

    def drop(
        self,
        cash: int,
        markers: int = 0,
        chips: int = 0,
        *,
        shift: str | None = "06:00",
        day: str = DAY,
        steps: tuple[str, ...] = ("removed", "counted", "posted"),
        posted: tuple[int, int, int] | None = None,
    ) -> None:
        for step in steps:
            if step == "removed":
                self.add(
                    "drop.removed",
                    {
                        "gaming_day": day,
                        "shift": shift,
                        "box": f"DB-{self.code}",
                        "removed_by": "SEC-1",
                        "witnessed_by": "PB-1",
                    },
                )
            elif step == "counted":
                self.add(
                    "drop.counted",
                    {
                        "gaming_day": day,
                        "shift": shift,
                        "cash": cash,
                        "markers": markers,
                        "chips": chips,
                        "currency": self.currency,
                        "counted_by": "CR-1",
                        "team": ["CR-2"],
                    },
                )
            else:
                c, m, ch = posted or (cash, markers, chips)
                self.add(
                    "drop.posted",
                    {
                        "gaming_day": day,
                        "shift": shift,
                        "cash": c,
                        "markers": m,
                        "chips": ch,
                        "currency": self.currency,
                        "posted_by": "ACC-1",
                    },
                )

    # --- rounds ----------------------------------------------------------------------------------

    def play(self, *bets: tuple[int, int], outcome: str | None = None) -> list[str]:
        """One round: each (stake, net) a bet of its box and its settlement (net: + paid to
        the player, - taken by the house). Returns the bet ids."""
        self.round += 1
        number = self.round
        self.add("round.started", {"round": number, "shoe": "S-1"})
        ids = []
        for box, (stake, _) in enumerate(bets, start=1):
            self.bets += 1
            bet = f"r{number}-b{box}"
            ids.append(bet)
            self.add(
                "bet.placed",
                {
                    "round": number,
                    "bet": bet,
                    "box": box,
                    "hand": 0,
                    "player": f"P-{box}",
                    "amount": stake,
                    "kind": "main",
                    "parent": None,
                },
            )
        self.add(
            "round.settled",
            {
                "round": number,
                "settlements": [
                    {
                        "bet": bet,
                        "outcome": outcome or ("win" if net > 0 else "lose" if net < 0 else "push"),
                        "net": net,
                    }
                    for bet, (_, net) in zip(ids, bets)
                ],
            },
        )
        return ids

    def correct(self, round: int, bet: str, net: int) -> None:
        self.add(
            "correction.recorded",
            {
                "round": round,
                "corrects": None,
                "settlements": [{"bet": bet, "outcome": "win", "net": net}],
                "reason": "short pay corrected",
                "authorised_by": "PB-1",
            },
        )


def worked_example(code: str = "BJ-01") -> Table:
    """13 Miss. Code R. 7-3.3's example in EUR: opener 20,000; fills 5,000; credits
    2,000; closer 18,000; drop 9,000 - the rounds win 4,000 for the house."""
    t = Table(code)
    t.open()
    t.count("opening", {100_000: 20})  # 20 x 1,000.00 = 20,000.00
    t.buyin(900_000)  # 9,000.00 cash into the drop box, chips out of the tray
    t.fill("F-1", {100_000: 5})  # 5,000.00
    t.play((300_000, -300_000), (100_000, 100_000), (200_000, -200_000))  # the house wins 4,000.00
    t.credit("C-1", {100_000: 2})  # 2,000.00
    t.count("closing", {100_000: 18})  # 18,000.00
    t.close()
    t.drop(900_000)
    return t
