"""Payload schemas of chip and cash custody: inventory slips, fill and credit slips and
their lifecycle, the drop box from removal to posting, markers, shifts.

After the minimum internal control standards (Nevada Table Games MICS; Maryland COMAR
36.05.03.02 and .10; New Jersey N.J.A.C. 13:69D-1.21): every step that moves chips or
cash, or a slip that stands for them, is an event naming the people who signed for it.

- **Inventory slips.** ``inventory.counted`` v2: the opener or closer of one shift, per
  denomination, counted by the dealer and witnessed by the floor supervisor, with the
  gaming day, the shift and the slip number. The closer of one shift is the opener of the
  next (the two parts of one slip).
- **Fills.** ``fill.requested`` (floor supervisor) -> ``fill.issued`` (cage cashier,
  carried by a runner or security officer) -> ``chips.filled`` (received and verified at
  the table by dealer and supervisor: the moment the tray changes).
- **Credits.** ``credit.requested`` (floor supervisor) -> ``chips.credited`` (the chips
  leave the table: dealer and supervisor) -> ``credit.received`` (at the cage: cashier,
  carried by a runner or security officer).
- **Voids.** ``fill.voided`` / ``credit.voided``: a slip cancelled before it is complete,
  with the reason, by a supervisor and a witness; both parts of the paper slip are kept.
- **The drop.** ``drop.removed`` (security, witnessed; the shift's compartment) ->
  ``drop.counted`` v2 (the count team, per instrument: cash, markers, chips) ->
  ``drop.posted`` (accounting posts the count to the books).
- **Markers.** ``marker.issued`` at the table (chips to the player, the marker slip into
  the drop box) and ``marker.redeemed`` at the cage.
- **Foreign currency.** ``fx.rate_set``: accounting sets, per gaming day, the rate at which
  the casino takes a foreign currency at its tables (the server's stream ``audit.ledger``).
  Every money fact above states its currency; one in another currency than the table's is
  booked at that day's rate, both amounts kept, or not at all (a finding).

All of a table's custody events are appended to the table's stream, whoever records them
(the cage, the count room): the stream is the table's record, and the envelope's actor
says who wrote the event.

The older versions of the four changed types stay in ``catalogue.py`` under their names
(``InventoryCounted``, ``ChipsFilled``, ``ChipsCredited``, ``DropCounted``, all v1); the new
versions here carry ``V2`` (one ``TableStepV2`` for both table-side steps) and the registry
upcasts v1 payloads to them, the new members ``None``. Those new members are the only fields
of the catalogue besides ``table.opened``'s ``rules`` with a default (``None``), and these
four classes leave a ``None`` member out of the normal form (``omit_defaults``): a sender
that stamps the current version on a payload of the v1 shape - the simulator and devices of
before the custody work - is valid, and its payload is stored and hashed exactly as it was
sent. Readers take an absent member as ``None``.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from .catalogue import Chips
from .fields import MAX_SAFE_INT, Box, Currency, DayChecked, GamingDay, Ident, Money, Payload, Text

# The classes repeat ``frozen=True`` (already the base's) so that mypy, which reads msgspec
# Structs as dataclasses, sees them frozen too.

# A shift's label as the shift plan names it: its start time ("06:00") or a name ("swing").
Shift = Annotated[
    str,
    msgspec.Meta(
        min_length=1,
        max_length=32,
        pattern=r"^[A-Za-z0-9][A-Za-z0-9._:-]*\Z",
        description="the shift's label, e.g. 06:00 or swing",
    ),
]
# the count team: at least one person
Team = Annotated[list[Ident], msgspec.Meta(min_length=1, max_length=16)]


# --- inventory slips ---------------------------------------------------------------------------


class InventoryCountedV2(Payload, DayChecked, frozen=True, omit_defaults=True):
    """v2 adds the slip's gaming day, shift and number (v1 reads as v2 with them None)."""

    kind: Literal["opening", "closing"]
    chips: Chips
    counted_by: Ident  # the dealer
    witnessed_by: Ident  # the floor supervisor
    gaming_day: GamingDay | None = None
    shift: Shift | None = None
    slip: Ident | None = None


# --- fills and credits -------------------------------------------------------------------------


class SlipRequested(Payload, frozen=True):
    """``fill.requested`` / ``credit.requested``: the floor supervisor asks the cage."""

    slip: Ident
    chips: Chips
    requested_by: Ident  # the floor supervisor


class CageStep(Payload, frozen=True):
    """``fill.issued`` / ``credit.received``, the cage's step of a fill or credit: the
    cashier issues a fill's chips or receives a credit's, handed to or by the runner or
    security officer who carries them."""

    slip: Ident
    chips: Chips
    cashier: Ident
    carried_by: Ident  # runner or security officer


class TableStepV2(Payload, frozen=True, omit_defaults=True):
    """``chips.filled`` / ``chips.credited`` v2, the table-side step of a fill or credit:
    the moment the tray changes (a fill's chips received and verified at the table, a
    credit's chips leaving it). v2 names the dealer and the supervisor (None when read
    from v1)."""

    slip: Ident
    chips: Chips
    dealer: Ident | None = None
    supervisor: Ident | None = None


class SlipVoided(Payload, frozen=True):
    """``fill.voided`` / ``credit.voided``: the slip is cancelled, both its parts kept.
    ``reason`` is required by the standards; a void recorded without one is a finding
    (``void_without_reason``), not a refused event, because the void happened."""

    slip: Ident
    reason: Text | None
    voided_by: Ident  # the floor supervisor (or the cage, for an issued fill)
    witnessed_by: Ident


# --- the drop box ------------------------------------------------------------------------------


class DropRemoved(Payload, DayChecked, frozen=True):
    """Security takes the drop box (or one shift's compartment of it) off the table."""

    gaming_day: GamingDay
    shift: Shift | None  # None: the whole gaming day's box
    box: Ident  # the drop box's number
    removed_by: Ident  # security officer
    witnessed_by: Ident


class DropCountedV2(Payload, DayChecked, frozen=True, omit_defaults=True):
    """The count team's count of one box (or compartment), per instrument. v2 adds the
    shift, the chips found in the box and the rest of the team (v1 reads as v2 with them
    None)."""

    gaming_day: GamingDay
    cash: Money
    markers: Money
    currency: Currency
    counted_by: Ident  # the count team's lead, who signs the count sheet
    shift: Shift | None = None
    chips: Money | None = None
    team: Team | None = None  # the other members of the count team


class DropPosted(Payload, DayChecked, frozen=True):
    """Accounting posts the count to the books (the amounts as posted)."""

    gaming_day: GamingDay
    shift: Shift | None
    cash: Money
    markers: Money
    chips: Money
    currency: Currency
    posted_by: Ident


# --- markers -----------------------------------------------------------------------------------


class MarkerIssued(Payload, frozen=True):
    """Credit extended at the table: chips from the tray to the player, the marker slip
    into the drop box."""

    marker: Ident  # the marker's number
    player: Ident
    box: Box | None
    amount: Money
    currency: Currency
    approved_by: Ident  # the floor supervisor
    dealer: Ident


class MarkerRedeemed(Payload, frozen=True):
    """The player pays a marker (in part or in full) at the cage."""

    marker: Ident
    amount: Money
    currency: Currency
    method: Literal["cash", "chips", "cheque"]
    received_by: Ident  # the cage cashier


# --- foreign currency --------------------------------------------------------------------------

# a part of an exchange rate: a whole number from 1 to 2**53 - 1
RatePart = Annotated[int, msgspec.Meta(ge=1, le=MAX_SAFE_INT)]


class FxRateSet(Payload, DayChecked, frozen=True):
    """``fx.rate_set``: accounting sets the rate at which the casino takes ``currency`` at
    its tables whose currency is ``house`` on ``gaming_day``: one unit of ``currency`` is
    ``numerator / denominator`` units of ``house`` (major units, an exact fraction: USD
    at 0.9215 EUR is 9215/10000). Appended by the server only, to ``audit.ledger``, for a
    person holding the permission; a later one for the same day and pair replaces it."""

    gaming_day: GamingDay
    currency: Currency
    house: Currency
    numerator: RatePart
    denominator: RatePart
    by: Text
    note: Text | None
