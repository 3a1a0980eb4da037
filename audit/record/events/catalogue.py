"""Payload schemas of the event types (docs/events.md lists them), one class per type and version.

Every field is required unless it has a default; ``None`` is a value, not an omission.
A schema change never edits a class that has stored events: it adds ``<Name>V<n+1>`` and
an upcaster in ``registry.py``.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from .fields import (
    MAX_SAFE_INT,
    SHOE_MAX,
    Action,
    BetKind,
    Box,
    Card,
    Count,
    Currency,
    DayChecked,
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

# a rule set parameter's value, as a rule set has them: a number a JSON reader reads exactly,
# a flag, a short word (h17, late), or none
RuleValue = (
    Annotated[int, msgspec.Meta(ge=-MAX_SAFE_INT, le=MAX_SAFE_INT)]
    | bool
    | Annotated[str, msgspec.Meta(max_length=64)]
    | None
)

# Every schema repeats ``frozen=True``: msgspec inherits it from Payload anyway, but mypy
# (without a plugin) reads a subclass that does not say it as a non-frozen dataclass.


class ChipCount(msgspec.Struct, forbid_unknown_fields=True, frozen=True, kw_only=True):
    denomination: Denomination
    count: Count

    def __post_init__(self) -> None:
        # their value a JSON reader reads exactly, as any amount (a slip's chips, at most
        # CHIP_KINDS of these, then sum within a 64-bit column)
        if self.denomination * self.count > MAX_SAFE_INT:
            raise ValueError(
                f"count: {self.count} chips of {self.denomination} come to more than "
                f"{MAX_SAFE_INT} minor units"
            )


# chips by denomination: at most this many entries (a tray has a dozen denominations)
CHIP_KINDS = 64
Chips = Annotated[list[ChipCount], msgspec.Meta(max_length=CHIP_KINDS)]


# --- the table and its people -------------------------------------------------------------


class TableOpened(Payload, DayChecked, frozen=True):
    table: Ident
    ruleset: Ident
    min_bet: Money
    max_bet: Money
    currency: Currency
    gaming_day: GamingDay
    # parameter overrides on top of the named rule set; {} for the preset as it is
    rules: dict[ParamName, RuleValue] = {}


class TableClosed(Payload, DayChecked, frozen=True):
    gaming_day: GamingDay


class DealerAssigned(Payload, frozen=True):
    dealer: Ident


# --- chips and cash --------------------------------------------------------------------------


class InventoryCounted(Payload, frozen=True):
    kind: Literal["opening", "closing"]
    chips: Chips
    counted_by: Ident
    witnessed_by: Ident


class ChipsFilled(Payload, frozen=True):
    slip: Ident
    chips: Chips


class ChipsCredited(Payload, frozen=True):
    slip: Ident
    chips: Chips


class BuyinRecorded(Payload, frozen=True):
    box: Box | None
    player: Ident | None
    method: Literal["cash", "marker"]
    amount: Money
    currency: Currency


class DropCounted(Payload, DayChecked, frozen=True):
    gaming_day: GamingDay
    cash: Money
    markers: Money
    currency: Currency
    counted_by: Ident


# --- the shoe --------------------------------------------------------------------------------


class ShoeShuffled(Payload, frozen=True):
    shoe: Ident
    decks: Annotated[int, msgspec.Meta(ge=1, le=12)]
    method: Literal["hand", "machine", "continuous", "rng"]
    # the full card order, first card to be dealt first, where a device knows it
    order: Annotated[list[Card], msgspec.Meta(max_length=SHOE_MAX)] | None
    # SHA-256 of the order's cards joined by "," - a commitment revealed later
    commitment: Sha256Hex | None
    # the seed that produced the order, for RNG shuffles that must be reproducible
    seed: Text | None


# a place in a shoe: at most the cards of the largest shoe (a place beyond this shoe's cards
# is the engine's finding, shoe_procedure; one beyond any shoe is refused)
ShoePlace = Annotated[int, msgspec.Meta(ge=0, le=SHOE_MAX)]


class ShoeCut(Payload, frozen=True):
    shoe: Ident
    # how many cards the cut moved from the front to the back (0 for a machine)
    position: ShoePlace
    # how many cards are dealt before the cut card comes out (penetration)
    cut_card: ShoePlace


class CardBurned(Payload, frozen=True):
    shoe: Ident
    round: RoundNo | None
    card: Card | None  # None when burned unseen
    face: Face
    reason: Literal["after_shuffle", "exposed", "dealer_error", "discard_left", "misdeal", "other"]


# --- a round ---------------------------------------------------------------------------------


class RoundStarted(Payload, frozen=True):
    round: RoundNo
    shoe: Ident


class BetPlacedV1(Payload, frozen=True):
    round: RoundNo
    bet: Ident
    box: Box
    hand: HandNo
    player: Ident | None
    amount: Money
    kind: BetKind


class BetPlaced(Payload, frozen=True):
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


class BettingClosed(Payload, frozen=True):
    round: RoundNo


class CardDealt(Payload, frozen=True):
    round: RoundNo
    box: Box | None  # None: to the dealer
    hand: HandNo | None  # None for the dealer
    card: Card
    face: Face


class DecisionMade(Payload, frozen=True):
    round: RoundNo
    box: Box
    hand: HandNo
    action: Action
    # the bet that took the decision where it is one player's (insurance, even money,
    # the live game's opt-ins); None where the box's hand is decided as a whole
    bet: Ident | None


class CashoutOffered(Payload, frozen=True):
    round: RoundNo
    bet: Ident
    amount: Money


class CashoutAccepted(Payload, frozen=True):
    round: RoundNo
    bet: Ident
    amount: Money


class CardRevealed(Payload, frozen=True):
    round: RoundNo
    card: Card


class Settlement(msgspec.Struct, forbid_unknown_fields=True, frozen=True, kw_only=True):
    bet: Ident
    outcome: Outcome
    # what the player ends with relative to the stake: + paid by the house, - taken by it,
    # 0 a push (stake returned, or carried to the next round)
    net: SignedMoney


class RoundSettled(Payload, frozen=True):
    round: RoundNo
    settlements: list[Settlement]


class RoundVoided(Payload, frozen=True):
    round: RoundNo
    reason: Text
    authorised_by: Ident


class CorrectionRecorded(Payload, frozen=True):
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


class FindingStatusChanged(Payload, frozen=True):
    # the finding's stable fingerprint (audit.models.Finding.fingerprint)
    finding: Sha256Hex
    # where the finding is, so the record reads on its own
    table: Annotated[
        str, msgspec.Meta(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*\Z")
    ]
    kind: Ident
    # the status before the change
    previous: Literal["open", "acknowledged", "resolved"]
    # the person who changed it (a user name)
    by: Text
    # why; required to resolve, optional otherwise
    note: Text | None


# --- the back-office's access log (audit.access), sealed into the record --------------------
# Appended to the stream ``audit.access`` by the server only.


class AccessSealed(Payload, frozen=True):
    """Rows ``first`` .. ``last`` of the access log (``count`` of them: ids may skip) hash
    to ``digest``: SHA-256 over each row's canonical JSON and a newline, in id order."""

    first: Count
    last: Count
    count: Count
    digest: Sha256Hex


class AccessPurged(Payload, frozen=True):
    """The owner's retention purge removed every access-log row up to id ``through``
    (``count`` rows, all recorded before ``before``): their seals are no longer checkable."""

    through: Count
    count: Count
    before: Annotated[str, msgspec.Meta(min_length=20, max_length=32)]


# --- signed tree heads of the record (audit.digests) ----------------------------------------
# Appended to the stream ``audit.digests`` by the server only (manage.py digest, the beat).

StreamCode = Annotated[
    str, msgspec.Meta(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*\Z")
]
HexKeyId = Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{16}\Z")]
HexSignature = Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{128}\Z")]
Timestamp = Annotated[str, msgspec.Meta(pattern=r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z\Z")]


class StreamHead(msgspec.Struct, array_like=True, frozen=True, forbid_unknown_fields=True):
    """A stream's last event as ``[version, hash]``."""

    version: Count
    hash: Sha256Hex


class DigestSigned(Payload, frozen=True):
    """A signed tree head (audit.record.signing): the record's first ``size`` events have
    Merkle root ``root`` and these stream heads, signed by key ``key_id``; with the head
    signed before it and the consistency proof from it (the record only grew)."""

    size: Count
    root: Sha256Hex
    timestamp: Timestamp
    key_id: HexKeyId
    signature: HexSignature
    streams: dict[StreamCode, StreamHead]
    previous_size: Count | None
    previous_root: Sha256Hex | None
    consistency: list[Sha256Hex]


LeafFormat = Annotated[int, msgspec.Meta(ge=1, le=2)]


class DigestSignedV2(DigestSigned, frozen=True):
    """v2: ``leaf_format``, the layout of the tree's leaves (audit.record.merkle): 2 when
    each leaf commits to the event's seal. A v1 head's leaves are of format 1. The first
    head of a new format starts a new tree: it names no previous head (no consistency proof
    joins trees of two formats)."""

    leaf_format: LeafFormat


# --- the store's own structure (audit.store.partitions, regulator.archive) ---------------------------
# Appended to the stream ``audit.store`` by the owner's archival only (``manage.py
# event_partitions --detach``), in the transaction that detaches the partition.

PartitionName = Annotated[
    str, msgspec.Meta(min_length=1, max_length=63, pattern=r"^[a-z][a-z0-9_]*\Z")
]


class StreamSpan(msgspec.Struct, array_like=True, frozen=True, forbid_unknown_fields=True):
    """The versions of a stream a detach took away, as ``[first, last]``."""

    first: Count
    last: Count


class HeadCited(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """A signed tree head named by its size, root, time and key (the package's latest)."""

    size: Count
    root: Sha256Hex
    timestamp: Timestamp
    key_id: HexKeyId


class PartitionDetached(Payload, DayChecked, frozen=True):
    """Gaming day ``day``'s partition ``partition`` was detached from the event table:
    ``events`` events at positions ``first_position`` .. ``last_position`` (positions may
    skip), each stream's versions ``streams[name] = [first, last]``; the regulator's package
    that holds them has the manifest of SHA-256 ``package_sha256`` and latest signed head
    ``signed_head``. ``archived``: every stream's last archived version and its hash, over
    this detach and every earlier one (``verify`` starts each chain there)."""

    DAYS = ("day",)
    day: GamingDay
    partition: PartitionName
    package_sha256: Sha256Hex
    signed_head: HeadCited
    events: Count
    first_position: Count
    last_position: Count
    streams: dict[StreamCode, StreamSpan]
    archived: dict[StreamCode, StreamHead]


# --- the floor's alerts, acknowledged by people ----------------------------------------------
# Appended to the stream ``audit.alerts`` by the server only (the back-office's dashboard):
# an alert (a read model row: a high or critical finding, a failed verification, a table
# silent too long) was seen by someone on the floor - who (``by``), when (``occurred_at``),
# what they said (``note``).


class AlertAcknowledged(Payload, frozen=True):
    # the alert's stable key, e.g. finding:<fingerprint>, silent:BJ-01:4711, verify:2026-11-29T22:00:00Z
    alert: Annotated[str, msgspec.Meta(min_length=1, max_length=200)]
    kind: Literal["finding", "silent_table", "verify_failed"]
    # where, so the record reads on its own: the table (None for the whole store), and the
    # finding's fingerprint for an alert raised by a finding
    table: (
        Annotated[
            str, msgspec.Meta(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*\Z")
        ]
        | None
    )
    finding: Sha256Hex | None
    by: Text
    note: Text | None


# --- the ledger: accounting's sign-off of a table's gaming day ------------------------------
# Appended to the stream ``audit.ledger`` by the server only (ledger.signoff): who (the
# envelope's ``actor`` and ``by``), when (``occurred_at``) and why (``note``).

TableCode = Annotated[
    str, msgspec.Meta(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*\Z")
]


class SignedFigures(msgspec.Struct, forbid_unknown_fields=True, frozen=True, kw_only=True):
    """The figures of a table's gaming day as accounting signed them, in the table
    currency's minor units; wins are house results (+ the house won). None: not known
    (no count, no drop, no replay, no theoretical)."""

    opener: Money | None
    closer: Money | None
    fills: Money
    credits: Money
    drop: Money | None
    handle: Money
    chip_win: SignedMoney | None
    recorded_win: SignedMoney
    replayed_win: SignedMoney | None
    theoretical_win: SignedMoney | None


class LedgerSignedOff(Payload, DayChecked, frozen=True):
    """Accounting signs a table's gaming day's reconciliation off (COMAR-style): the
    figures it signed and their hash (SHA-256 of the figures' canonical JSON), so that a
    later change of the day's figures is told from the record alone."""

    table: TableCode
    gaming_day: GamingDay
    currency: Currency
    figures: SignedFigures
    figures_hash: Sha256Hex
    by: Text
    note: Text | None


# a table-day's accounting state as accounting signs it (docs/accounting.md, "States")
DayState = Literal["open", "incomplete", "no_drop_box", "counted", "reconciled"]
# what a sign-off's note signs over: a thing missing from the day's record (the finding kind
# that names it), a variance not explained, a drop posted other than counted, or a day whose
# table has not opened a later one
SignOffException = Literal[
    "opener_missing",
    "closer_missing",
    "drop_not_counted",
    "drop_not_posted",
    "slip_unfinished",
    "chip_variance",
    "replay_variance",
    "drop_mismatch",
    "not_final",
]
SignedFigure = Literal[
    "opener",
    "closer",
    "fills",
    "credits",
    "drop",
    "handle",
    "chip_win",
    "recorded_win",
    "replayed_win",
    "theoretical_win",
]


class Adjustment(msgspec.Struct, DayChecked, forbid_unknown_fields=True, frozen=True, kw_only=True):
    """What events that arrived after an earlier day was signed off changed of it, posted
    into the day signed here: each signed figure's change, and the changes the reports
    count - of the chip-count win, the drop and the house result (the recorded win) - in
    minor units."""

    gaming_day: GamingDay  # the signed day they belong to
    figures: dict[SignedFigure, SignedMoney]
    win: SignedMoney
    drop: SignedMoney
    house_result: SignedMoney


class LedgerSignedOffV2(Payload, DayChecked, frozen=True):
    """v2 adds the day's accounting state when it was signed, the exceptions its note signs
    over, and the adjustments from earlier signed days it carries (v1 reads as v2 with
    the state None and neither)."""

    table: TableCode
    gaming_day: GamingDay
    currency: Currency
    figures: SignedFigures
    figures_hash: Sha256Hex
    by: Text
    note: Text | None
    state: DayState | None
    exceptions: Annotated[list[SignOffException], msgspec.Meta(max_length=8)]
    adjustments: Annotated[list[Adjustment], msgspec.Meta(max_length=400)]


class LedgerReopened(Payload, DayChecked, frozen=True):
    """A signed-off day reopened; the note saying why is required."""

    table: TableCode
    gaming_day: GamingDay
    figures_hash: Sha256Hex  # of the sign-off it reopens
    by: Text
    note: Text


class LedgerSlipBookIssued(Payload, frozen=True):
    """Accounting records a book of fill or credit slips issued for use (MICS's slip
    control): its numbers ``first`` to ``last``, the same prefix and a run of digits of one
    width (``F-0100001`` to ``F-0100050``). The slip sequence report tells each number of
    a book used, voided, under way, skipped (a gap) or not yet used."""

    kind: Literal["fill", "credit"]
    first: Ident
    last: Ident
    by: Text
    note: Text | None
