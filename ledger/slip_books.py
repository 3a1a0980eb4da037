"""Slip books: how the range of fill and credit slip numbers issued for use is known.

Fill and credit slips are numbered, pre-printed forms; the cage hands them out a book at
a time, and a number issued but never used is a control question (Nevada's Table Games
MICS: the unused-slip report). The record knows the slips that were used - each step is an
event naming its number - but not which numbers were issued. So accounting records each
book issued: ``slip_book_issue`` appends ``ledger.slip_book_issued`` (the kind, the first
and the last number, who, a note) to the server's stream ``audit.ledger`` and writes the
:class:`~ledger.models.SlipBook` row, in one durable transaction - the audit record
written with the change, as sign-off's is. A book is a prefix and a run of digits of one
width (``F-0100001`` to ``F-0100050``); one that overlaps a book of the same kind
already recorded is refused, so each number belongs to one book at most.

Who: a person holding ``ledger.add_slipbook`` (the ``accounting`` group); never a device.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

from audit.access.authority import require_person
from audit.findings.workflow import server_change, server_event_append, username_of
from audit.store.errors import FieldInvalid, StoreError

from . import models as m
from .signoff import LEDGER_STREAM

MAX_BOOK = 10_000  # numbers in one book: a book of slips is a few hundred at most
_NUMBER = re.compile(r"^(?P<prefix>[A-Za-z0-9._:@/-]*?)(?P<digits>[0-9]+)\Z")


class SlipBookInvalid(FieldInvalid):
    """A book that cannot be: the field and why (HTTP 400)."""


class SlipBookOverlap(StoreError):
    """The book shares numbers with one recorded already (HTTP 409)."""

    http_status = 409
    code = "slip_book_overlap"


@dataclass(frozen=True)
class Numbering:
    """A slip number read as a prefix and a number written with ``width`` digits."""

    prefix: str
    value: int
    width: int


def numbering(number: str) -> Numbering | None:
    """``F-0100001`` -> prefix ``F-``, 100001, width 7; None for a number that does not end
    in digits (such a slip belongs to no book)."""
    match = _NUMBER.match(number)
    if match is None:
        return None
    digits = match["digits"]
    return Numbering(match["prefix"], int(digits), len(digits))


def _parse(field: str, number: str) -> Numbering:
    found = numbering(number) if isinstance(number, str) and 0 < len(number) <= 64 else None
    if found is None:
        raise SlipBookInvalid(
            field, f"{number!r} is not a slip number ending in digits (e.g. F-0100001)"
        )
    return found


def slip_book_issue(
    *,
    kind: str,
    first: str,
    last: str,
    user: object,
    note: str | None = None,
    now: datetime | None = None,
) -> m.SlipBook:
    """Record the book of ``kind`` slips numbered ``first`` to ``last`` as issued."""
    require_person(user, "ledger.add_slipbook", "record a book of slips (the accounting group)")
    if kind not in m.SlipBook.Kind.values:
        raise SlipBookInvalid("kind", f"{kind!r}: expected fill or credit")
    start, end = _parse("first", first), _parse("last", last)
    if (start.prefix, start.width) != (end.prefix, end.width):
        raise SlipBookInvalid(
            "last", f"{last!r} is not of {first!r}'s series: the same prefix and as many digits"
        )
    if end.value < start.value:
        raise SlipBookInvalid("last", f"{last!r} comes before {first!r}")
    if end.value - start.value + 1 > MAX_BOOK:
        raise SlipBookInvalid(
            "last", f"a book of {end.value - start.value + 1:,} numbers: at most {MAX_BOOK:,}"
        )
    username = username_of(user)
    note = (note or "").strip() or None
    now = now or datetime.now(UTC)

    def action() -> m.SlipBook:
        overlap = (
            m.SlipBook.objects.select_for_update()
            .filter(
                kind=kind,
                prefix=start.prefix,
                width=start.width,
                first__lte=end.value,
                last__gte=start.value,
            )
            .first()
        )
        if overlap is not None:
            raise SlipBookOverlap(
                f"{kind} slips {first} to {last} overlap the book {overlap.first_number} to "
                f"{overlap.last_number} recorded by {overlap.issued_by}"
            )
        version = server_event_append(
            stream=LEDGER_STREAM,
            type="ledger.slip_book_issued",
            payload={
                "kind": kind,
                "first": first,
                "last": last,
                "by": username,
                "note": note,
            },
            user=user,
            now=now,
        ).version
        return m.SlipBook.objects.create(
            kind=kind,
            prefix=start.prefix,
            first=start.value,
            last=end.value,
            width=start.width,
            first_number=first,
            last_number=last,
            issued_by=username,
            issued_at=now,
            note=note or "",
            event_version=version,
        )

    return server_change(action)
