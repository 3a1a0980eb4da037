"""Payload schemas of the event types of DESIGN.md, one class per type and version.

Every field is required unless it has a default; ``None`` is a value, not an omission.
A schema change never edits a class that has stored events: it adds ``<Name>V<n+1>`` and
an upcaster in ``registry.py``.
"""
from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from .fields import (
    Action,
    BetKind,
    Box,
    Card,
    Count,
    Currency,
    Denomination,
    Face,
    GamingDay,
    HandNo,
    Ident,
    Money,
    Outcome,
    ParamName,
    Payload,
    RoundNo,
    Sha256Hex,
    SignedMoney,
    Text,
)

RuleValue = int | bool | str | None


class ChipCount(msgspec.Struct, forbid_unknown_fields=True, frozen=True, kw_only=True):
    denomination: Denomination
    count: Count


# --- the table and its people -------------------------------------------------------------

class TableOpened(Payload):
    table: Ident
    ruleset: Ident
    min_bet: Money
    max_bet: Money
    currency: Currency
    gaming_day: GamingDay
    # parameter overrides on top of the named rule set; {} for the preset as it is
    rules: dict[ParamName, RuleValue] = {}


class TableClosed(Payload):
    gaming_day: GamingDay


class DealerAssigned(Payload):
    dealer: Ident


# --- chips and cash --------------------------------------------------------------------------

class InventoryCounted(Payload):
    kind: Literal["opening", "closing"]
    chips: list[ChipCount]
    counted_by: Ident
    witnessed_by: Ident


class ChipsFilled(Payload):
    slip: Ident
    chips: list[ChipCount]


class ChipsCredited(Payload):
    slip: Ident
    chips: list[ChipCount]


class BuyinRecorded(Payload):
    box: Box | None
    player: Ident | None
    method: Literal["cash", "marker"]
    amount: Money
    currency: Currency


class DropCounted(Payload):
    gaming_day: GamingDay
    cash: Money
    markers: Money
    currency: Currency
    counted_by: Ident


# --- the shoe --------------------------------------------------------------------------------

class ShoeShuffled(Payload):
    shoe: Ident
    decks: Annotated[int, msgspec.Meta(ge=1, le=12)]
    method: Literal["hand", "machine", "continuous", "rng"]
    # the full card order, first card to be dealt first, where a device knows it
    order: list[Card] | None
    # SHA-256 of the order's cards joined by "," - a commitment revealed later
    commitment: Sha256Hex | None
    # the seed that produced the order, for RNG shuffles that must be reproducible
    seed: Text | None


class ShoeCut(Payload):
    shoe: Ident
    # how many cards the cut moved from the front to the back (0 for a machine)
    position: Count
    # how many cards are dealt before the cut card comes out (penetration)
    cut_card: Count


class CardBurned(Payload):
    shoe: Ident
    round: RoundNo | None
    card: Card | None  # None when burned unseen
    face: Face
    reason: Literal["after_shuffle", "exposed", "dealer_error", "discard_left", "misdeal", "other"]


# --- a round ---------------------------------------------------------------------------------

class RoundStarted(Payload):
    round: RoundNo
    shoe: Ident


class BetPlacedV1(Payload):
    round: RoundNo
    bet: Ident
    box: Box
    hand: HandNo
    player: Ident | None
    amount: Money
    kind: BetKind


class BetPlaced(Payload):
    """v2: ``parent`` ties a double, split, insurance or behind stake to the bet it
    belongs to, which the live game (thousands of players on one hand) needs."""

    round: RoundNo
    bet: Ident
    box: Box
    hand: HandNo
    player: Ident | None
    amount: Money
    kind: BetKind
    parent: Ident | None


class BettingClosed(Payload):
    round: RoundNo


class CardDealt(Payload):
    round: RoundNo
    box: Box | None  # None: to the dealer
    hand: HandNo | None  # None for the dealer
    card: Card
    face: Face


class DecisionMade(Payload):
    round: RoundNo
    box: Box
    hand: HandNo
    action: Action
    # the bet that took the decision where it is one player's (insurance, even money,
    # the live game's opt-ins); None where the box's hand is decided as a whole
    bet: Ident | None


class CashoutOffered(Payload):
    round: RoundNo
    bet: Ident
    amount: Money


class CashoutAccepted(Payload):
    round: RoundNo
    bet: Ident
    amount: Money


class CardRevealed(Payload):
    round: RoundNo
    card: Card


class Settlement(msgspec.Struct, forbid_unknown_fields=True, frozen=True, kw_only=True):
    bet: Ident
    outcome: Outcome
    # what the player ends with relative to the stake: + paid by the house, - taken by it,
    # 0 a push (stake returned, or carried to the next round)
    net: SignedMoney


class RoundSettled(Payload):
    round: RoundNo
    settlements: list[Settlement]


class RoundVoided(Payload):
    round: RoundNo
    reason: Text
    authorised_by: Ident


class CorrectionRecorded(Payload):
    round: RoundNo | None
    # the id of the event this corrects, if it corrects one event
    corrects: Ident | None
    # the settlements that replace the recorded ones for these bets
    settlements: list[Settlement]
    reason: Text
    authorised_by: Ident


# --- the back-office: what people do with replay's findings ----------------------------------
# Appended to the stream ``audit.findings`` (not a table's stream): who (the envelope's
# ``actor`` and ``by``), when (``occurred_at``) and why (``note``).

class FindingStatusChanged(Payload):
    # the finding's stable fingerprint (audit.models.Finding.fingerprint)
    finding: Sha256Hex
    # where the finding is, so the record reads on its own
    table: Annotated[str, msgspec.Meta(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")]
    kind: Ident
    # the status before the change
    previous: Literal["open", "acknowledged", "resolved"]
    # the person who changed it (a user name)
    by: Text
    # why; required to resolve, optional otherwise
    note: Text | None
