"""The reports an accountant files, on the admin's screens (Ledger > Reconciliations >
Accounting): the master game report and the others beside it. Each page shows its reports as tables - money by
the one formatter, a totals line per currency - with the same report as CSV one click
away; the parameters come from the query string (a value that does not parse falls back
to the default and says so). Addresses: ``/admin/ledger/reconciliation/accounting/<page>/``
and ``.../accounting/<page>.csv``.

Thin: the reports are built by their modules; this shapes them for the template
``admin/ledger/accounting.html``. Who may: whoever may view the reconciliations (the
``accounting`` group), never a device account.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date
from functools import partial
from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseNotAllowed,
    HttpResponseRedirect,
)
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.http import urlencode

from audit.presenting.reports import NOT_KNOWN, TOTAL, Column, Report
from audit.store.errors import StoreError

from . import general_ledger, master_game, receivables, selectors, slip_books, slip_sequence
from . import models as m


@dataclass
class Parameters:
    """What a page was asked, read forgivingly: ``problems`` says what fell back."""

    day: date
    day_from: date | None = None
    shift: str | None = None
    table: str | None = None
    game: str | None = None
    pit: str | None = None
    every: bool = False
    kind: str | None = None
    problems: list[str] = field(default_factory=list)

    def query(self) -> dict[str, str]:
        values = {
            "day": self.day.isoformat(),
            "from": self.day_from.isoformat() if self.day_from else None,
            "shift": self.shift,
            "table": self.table,
            "game": self.game,
            "pit": self.pit,
            "every": "1" if self.every else None,
            "kind": self.kind,
        }
        return {k: v for k, v in values.items() if v}


def _latest_day() -> date:
    return (
        m.Reconciliation.objects.order_by("-gaming_day")
        .values_list("gaming_day", flat=True)
        .first()
        or date.today()
    )


def parameters(request: HttpRequest) -> Parameters:
    problems: list[str] = []

    def day_of(name: str, default: date | None) -> date | None:
        text = request.GET.get(name)
        if not text:
            return default
        try:
            return date.fromisoformat(text)
        except ValueError:
            shown = default.isoformat() if default else "none"
            problems.append(f"{text!r} is not a gaming day (YYYY-MM-DD): showing {shown}.")
            return default

    day = day_of("day", _latest_day()) or _latest_day()
    since = day_of("from", None)
    if since is not None and since > day:
        problems.append(
            f"from {since.isoformat()} is after {day.isoformat()}: showing {day.isoformat()} alone."
        )
        since = None
    filters = {
        k: (request.GET.get(k) or "").strip()[:64] or None
        for k in ("shift", "table", "game", "pit", "kind")
    }
    return Parameters(
        day=day,
        day_from=since,
        every=request.GET.get("every") in ("1", "true", "on"),
        problems=problems,
        **filters,
    )


# --- the screen's tables ------------------------------------------------------------------------


def cell(
    report: Report, row: dict[str, Any], column: Column, *, total: bool = False
) -> dict[str, Any]:
    """A cell as the template shows it: the text (``-`` for an empty text column on a
    report's line; an amount of the other side - a debit's credit - stays empty), whether
    it is a number, whether it is not known, and lines under it."""
    text = report.total_display(row, column) if total else report.display(row, column)
    if not text and not total and column.kind == "text":
        text = "-"
    return {
        "text": text,
        "num": column.kind != "text",
        "unknown": text == NOT_KNOWN,
        "lines": [],
        "plain": False,
    }


def table(
    report: Report,
    *,
    columns: list[Column] | None = None,
    extra: Callable[[dict[str, Any], bool], list[dict[str, Any]]] | None = None,
    extra_titles: tuple[tuple[str, bool], ...] = (),
    row_class: Callable[[dict[str, Any]], str] | None = None,
    first_lines: Callable[[dict[str, Any]], list[str]] | None = None,
) -> dict[str, Any]:
    """A report as the template's table: its screen columns (or ``columns``), then the
    cells ``extra`` makes of a row (``True`` for a totals row)."""
    shown = columns if columns is not None else [c for c in report.columns if c.screen]

    def line(row: dict[str, Any], total: bool) -> dict[str, Any]:
        cells = [cell(report, row, c, total=total) for c in shown] + (
            extra(row, total) if extra else []
        )
        if (
            total and cells and not cells[0]["text"]
        ):  # its label sits in a column the screen leaves out
            cells[0]["text"] = TOTAL
        if first_lines and not total and cells:
            cells[0]["lines"], cells[0]["cls"] = first_lines(row), "wraps"
        return {"cells": cells, "cls": "total" if total else (row_class(row) if row_class else "")}

    return {
        "name": report.name,
        "title": report.title,
        "titles": [(c.title, c.kind != "text") for c in shown] + list(extra_titles),
        "rows": [line(r, False) for r in report.rows],
        "totals": [line(r, True) for r in report.totals],
    }


# --- the pages ----------------------------------------------------------------------------------


def _master_game_page(p: Parameters) -> tuple[list[Report], list[dict[str, Any]], dict[str, Any]]:
    shift = p.shift if p.shift else None
    made = master_game.master_game(day=p.day, shift=shift, table=p.table, game=p.game, pit=p.pit)
    by_key = {c.key: c for c in made.columns}
    drop = by_key["drop"]
    screen = (
        [by_key[k] for k in ("table", "pit", "game")]
        + ([by_key["shift"]] if shift else [])
        + [by_key[k] for k in ("opener", "fills", "credits", "closer")]
    )
    after = [by_key[k] for k in ("win", "hold", "theoretical_win", "variance")]

    def cells(row: dict[str, Any], total: bool) -> list[dict[str, Any]]:
        shown = cell(made, row, drop, total=total)
        parts = [
            (
                name,
                made.total_display(row, by_key[key]) if total else made.display(row, by_key[key]),
            )
            for name, key in (
                ("cash", "drop_cash"),
                ("markers", "drop_markers"),
                ("chips", "drop_chips"),
            )
        ]
        if row.get("drop") is not None:
            shown["lines"] = [f"{name} {text}" for name, text in parts]
        out = [shown] + [cell(made, row, c, total=total) for c in after]
        if row.get("adjustment_win") or row.get("adjustment_drop"):
            out[0]["lines"] = out[0]["lines"] + [
                f"adjustments {made.display(row, by_key['adjustment_drop'])}"
                if not total
                else f"adjustments {made.total_display(row, by_key['adjustment_drop'])}"
            ]
            out[1]["lines"] = [f"adjustments {made.total_display(row, by_key['adjustment_win'])}"]
        if row.get("variance") and row.get("unexplained"):
            out[-1]["cls"] = "bad"
        if total:
            out.append({"text": "", "num": False, "unknown": False, "lines": [], "plain": True})
            return out
        people = [
            f"{what} {by or NOT_KNOWN} / {witness or NOT_KNOWN}"
            for what, by, witness in (
                ("opener", row["opener_counted_by"], row["opener_witnessed_by"]),
                ("closer", row["closer_counted_by"], row["closer_witnessed_by"]),
            )
        ]
        people.append(f"drop {row['drop_counted_by'] or NOT_KNOWN}")
        out.append(
            {
                "text": people[0],
                "num": False,
                "unknown": False,
                "lines": people[1:],
                "plain": True,
                "cls": "people",
            }
        )
        return out

    shown = table(
        made,
        columns=screen,
        extra=cells,
        first_lines=lambda row: [row["state_text"]],
        extra_titles=(
            ("drop", True),
            ("chip-count win", True),
            ("hold", True),
            ("theoretical win", True),
            ("variance not explained", True),
            ("counted / witnessed", False),
        ),
        row_class=lambda row: (
            "unexplained" if row.get("unexplained") and row.get("variance") else ""
        ),
    )
    return [made], [shown], {"shift_choices": _shifts(p.day)}


def _shifts(day: date) -> list[str]:
    return sorted(
        set(
            m.Reconciliation.objects.filter(gaming_day=day)
            .exclude(shift="")
            .values_list("shift", flat=True)
        )
    )


def _marker_page(p: Parameters) -> tuple[list[Report], list[dict[str, Any]], dict[str, Any]]:
    aging, listed = receivables.marker_aging(
        day=p.day, table=p.table, pit=p.pit, outstanding_only=not p.every
    )
    return [aging, listed], [table(aging), table(listed)], {}


def _chips_page(p: Parameters) -> tuple[list[Report], list[dict[str, Any]], dict[str, Any]]:
    made = receivables.chips_outstanding(day=p.day, day_from=p.day_from, table=p.table, pit=p.pit)
    return [made], [table(made)], {}


def _slips_page(p: Parameters) -> tuple[list[Report], list[dict[str, Any]], dict[str, Any]]:
    kind = p.kind if p.kind in m.Slip.Kind.values else None
    books, sequence = slip_sequence.slip_books(kind=kind), slip_sequence.slip_sequence(kind=kind)
    bad = {
        slip_sequence.VOIDED,
        slip_sequence.GAP,
        slip_sequence.UNDER_WAY,
        slip_sequence.SEVERAL,
        slip_sequence.WRONG_KIND,
        slip_sequence.OUTSIDE,
    }
    return (
        [books, sequence],
        [
            table(books),
            table(sequence, row_class=lambda r: "exception" if r["state"] in bad else ""),
        ],
        {"kinds": m.Slip.Kind.values},
    )


JOURNAL_ON_SCREEN = 400  # lines; the CSV has every one


def _general_ledger_page(
    p: Parameters,
) -> tuple[list[Report], list[dict[str, Any]], dict[str, Any]]:
    balance = general_ledger.trial_balance(day=p.day, table=p.table)
    folds = general_ledger.folded(day=p.day, table=p.table)
    lines = general_ledger.journal(day=p.day, folds=folds)
    found = general_ledger.agreement(day=p.day, folds=folds)
    notes = []
    if not balance.rows:
        notes.append(("", f"No table-day of {p.day.isoformat()} on record."))
    elif found.agrees:
        notes.append(
            (
                "ok",
                "The journal, folded again from the record, sums account by account to the "
                + "trial balance the ledger stored.",
            )
        )
    else:
        for table_code, differ in found.said().items():
            notes.append(
                (
                    "bad",
                    f"{table_code}: the journal and the stored trial balance differ - {differ}. "
                    + "The ledger's read models may be behind the record: run manage.py reconcile.",
                )
            )
    if len(lines.rows) > JOURNAL_ON_SCREEN:
        notes.append(
            (
                "",
                f"The journal has {len(lines.rows):,} lines; the first {JOURNAL_ON_SCREEN} are "
                + "shown (choose a table, or take the CSV, for every line).",
            )
        )
    shown = table(replace(lines, rows=lines.rows[:JOURNAL_ON_SCREEN]))
    return [balance, lines], [table(balance), shown], {"notes": notes}


@dataclass(frozen=True)
class Page:
    title: str
    make: Callable[[Parameters], tuple[list[Report], list[dict[str, Any]], dict[str, Any]]]
    fields: tuple[str, ...]  # the form's parameters
    explain: str
    day_label: str = "gaming day"


PAGES: dict[str, Page] = {
    "master-game": Page(
        "Master game report",
        _master_game_page,
        ("day", "shift", "table", "game", "pit"),
        "Per table: opener, fills, credits, closer, the drop by instrument, the chip-count win "
        "(closer - opener + credits - fills + drop), hold, theoretical win and the variance the record does not "
        "explain, with who counted and witnessed. Shift: blank for the whole gaming day, all for every shift.",
    ),
    "marker-aging": Page(
        "Marker receivables",
        _marker_page,
        ("day", "table", "pit", "every"),
        "Markers issued on or before the day, with what the cage received for them on or before it, aged by the "
        "days since their issue. The markers listed are those still owed (tick every marker to list the paid "
        "ones too).",
        day_label="as of",
    ),
    "chips-outstanding": Page(
        "Chips to players at the tables",
        _chips_page,
        ("day", "from", "table", "pit"),
        "What each table's books put into players' hands, net: chips for cash and markers, payouts and "
        "corrections paid at the cage, less what came back - stakes lost, chips found in the drop box, markers "
        "paid in chips. This is not the casino's chip float (chips outstanding): chips sold for cash or cashed "
        "at the cage are not on record, so the figure grows with every buy-in and never falls by a cage "
        "cash-out. The float needs the cage's chip transactions and a chip inventory.",
        day_label="as of the end of",
    ),
    "slips": Page(
        "Slip sequence",
        _slips_page,
        ("kind",),
        "Every number of every book of fill and credit slips recorded as issued, against the slips used: used, "
        "voided, under way (requested or issued, never received), a gap (skipped while a later number was used), "
        "not used yet. A series of slips with no book recorded is read from its lowest to its highest number used.",
    ),
    "general-ledger": Page(
        "General ledger",
        _general_ledger_page,
        ("day", "table"),
        "The day's trial balance and journal for the accounting system: every line of every entry the books "
        "posted for the gaming day (a debit where value arrives at an account, a credit where it leaves), folded "
        "again from the record; the CSV is the general ledger export (docs/accounting.md gives its format).",
    ),
}


def _record_book(model_admin: admin.ModelAdmin, request: HttpRequest) -> HttpResponse:
    """The slip page's form: record a book of slips issued (``ledger.add_slipbook``)."""
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    if not model_admin.has_view_permission(request) or not request.user.has_perm(
        "ledger.add_slipbook"
    ):
        raise PermissionDenied
    form = request.POST
    try:
        book = slip_books.slip_book_issue(
            kind=form.get("book_kind", ""),
            first=form.get("first", "").strip(),
            last=form.get("last", "").strip(),
            user=request.user,
            note=form.get("note", "")[:2000],
        )
        model_admin.message_user(request, f"Recorded: {book}.", messages.SUCCESS)
    except StoreError as error:
        model_admin.message_user(request, str(error), messages.ERROR)
    return HttpResponseRedirect(reverse("admin:ledger_accounting", args=["slips"]))


def _page(model_admin: admin.ModelAdmin, request: HttpRequest, name: str) -> HttpResponse:
    if name not in PAGES:
        raise Http404(f"No accounting report {name!r}.")
    if not model_admin.has_view_permission(request):
        raise PermissionDenied
    page = PAGES[name]
    p = parameters(request)
    made, tables, extra = page.make(p)
    query = p.query()
    context = {
        **model_admin.admin_site.each_context(request),
        "opts": model_admin.model._meta,
        "title": page.title,
        "subtitle": None,
        "page": page,
        "name": name,
        "parameters": p,
        "query": query,
        "tables": tables,
        "csv": {
            r.name: reverse("admin:ledger_accounting_csv", args=[name])
            + "?"
            + urlencode({**query, "report": r.name})
            for r in made
        },
        "pages": [
            (key, other.title, reverse("admin:ledger_accounting", args=[key]))
            for key, other in PAGES.items()
        ],
        "games": selectors.games(),
        "pits": selectors.pits(),
        "table_codes": list(m.LedgerTable.objects.values_list("stream", flat=True)),
        "may_record_books": name == "slips" and request.user.has_perm("ledger.add_slipbook"),
        **extra,
    }
    request.current_app = model_admin.admin_site.name
    return TemplateResponse(request, "admin/ledger/accounting.html", context)


def _csv(model_admin: admin.ModelAdmin, request: HttpRequest, name: str) -> HttpResponse:
    if name not in PAGES:
        raise Http404(f"No accounting report {name!r}.")
    if not model_admin.has_view_permission(request):
        raise PermissionDenied
    p = parameters(request)
    made, _, _ = PAGES[name].make(p)
    wanted = request.GET.get("report") or made[0].name
    report = next((r for r in made if r.name == wanted), made[0])
    response = HttpResponse(report.as_csv(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = (
        f'attachment; filename="ledger-{report.name}-{p.day.isoformat()}.csv"'
    )
    return response


def urls(model_admin: admin.ModelAdmin) -> list[URLPattern]:
    """The pages' addresses, under the Reconciliation admin's."""
    view = model_admin.admin_site.admin_view
    return [
        path(
            "accounting/slips/record/",
            view(partial(_record_book, model_admin)),
            name="ledger_slip_book_record",
        ),
        path(
            "accounting/<slug:name>.csv",
            view(partial(_csv, model_admin)),
            name="ledger_accounting_csv",
        ),
        path(
            "accounting/<slug:name>/", view(partial(_page, model_admin)), name="ledger_accounting"
        ),
    ]
