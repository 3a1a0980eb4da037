"""The registry of event types: name -> payload schema per version, plus upcasters.

``validate_payload`` is the only door into the store: it refuses an unknown type, an
unknown field, a missing field or a wrong type with a message naming the field, and
returns the payload in its normal form (defaults filled in), which is what is stored and
hashed. Stored payloads keep the version they were written in; ``upcast`` lifts them to
the current version when they are read, and :func:`current_form` gives a fold the whole
current form (the members a current schema leaves out when they are ``None`` put back):
every reader of events for a fold - the store's (``audit.store.reading``) and a file's - hands
the folds that form only (:func:`read_current`), so no fold reads an older version.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import msgspec

from . import catalogue as c
from . import custody as k

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]


def gettext_noop(text: str) -> str:
    """Marks a title for the translators' catalogue (``makemessages`` reads the call) and
    returns it as it is: the catalogue is pure, the screens translate at display."""
    return text


class PayloadError(ValueError):
    """An event refused by the catalogue; ``field`` is a dotted path such as
    ``payload.settlements[0].net``."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True)
class EventType:
    """A type of the catalogue. ``authority``: the permission (``app.codename``) a person
    must hold to record it - a type that changes money or a finding after the fact (a
    correction, a void); never a table device's, whatever its payload names.
    ``off_table``: the permission of the people who record it where it happens away from
    the table - the count room, the cage, accounting (:data:`PLACES`) - so never a table
    device's, which speaks for its own table only.
    ``server_only``: written only by the back-office's own services into its ``audit.*``
    streams, refused on a table's stream from anyone (docs/events.md lists all three)."""

    name: str
    # what it is in a few words, for people (English; the screens translate it:
    # audit.presenting.vocabulary.event_title)
    title: str
    schemas: Mapping[int, type[msgspec.Struct]]
    # upcasters[v] turns a version-v payload into version v+1
    upcasters: Mapping[int, Upcaster] = field(default_factory=dict)
    authority: str | None = None
    off_table: str | None = None
    server_only: bool = False

    @property
    def version(self) -> int:
        return max(self.schemas)


def _bet_placed_v1_to_v2(payload: dict[str, Any]) -> dict[str, Any]:
    return {**payload, "parent": None}


def _inventory_v1_to_v2(payload: dict[str, Any]) -> dict[str, Any]:
    return {**payload, "gaming_day": None, "shift": None, "slip": None}


def _table_step_v1_to_v2(payload: dict[str, Any]) -> dict[str, Any]:
    return {**payload, "dealer": None, "supervisor": None}


def _drop_counted_v1_to_v2(payload: dict[str, Any]) -> dict[str, Any]:
    return {**payload, "shift": None, "chips": None, "team": None}


def _digest_signed_v1_to_v2(payload: dict[str, Any]) -> dict[str, Any]:
    return {**payload, "leaf_format": 1}


def _signed_off_v1_to_v2(payload: dict[str, Any]) -> dict[str, Any]:
    return {**payload, "state": None, "exceptions": [], "adjustments": []}


# the permissions of the types that change money after the fact (audit.models.Event's
# Meta declares them; the role groups' migrations give them to the pit boss)
CORRECT_ROUND = "audit.correct_round"  # a round's correction or void
VOID_SLIP = "audit.void_slip"  # a fill or credit slip's void

# the permissions of the types recorded away from the table (the groups count_team, cage
# and accounting hold one each), and who records each, as the refusals name them
RECORD_COUNT = "audit.record_count"  # the count room's count of a drop box
RECORD_CAGE = (
    "audit.record_cage"  # the cage's steps: a fill issued, a credit received, a marker redeemed
)
POST_DROP = "audit.post_drop"  # accounting's posting of a counted drop to the books
PLACES: Mapping[str, str] = {
    RECORD_COUNT: "the count team, in the count room",
    RECORD_CAGE: "a cashier, at the cage",
    POST_DROP: "accounting",
}


_TYPES = [
    EventType("table.opened", gettext_noop("Table opened"), {1: c.TableOpened}),
    EventType("table.closed", gettext_noop("Table closed"), {1: c.TableClosed}),
    EventType("dealer.assigned", gettext_noop("Dealer assigned"), {1: c.DealerAssigned}),
    EventType(
        "inventory.counted",
        gettext_noop("Chip inventory counted"),
        {1: c.InventoryCounted, 2: k.InventoryCountedV2},
        upcasters={1: _inventory_v1_to_v2},
    ),
    EventType(
        "chips.filled",
        gettext_noop("Chips filled"),
        {1: c.ChipsFilled, 2: k.TableStepV2},
        upcasters={1: _table_step_v1_to_v2},
    ),
    EventType(
        "chips.credited",
        gettext_noop("Chips credited"),
        {1: c.ChipsCredited, 2: k.TableStepV2},
        upcasters={1: _table_step_v1_to_v2},
    ),
    EventType("buyin.recorded", gettext_noop("Buy-in recorded"), {1: c.BuyinRecorded}),
    EventType(
        "drop.counted",
        gettext_noop("Drop box counted"),
        {1: c.DropCounted, 2: k.DropCountedV2},
        upcasters={1: _drop_counted_v1_to_v2},
        off_table=RECORD_COUNT,
    ),
    EventType("shoe.shuffled", gettext_noop("Shoe shuffled"), {1: c.ShoeShuffled}),
    EventType("shoe.cut", gettext_noop("Shoe cut"), {1: c.ShoeCut}),
    EventType("card.burned", gettext_noop("Card burned"), {1: c.CardBurned}),
    EventType("round.started", gettext_noop("Round started"), {1: c.RoundStarted}),
    EventType(
        "bet.placed",
        gettext_noop("Bet placed"),
        {1: c.BetPlacedV1, 2: c.BetPlaced},
        upcasters={1: _bet_placed_v1_to_v2},
    ),
    EventType("betting.closed", gettext_noop("Betting closed"), {1: c.BettingClosed}),
    EventType("card.dealt", gettext_noop("Card dealt"), {1: c.CardDealt}),
    EventType("decision.made", gettext_noop("Decision made"), {1: c.DecisionMade}),
    EventType("cashout.offered", gettext_noop("Cash-out offered"), {1: c.CashoutOffered}),
    EventType("cashout.accepted", gettext_noop("Cash-out accepted"), {1: c.CashoutAccepted}),
    EventType("card.revealed", gettext_noop("Card revealed"), {1: c.CardRevealed}),
    EventType("round.settled", gettext_noop("Round settled"), {1: c.RoundSettled}),
    EventType(
        "round.voided", gettext_noop("Round voided"), {1: c.RoundVoided}, authority=CORRECT_ROUND
    ),
    EventType(
        "correction.recorded",
        gettext_noop("Correction recorded"),
        {1: c.CorrectionRecorded},
        authority=CORRECT_ROUND,
    ),
    EventType(
        "finding.acknowledged",
        gettext_noop("Finding acknowledged"),
        {1: c.FindingStatusChanged},
        server_only=True,
    ),
    EventType(
        "finding.resolved",
        gettext_noop("Finding resolved"),
        {1: c.FindingStatusChanged},
        server_only=True,
    ),
    EventType(
        "finding.reopened",
        gettext_noop("Finding reopened"),
        {1: c.FindingStatusChanged},
        server_only=True,
    ),
    EventType(
        "alert.acknowledged",
        gettext_noop("Alert acknowledged"),
        {1: c.AlertAcknowledged},
        server_only=True,
    ),
    EventType(
        "access.sealed", gettext_noop("Access log sealed"), {1: c.AccessSealed}, server_only=True
    ),
    EventType(
        "access.purged", gettext_noop("Access log purged"), {1: c.AccessPurged}, server_only=True
    ),
    EventType(
        "digest.signed",
        gettext_noop("Record's head signed"),
        {1: c.DigestSigned, 2: c.DigestSignedV2},
        upcasters={1: _digest_signed_v1_to_v2},
        server_only=True,
    ),
    EventType(
        "store.partition_detached",
        gettext_noop("Gaming day archived"),
        {1: c.PartitionDetached},
        server_only=True,
    ),
    EventType(
        "ledger.signed_off",
        gettext_noop("Gaming day signed off"),
        {1: c.LedgerSignedOff, 2: c.LedgerSignedOffV2},
        upcasters={1: _signed_off_v1_to_v2},
        server_only=True,
    ),
    EventType(
        "ledger.reopened",
        gettext_noop("Signed-off day reopened"),
        {1: c.LedgerReopened},
        server_only=True,
    ),
    EventType(
        "ledger.slip_book_issued",
        gettext_noop("Slip book issued"),
        {1: c.LedgerSlipBookIssued},
        server_only=True,
    ),
    # --- custody (custody.py): slips' lifecycles, the drop from removal to posting, markers
    EventType("fill.requested", gettext_noop("Fill requested"), {1: k.SlipRequested}),
    EventType("fill.issued", gettext_noop("Fill issued"), {1: k.CageStep}, off_table=RECORD_CAGE),
    EventType("fill.voided", gettext_noop("Fill voided"), {1: k.SlipVoided}, authority=VOID_SLIP),
    EventType("credit.requested", gettext_noop("Credit requested"), {1: k.SlipRequested}),
    EventType(
        "credit.received", gettext_noop("Credit received"), {1: k.CageStep}, off_table=RECORD_CAGE
    ),
    EventType(
        "credit.voided", gettext_noop("Credit voided"), {1: k.SlipVoided}, authority=VOID_SLIP
    ),
    EventType("drop.removed", gettext_noop("Drop box removed"), {1: k.DropRemoved}),
    EventType("drop.posted", gettext_noop("Drop posted"), {1: k.DropPosted}, off_table=POST_DROP),
    EventType("marker.issued", gettext_noop("Marker issued"), {1: k.MarkerIssued}),
    EventType(
        "marker.redeemed",
        gettext_noop("Marker redeemed"),
        {1: k.MarkerRedeemed},
        off_table=RECORD_CAGE,
    ),
    EventType("fx.rate_set", gettext_noop("Exchange rate set"), {1: k.FxRateSet}, server_only=True),
]

REGISTRY: dict[str, EventType] = {t.name: t for t in _TYPES}
# type -> the permission a person needs to record it (the money-changing types)
AUTHORITY: Mapping[str, str] = {t.name: t.authority for t in _TYPES if t.authority is not None}
# type -> the permission of the people who record it away from the table (no table device)
OFF_TABLE: Mapping[str, str] = {t.name: t.off_table for t in _TYPES if t.off_table is not None}
# the types only the back-office's own services write, into its audit.* streams
SERVER_ONLY: frozenset[str] = frozenset(t.name for t in _TYPES if t.server_only)

_AT = re.compile(r" - at (?P<key>`key` in )?`\$(?P<path>[^`]*)`$")
_FIELD = re.compile(r"field `(?P<name>[^`]+)`")
_CHECKED = re.compile(r"^(?P<name>[a-z_]+): (?P<why>.+)$", re.DOTALL)
_NOT_A_DATE = "Invalid RFC3339 encoded date"


def explain(error: msgspec.ValidationError) -> PayloadError:
    text = str(error)
    path = "payload"
    at = _AT.search(text)
    if at:
        path += at.group("path")
        text = text[: at.start()] + (" (in a key)" if at.group("key") else "")
    named = _FIELD.search(text)
    if named and ("missing required" in text or "unknown field" in text):
        path = f"{path}.{named.group('name')}"
    checked = _CHECKED.match(text)
    if checked:  # a payload's own check once decoded (fields.DayChecked): "<field>: why"
        path, text = f"{path}.{checked.group('name')}", checked.group("why")
    if text.startswith(_NOT_A_DATE):
        text = "not a calendar date (YYYY-MM-DD, e.g. 2026-11-29)" + text[len(_NOT_A_DATE) :]
    return PayloadError(path, text)


def _event_type(type_name: str) -> EventType:
    try:
        return REGISTRY[type_name]
    except KeyError:
        raise PayloadError("type", f"unknown event type {type_name!r}") from None


def current_version(type_name: str) -> int:
    return _event_type(type_name).version


def validate_payload(
    type_name: str, schema_version: int | None, payload: object
) -> tuple[int, dict[str, Any]]:
    """Check ``payload`` against its schema; return (schema_version, normal form)."""
    event_type = _event_type(type_name)
    version = event_type.version if schema_version is None else schema_version
    schema = _schema(event_type, type_name, version)
    if not isinstance(payload, dict):
        raise PayloadError("payload", f"expected an object, got {type(payload).__name__}")
    try:
        value = msgspec.convert(payload, schema, strict=True)
    except msgspec.ValidationError as error:
        raise explain(error) from None
    return version, _normal(value)


def validate_payload_json(
    type_name: str, schema_version: int | None, raw: bytes | msgspec.Raw
) -> tuple[int, dict[str, Any]]:
    """:func:`validate_payload` for a payload still in JSON text: decoded straight into
    its schema, which is several times faster than decoding and then converting."""
    version, normal, _ = decode_payload_json(type_name, schema_version, raw)
    return version, normal


def decode_payload_json(
    type_name: str, schema_version: int | None, raw: bytes | msgspec.Raw
) -> tuple[int, dict[str, Any], bytes]:
    """:func:`validate_payload_json`, and the normal form's canonical bytes (RFC 8785,
    what the hash chain writes of it): a reader that hashes the event takes them from
    here rather than encoding the payload a second time."""
    # a type and version read before: one look-up (not for a bool, which hashes as 1 and 0)
    known = _READERS.get((type_name, schema_version)) if type(schema_version) is int else None
    if known is None:
        known = _reader(type_name, schema_version)
    version, decode = known
    # the normal form and its bytes made here, not by a call of _encoded: every line a
    # reader of a file decodes comes through (the auditor: a twentieth of its decode)
    try:
        normal: dict[str, Any] = _to_builtins(decode(raw))
    except msgspec.ValidationError as error:
        raise explain(error) from None
    except msgspec.DecodeError as error:
        raise PayloadError("payload", f"not JSON: {error}") from None
    try:
        return version, normal, _canonical_encode(normal)
    except UnicodeEncodeError:
        raise PayloadError("payload", _LONE_SURROGATE) from None


def _reader(
    type_name: str, schema_version: int | None
) -> tuple[int, Callable[[bytes | msgspec.Raw], msgspec.Struct]]:
    """(the schema version, its decoder) of a payload of ``type_name`` (PayloadError for an
    unknown type or version), kept for the next payload of that type and version."""
    event_type = _event_type(type_name)
    version = event_type.version if schema_version is None else schema_version
    schema = _schema(event_type, type_name, version)
    decode = _DECODERS.get(schema)
    if decode is None:
        decode = _DECODERS[schema] = msgspec.json.Decoder(schema).decode
    if type(schema_version) is int:
        _READERS[(type_name, schema_version)] = (version, decode)
    return version, decode


# (type, schema version) -> (its version, its decoder): a line's payload found in one look-up
_READERS: dict[tuple[str, int], tuple[int, Callable[[bytes | msgspec.Raw], msgspec.Struct]]] = {}
# each schema's JSON decoder, made once (the same strict decoding): msgspec.json.decode(raw,
# type=schema) finds the type's decoder again on every call, a third of a payload's decode
_DECODERS: dict[type[msgspec.Struct], Callable[[bytes | msgspec.Raw], msgspec.Struct]] = {}


def _schema(event_type: EventType, type_name: str, version: object) -> type[msgspec.Struct]:
    schema = (
        event_type.schemas.get(version)
        if isinstance(version, int) and not isinstance(version, bool)
        else None
    )
    if schema is None:
        known = ", ".join(str(v) for v in sorted(event_type.schemas))
        raise PayloadError(
            "schema_version", f"{type_name} has no schema version {version!r} (known: {known})"
        )
    return schema


def _normal(value: msgspec.Struct) -> dict[str, Any]:
    """The normal form of a decoded payload, its text checked by encoding it as the chain
    would (:func:`decode_payload_json` does the same and keeps the bytes)."""
    normal: dict[str, Any] = _to_builtins(value)
    try:
        _canonical_encode(normal)
    except UnicodeEncodeError:
        raise PayloadError("payload", _LONE_SURROGATE) from None
    return normal


_LONE_SURROGATE = "contains text that is not valid Unicode (a lone surrogate)"
_to_builtins = msgspec.to_builtins
# the encoder of audit.record.chain.canonical_json (RFC 8785 for the values the catalogue
# allows): encoding the normal form checks its text and gives the bytes the chain hashes
_canonical = msgspec.json.Encoder(order="sorted")
_canonical_encode = _canonical.encode


def upcast(
    type_name: str, schema_version: int, payload: dict[str, Any]
) -> tuple[int, dict[str, Any]]:
    """Lift a stored payload to the current version of its type."""
    event_type = _event_type(type_name)
    version = schema_version
    while version < event_type.version:
        payload = event_type.upcasters[version](payload)
        version += 1
    return version, payload


def _omitted(schema: type[msgspec.Struct]) -> dict[str, Any]:
    """The members ``schema`` leaves out of the normal form when they are ``None``
    (``omit_defaults``), each ``None``: what a reader puts back."""
    if not schema.__struct_config__.omit_defaults:
        return {}
    fields, defaults = schema.__struct_fields__, schema.__struct_defaults__
    named = dict(zip(fields[len(fields) - len(defaults) :], defaults, strict=True))
    return {name: None for name, default in named.items() if default is None}


# type -> (its current version, the members its current form may leave out, each None)
_CURRENT_FORM: dict[str, tuple[int, dict[str, Any]]] = {
    name: (t.version, _omitted(t.schemas[t.version])) for name, t in REGISTRY.items()
}
# the types whose stored payloads a reader may have to lift: an older version, or members
# the normal form leaves out
LIFTED: frozenset[str] = frozenset(
    name for name, t in REGISTRY.items() if t.version > 1 or _CURRENT_FORM[name][1]
)


def current_form(
    type_name: str, schema_version: int, payload: dict[str, Any]
) -> tuple[int, dict[str, Any]]:
    """A stored payload as a fold reads it: lifted to its type's current version by the
    upcasters, with every member the current schema leaves out of the normal form (a
    ``None`` under ``omit_defaults``) put back as ``None``. ``payload`` is not changed."""
    version, lifted = upcast(type_name, schema_version, payload)
    omitted = _CURRENT_FORM[type_name][1]
    if omitted and not omitted.keys() <= lifted.keys():
        lifted = {**lifted, **{name: None for name in omitted if name not in lifted}}
    return version, lifted


def read_current(event: dict[str, Any]) -> dict[str, Any]:
    """``event`` (an envelope's dict with ``type``, ``schema_version`` and ``payload``)
    with its payload in :func:`current_form` and its ``schema_version`` the current one;
    the same dict, changed in place, or as it was for a type that never needs it."""
    kind = event["type"]
    if kind in LIFTED:
        event["schema_version"], event["payload"] = current_form(
            kind, event["schema_version"], event["payload"]
        )
    return event
