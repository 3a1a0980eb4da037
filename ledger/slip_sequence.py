"""Fill and credit slip sequence control: every number of every slip book recorded as
issued (:mod:`ledger.slip_books`) against the slips the record used.

- :func:`slip_books` - per book: its numbers, how many were used (the slip complete),
  voided, still under way (requested or issued, never received), skipped (a *gap*: not
  used while a later number of the book was) and not used yet (after the last one used),
  and the first and last gaming day a number of it was used;
- :func:`slip_sequence` - the exceptions, number by number (runs of consecutive numbers in
  one state on one line): voided (with the reason), under way (its last step), gaps, the
  numbers not used yet, a number used at more than one table, a slip of one kind numbered
  in a book of the other, a slip outside every book of its kind.

A series of slips (a prefix and a width of digits) with no book recorded is still read: its
range is taken from the lowest to the highest number used - named as such, "no book
recorded" - so the gaps inside it show; what lies beyond it cannot be known. A slip whose
number does not end in digits belongs to no series and is listed as such.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from audit.presenting.reports import Column, Report

from . import models as m
from .slip_books import numbering

USED, VOIDED, UNDER_WAY, GAP, UNUSED = "used", "voided", "under way", "gap", "not used yet"
SEVERAL, WRONG_KIND, OUTSIDE, NO_SERIES = (
    "used at several tables",
    "in a book of the other kind",
    "outside every book",
    "number of no series",
)


@dataclass
class Book:
    """A book recorded, or a series of slips with none (its range the numbers used)."""

    kind: str
    prefix: str
    width: int
    first: int
    last: int
    recorded: m.SlipBook | None
    slips: dict[int, list[m.Slip]] = field(default_factory=lambda: defaultdict(list))

    def number(self, n: int) -> str:
        return f"{self.prefix}{n:0{self.width}d}"

    @property
    def name(self) -> str:
        return f"{self.number(self.first)} to {self.number(self.last)}"


def _books(kind: str | None) -> tuple[list[Book], list[dict[str, Any]]]:
    """Every book with the slips numbered in it, and the exceptions of slips in none."""
    recorded = m.SlipBook.objects.all()
    slips = m.Slip.objects.select_related("table").order_by("number", "table__stream")
    if kind:
        recorded, slips = recorded.filter(kind=kind), slips.filter(kind=kind)
    books = [Book(b.kind, b.prefix, b.width, b.first, b.last, b) for b in recorded]
    others = list(m.SlipBook.objects.exclude(kind=kind)) if kind else []
    series: dict[tuple[str, str, int], list[tuple[int, m.Slip]]] = defaultdict(list)
    loose: list[dict[str, Any]] = []
    for slip in slips:
        found = numbering(slip.number)
        if found is None:
            loose.append(_exception(slip.kind, "-", slip.number, slip.number, 1, NO_SERIES, [slip]))
            continue
        home = next(
            (
                b
                for b in books
                if b.kind == slip.kind
                and (b.prefix, b.width) == (found.prefix, found.width)
                and b.first <= found.value <= b.last
            ),
            None,
        )
        if home is not None:
            home.slips[found.value].append(slip)
            continue
        elsewhere = next(
            (
                b
                for b in [
                    *books,
                    *(Book(o.kind, o.prefix, o.width, o.first, o.last, o) for o in others),
                ]
                if b.kind != slip.kind
                and (b.prefix, b.width) == (found.prefix, found.width)
                and b.first <= found.value <= b.last
            ),
            None,
        )
        if elsewhere is not None:
            loose.append(
                _exception(
                    slip.kind,
                    elsewhere.name,
                    slip.number,
                    slip.number,
                    1,
                    WRONG_KIND,
                    [slip],
                    f"the {elsewhere.kind} slip book {elsewhere.name}",
                )
            )
        elif any(
            b.kind == slip.kind and (b.prefix, b.width) == (found.prefix, found.width)
            for b in books
        ):
            loose.append(_exception(slip.kind, "-", slip.number, slip.number, 1, OUTSIDE, [slip]))
        else:
            series[(slip.kind, found.prefix, found.width)].append((found.value, slip))
    for (kind_, prefix, width), used in sorted(series.items()):
        book = Book(kind_, prefix, width, min(v for v, _ in used), max(v for v, _ in used), None)
        for value, slip in used:
            book.slips[value].append(slip)
        books.append(book)
    books.sort(key=lambda b: (b.kind, b.prefix, b.width, b.first))
    return books, loose


def _state(slips: list[m.Slip]) -> str:
    if len({s.table_id for s in slips}) > 1:
        return SEVERAL
    slip = slips[0]
    return USED if slip.state == "complete" else VOIDED if slip.state == "voided" else UNDER_WAY


def _exception(
    kind: str,
    book: str,
    first: str,
    last: str,
    count: int,
    state: str,
    slips: list[m.Slip],
    detail: str = "",
) -> dict[str, Any]:
    if not detail and slips:
        slip = slips[0]
        detail = {
            VOIDED: slip.void_reason or "no reason recorded",
            UNDER_WAY: f"last step: {slip.state}",
        }.get(state, "")
        if state == SEVERAL:
            detail = "at " + ", ".join(
                f"{s.table.stream} on {s.gaming_day.isoformat()}" for s in slips
            )
    return {
        "kind": kind,
        "book": book,
        "first": first,
        "last": last,
        "count": count,
        "state": state,
        "table": ", ".join(dict.fromkeys(s.table.stream for s in slips)) or None,
        "gaming_day": ", ".join(dict.fromkeys(s.gaming_day.isoformat() for s in slips)) or None,
        "detail": detail or None,
    }


def _walk(book: Book) -> tuple[dict[str, int], list[dict[str, Any]]]:
    """The book's counts per state, and its exceptions (runs of one state merged)."""
    counts = dict.fromkeys((USED, VOIDED, UNDER_WAY, GAP, UNUSED, SEVERAL), 0)
    last_used = max(book.slips, default=None)
    out: list[dict[str, Any]] = []
    run: tuple[str, int, int] | None = None  # state, first, last of a run of numbers without slips

    def flush() -> None:
        if run is not None:
            state, low, high = run
            out.append(
                _exception(
                    book.kind,
                    book.name,
                    book.number(low),
                    book.number(high),
                    high - low + 1,
                    state,
                    [],
                    "" if book.recorded or state != GAP else "no book recorded",
                )
            )

    for n in range(book.first, book.last + 1):
        slips = book.slips.get(n)
        if not slips:
            state = GAP if last_used is not None and n < last_used else UNUSED
            counts[state] += 1
            if run is not None and run[0] == state and run[2] == n - 1:
                run = (state, run[1], n)
            else:
                flush()
                run = (state, n, n)
            continue
        flush()
        run = None
        state = _state(slips)
        counts[state] += 1
        if state != USED:
            out.append(
                _exception(book.kind, book.name, book.number(n), book.number(n), 1, state, slips)
            )
    flush()
    return counts, out


BOOK_COLUMNS = (
    Column("kind", gettext_noop("kind")),
    Column("book", gettext_noop("book")),
    Column("source", gettext_noop("issued")),
    Column("numbers", gettext_noop("numbers"), "int", total=True),
    Column("used", gettext_noop("used"), "int", total=True),
    Column("voided", gettext_noop("voided"), "int", total=True),
    Column("under_way", gettext_noop("under way"), "int", total=True),
    Column("gaps", gettext_noop("gaps"), "int", total=True),
    Column("unused", gettext_noop("not used yet"), "int", total=True),
    Column("several", gettext_noop("at several tables"), "int", total=True),
    Column("first_day", gettext_noop("first used")),
    Column("last_day", gettext_noop("last used")),
)
SEQUENCE_COLUMNS = (
    Column("kind", gettext_noop("kind")),
    Column("book", gettext_noop("book")),
    Column("first", gettext_noop("from")),
    Column("last", gettext_noop("to")),
    Column("count", gettext_noop("numbers"), "int", total=True),
    Column("state", gettext_noop("state")),
    Column("table", gettext_noop("table")),
    Column("gaming_day", gettext_noop("gaming day")),
    Column("detail", gettext_noop("detail")),
)


def slip_books(*, kind: str | None = None) -> Report:
    """Per slip book (and per series of slips with none recorded): its numbers by state."""
    books, _loose = _books(kind)
    rows = []
    for book in books:
        counts, _rows = _walk(book)
        days = sorted(s.gaming_day for slips in book.slips.values() for s in slips)
        rows.append(
            {
                "kind": book.kind,
                "book": book.name,
                "source": (
                    f"by {book.recorded.issued_by} on {book.recorded.issued_at.date().isoformat()}"
                    if book.recorded
                    else "no book recorded: the numbers used"
                ),
                "numbers": book.last - book.first + 1,
                "used": counts[USED],
                "voided": counts[VOIDED],
                "under_way": counts[UNDER_WAY],
                "gaps": counts[GAP],
                "unused": counts[UNUSED],
                "several": counts[SEVERAL],
                "first_day": days[0].isoformat() if days else None,
                "last_day": days[-1].isoformat() if days else None,
            }
        )
    return Report(
        "slip_books", _("Slip books: every number by state"), BOOK_COLUMNS, rows, {"kind": kind}
    ).with_totals()


def slip_sequence(*, kind: str | None = None) -> Report:
    """The slip numbers that are not simply used, book by book, then the slips of no book."""
    books, loose = _books(kind)
    rows = [row for book in books for row in _walk(book)[1]] + loose
    return Report(
        "slip_sequence",
        _("Slip sequence: numbers voided, under way, skipped, not used yet, misplaced"),
        SEQUENCE_COLUMNS,
        rows,
        {"kind": kind},
    ).with_totals()
