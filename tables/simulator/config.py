"""What to simulate: tables, rule sets, size, seed, clock and faults."""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

import msgspec

from audit.record.events.fields import Text
from tables.engine.presets import PRESETS
from tables.engine.rules import RuleSet

from .faults import KINDS, FaultAt, FaultError


class ConfigError(FaultError):
    """A simulation that cannot be run as asked; the message says what (a FaultError
    too, so one ``except`` takes every bad argument)."""


# with --seed and no --start, the clock starts here, so a seed alone fixes the output
SEEDED_START = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
LIVE = "it-live"


@dataclass(frozen=True)
class TableSpec:
    index: int
    code: str
    rules: RuleSet
    min_bet: int
    max_bet: int

    @property
    def live(self) -> bool:
        return self.rules.dealer_plays_basic_strategy


# the seated players the simulator knows (tables.simulator.players)
PLAYER_KINDS = frozenset({"basic", "casual", "counter"})


@dataclass(frozen=True)
class SimConfig:
    tables: int = 7
    presets: tuple[str, ...] = tuple(PRESETS)
    rounds: int | None = None  # per table and gaming day; None: hours x pace
    hours: float = 8.0
    pace: int = 60  # rounds an hour
    days: int = 1
    # the last gaming day's rounds per table, when it is shorter (the demo's second day,
    # there for the checks made once a table opens its next day); None: as every day
    last_day_rounds: int | None = None
    seed: str | None = None
    start: datetime | None = None
    gaming_day: date | None = None  # of the first day; None: the start's UTC date
    seats: int | None = None  # occupied boxes, fixed; None: players come and go (1-5)
    # the kinds a new player is drawn from, each equally likely (a kind listed twice, twice as likely)
    players: tuple[str, ...] = ("basic", "basic", "casual", "casual", "casual", "counter")
    live_bets: int = 2000
    rates: dict[str, float] = field(default_factory=dict)
    at: tuple[FaultAt, ...] = ()
    currency: str = "EUR"
    prefix: str = "BJ-"
    # an unseeded run still needs material for ids and players; shoes use SystemRandom
    material: str = field(default_factory=lambda: secrets.token_hex(16))

    def __post_init__(self) -> None:
        problems = self.problems()
        if problems:
            raise ConfigError(problems[0])

    # --- derived ------------------------------------------------------------------------

    @property
    def seeded(self) -> bool:
        return self.seed is not None

    @property
    def root(self) -> str:
        return self.seed if self.seed is not None else self.material

    @property
    def clock_start(self) -> datetime:
        if self.start is not None:
            return self.start.astimezone(UTC)
        if self.seed is not None:
            return SEEDED_START
        now = datetime.now(UTC)
        return now.replace(hour=12, minute=0, second=0, microsecond=0)

    def day(self, n: int) -> tuple[datetime, str]:
        """Start and gaming day (YYYY-MM-DD) of day ``n`` (0-based)."""
        start = self.clock_start + timedelta(days=n)
        first = self.gaming_day or self.clock_start.date()
        return start, (first + timedelta(days=n)).isoformat()

    @property
    def rounds_per_day(self) -> int:
        return self.rounds if self.rounds is not None else max(1, round(self.hours * self.pace))

    def rounds_of_day(self, n: int) -> int:
        """Rounds per table on day ``n`` (0-based)."""
        if n == self.days - 1 and self.last_day_rounds is not None:
            return self.last_day_rounds
        return self.rounds_per_day

    @property
    def total_rounds(self) -> int:
        """Rounds per table over every day."""
        return sum(self.rounds_of_day(n) for n in range(self.days))

    @property
    def round_seconds(self) -> float:
        return 3600.0 / self.pace

    def table_specs(self) -> list[TableSpec]:
        specs = []
        for i in range(self.tables):
            rules = PRESETS[self.presets[i % len(self.presets)]]
            code = f"{self.prefix}{i + 1:02d}"
            specs.append(TableSpec(i, code, rules, *limits_for(rules, i)))
        return specs

    def problems(self) -> list[str]:
        out = []
        if self.seed is not None:
            try:  # it is recorded in every shoe.shuffled, as the catalogue's free text
                msgspec.convert(f"{self.seed}/{self.prefix}", Text)
            except msgspec.ValidationError:
                out.append(f"--seed {self.seed!r}: control or format characters cannot be recorded")
        unknown = [p for p in self.presets if p not in PRESETS]
        if unknown:
            out.append(f"unknown preset {unknown[0]!r} (known: {', '.join(PRESETS)})")
        if not self.presets:
            out.append("no preset given")
        for name, value in (
            ("--tables", self.tables),
            ("--days", self.days),
            ("--pace", self.pace),
        ):
            if value < 1:
                out.append(f"{name} must be at least 1")
        if self.rounds is not None and self.rounds < 1:
            out.append("--rounds must be at least 1")
        if self.last_day_rounds is not None and self.last_day_rounds < 1:
            out.append("--last-day-rounds must be at least 1")
        if self.hours <= 0:
            out.append("--hours must be more than 0")
        if self.seats is not None and not 1 <= self.seats <= 7:
            out.append("--seats must be 1-7")
        if not self.players or not set(self.players) <= PLAYER_KINDS:
            out.append(f"players {self.players!r}: each one of {', '.join(sorted(PLAYER_KINDS))}")
        if self.live_bets < 1:
            out.append("--live-bets must be at least 1")
        if not re.match(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,50}$", self.prefix):
            out.append(
                f"--prefix {self.prefix!r}: a table code is letters, digits and . _ - (starting with a letter or digit)"
            )
        for kind, rate in self.rates.items():
            if kind not in KINDS:
                out.append(f"unknown fault kind {kind!r}")
            elif not 0 <= rate <= 1:
                out.append(f"fault rate {kind}={rate}: a rate is between 0 and 1")
        if out:
            return out
        specs = {s.code: s for s in self.table_specs()}
        total = self.total_rounds
        for fault in self.at:
            spec = specs.get(fault.table)
            if spec is None:
                out.append(
                    f"--fault {fault.kind}@{fault.table}:{fault.round}: no table {fault.table} "
                    f"(tables: {', '.join(specs)})"
                )
            elif fault.round > total:
                out.append(
                    f"--fault {fault.kind}@{fault.table}:{fault.round}: {fault.table} plays {total} rounds"
                )
            elif spec.live and fault.kind in ("chip_variance", "fill_twice"):
                out.append(
                    f"--fault {fault.kind}@{fault.table}:{fault.round}: {fault.table} is a live "
                    f"table ({LIVE}) with no chip tray"
                )
        return out


# table limits (min, max) in minor units, by the table's place in the pit
_LIMITS = ((500, 50_000), (1_000, 100_000), (2_500, 250_000), (500, 25_000))


def limits_for(rules: RuleSet, index: int) -> tuple[int, int]:
    if rules.min_bet > 1 or rules.max_bet < 2**53 - 1:  # the preset fixes them (hoyle)
        return rules.min_bet, rules.max_bet
    if rules.dealer_plays_basic_strategy:
        return 100, 100_000
    return _LIMITS[index % len(_LIMITS)]


def chip_step(rules: RuleSet) -> int:
    """Every stake is a multiple of this, so every payout is whole chips (see chips.py)."""
    _, d = rules.natural_pays
    return 500 if d not in (1, 2) else 100
