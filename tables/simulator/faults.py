"""The faults the simulator can plant, and how they are asked for.

Each kind is an error a real table makes (or an attack on the record) and names the
one finding an audit must report for it. Which check reports it is that finding's
``owner`` in the findings vocabulary (:mod:`audit.record.findings`):

* ``engine`` - the rules engine's replay (``tables.engine.replay``);
* ``ledger`` - the ledger's books and their reconciliation (``ledger.books``: the
  custody of chips and cash, which the engine's replay does not look at);
* ``integrity`` - the hash chain: ``audit.integrity.chains.verify_chains`` / ``manage.py verify``
  in the store, ``manage.py verify --file`` (``audit.record.verify``) for a file.

A kind is planted at one moment of a table's day: in a ``round`` (at most one such
fault per round; each has its planter in :mod:`.planting`), at a ``fill`` (one fault
per fill slip), at the ``opening`` count of a gaming day after the first, or at the
``closing`` of a day (the closing count and the drop).

Asking: ``KIND=RATE`` (a probability per round; per table and gaming day for the
``opening`` and ``closing`` kinds) or ``KIND@TABLE:ROUND`` (at that round of that table, or the first
round after it where the fault can be planted - a short pay needs a winning bet).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from audit.record.findings import KINDS as FINDINGS
from audit.record.findings import Owner

Moment = Literal["round", "fill", "opening", "closing"]


@dataclass(frozen=True, slots=True)
class FaultKind:
    name: str
    finding: str  # the finding kind the audit must report
    moment: Moment
    what: str

    @property
    def check(self) -> Owner:
        """The check that reports the fault: the owner of its finding kind."""
        return FINDINGS[self.finding].owner


_KINDS = (
    FaultKind(
        "short_pay", "wrong_payout", "round", "a winning bet is paid less than the rules give"
    ),
    FaultKind("overpay", "wrong_payout", "round", "a winning bet is paid more than the rules give"),
    FaultKind(
        "natural_even_money", "wrong_payout", "round", "a natural is paid 1:1 as a plain win"
    ),
    FaultKind(
        "dealer_draws_17",
        "dealer_procedure",
        "round",
        "the dealer draws a card on a standing 17 (the card is burned, the round settled on 17)",
    ),
    FaultKind(
        "dealer_stands_16",
        "dealer_procedure",
        "round",
        "the dealer stands on 16 and the round is settled on it; the cards stay in the shoe",
    ),
    FaultKind(
        "card_out_of_sequence",
        "card_out_of_sequence",
        "round",
        "a player's card is recorded as another card than the shoe's recorded order holds",
    ),
    FaultKind(
        "impossible_card",
        "impossible_card",
        "round",
        "a player's card is recorded as a card the (hand-shuffled) shoe holds no more of",
    ),
    FaultKind(
        "wrong_face",
        "wrong_face",
        "round",
        "a player's card is recorded with the other face (face down where it is dealt face up, or the other way)",
    ),
    FaultKind(
        "missing_stake",
        "missing_stake",
        "round",
        "a player's double or split stake is never recorded: the hand plays on for the stake before it",
    ),
    FaultKind(
        "insurance_without_decision",
        "illegal_bet",
        "round",
        "a bet's insurance stake is recorded without the bettor's decision to insure",
    ),
    FaultKind(
        "missing_event", "missing_event", "round", "the round's betting.closed is never recorded"
    ),
    FaultKind(
        "duplicate_event",
        "duplicate_event",
        "round",
        "a bet.placed is recorded twice (a retry under a new id)",
    ),
    # custody: the fill slip's steps (requested -> issued -> received), the counts, the drop
    FaultKind(
        "fill_twice", "duplicate_slip", "fill", "a fill's receipt at the table is recorded twice"
    ),
    FaultKind(
        "fill_without_request",
        "slip_without_request",
        "fill",
        "a fill is issued and received with no request from a floor supervisor on record",
    ),
    FaultKind(
        "fill_short",
        "slip_mismatch",
        "fill",
        "a fill arrives at the table one chip short of what the cage issued",
    ),
    FaultKind(
        "fill_unfinished",
        "slip_unfinished",
        "fill",
        "a fill is requested and issued but never received nor voided",
    ),
    FaultKind(
        "void_without_reason",
        "void_without_reason",
        "fill",
        "a fill request is voided with no reason given",
    ),
    FaultKind(
        "void_after_receipt",
        "void_after_receipt",
        "fill",
        "a fill is voided after its chips were received at the table",
    ),
    FaultKind(
        "opener_mismatch",
        "opener_mismatch",
        "opening",
        "chips leave the tray overnight: the opening count differs from the closing count before it",
    ),
    FaultKind(
        "chip_variance",
        "chip_variance",
        "closing",
        "chips go missing from the tray during play: the closing count is short by more than the report threshold",
    ),
    FaultKind(
        "closer_missing", "closer_missing", "closing", "the tray's closing count is never recorded"
    ),
    FaultKind(
        "drop_not_counted",
        "drop_not_counted",
        "closing",
        "the drop box is removed but its count is never recorded",
    ),
    FaultKind(
        "drop_not_posted",
        "drop_not_posted",
        "closing",
        "the drop is counted but never posted to the books",
    ),
    FaultKind(
        "drop_mismatch",
        "drop_mismatch",
        "closing",
        "the drop is posted with other cash than the count team counted",
    ),
    FaultKind(
        "tamper",
        "altered",
        "round",
        "a stored bet.placed's player is changed behind the application's back",
    ),
)

KINDS: MappingProxyType[str, FaultKind] = MappingProxyType({k.name: k for k in _KINDS})
# faults that change one round's events; at most one of them per round
ROUND_KINDS = frozenset(k.name for k in _KINDS if k.moment == "round")
# custody faults, each planted at its moment (one fill fault per fill)
FILL_KINDS = tuple(k.name for k in _KINDS if k.moment == "fill")
CLOSING_KINDS = tuple(k.name for k in _KINDS if k.moment == "closing")


class FaultError(ValueError):
    """A fault request that cannot be understood; the message says what."""


@dataclass(frozen=True, slots=True)
class FaultAt:
    kind: str
    table: str
    round: int


def _kind(name: str) -> str:
    if name not in KINDS:
        raise FaultError(f"unknown fault kind {name!r} (known: {', '.join(KINDS)})")
    return name


def parse_rate(text: str) -> tuple[str, float]:
    """``KIND=RATE`` -> (kind, rate); rate is a probability in [0, 1].

    >>> parse_rate("short_pay=0.01")
    ('short_pay', 0.01)
    """
    name, sep, value = text.partition("=")
    if not sep:
        raise FaultError(f"--fault-rate {text!r}: expected KIND=RATE, e.g. short_pay=0.01")
    kind = _kind(name.strip())
    try:
        rate = float(value)
    except ValueError:
        raise FaultError(f"--fault-rate {text!r}: {value!r} is not a number") from None
    if not 0.0 <= rate <= 1.0:  # NaN fails this too
        raise FaultError(f"--fault-rate {text!r}: a rate is a probability between 0 and 1")
    return kind, rate


_AT = re.compile(
    r"^(?P<kind>[a-z_0-9]+)@(?P<table>[A-Za-z0-9][A-Za-z0-9._-]{0,63}):(?P<round>\d+)\Z"
)


def parse_at(text: str) -> FaultAt:
    """``KIND@TABLE:ROUND`` -> :class:`FaultAt`.

    >>> parse_at("tamper@BJ-02:17")
    FaultAt(kind='tamper', table='BJ-02', round=17)
    """
    match = _AT.match(text.strip())
    if match is None:
        raise FaultError(f"--fault {text!r}: expected KIND@TABLE:ROUND, e.g. short_pay@BJ-01:12")
    kind = _kind(match["kind"])
    number = int(match["round"])
    if number < 1:
        raise FaultError(f"--fault {text!r}: rounds are numbered from 1")
    return FaultAt(kind, match["table"], number)
