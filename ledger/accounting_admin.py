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

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date
from functools import partial
from typing import Any
from urllib.parse import urlsplit

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseNotAllowed,
    HttpResponseRedirect,
)
from django.template.response import TemplateResponse
from django.urls import Resolver404, URLPattern, path, resolve, reverse
from django.utils import translation
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from audit.presenting.reports import NOT_KNOWN, TOTAL, Column, Report
from audit.record.money import format_number, in_locale, not_available
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
    return selectors.latest_day_with_play()


# rows of a long report on one screen; ?page=N turns them (the CSV has every row)
ROWS_PER_PAGE = 50


def paged(rows: list[Any], request: HttpRequest) -> tuple[list[Any], dict[str, Any] | None]:
    """The rows of the page ``?page=N`` asks (the first where it does not parse, the last
    past the end) and what the screen says of it: ``page x of y``, the rows shown and the
    addresses of the pages before and after (the other parameters kept). None where the
    rows fit on one page."""
    if len(rows) <= ROWS_PER_PAGE:
        return rows, None
    pages = Paginator(rows, ROWS_PER_PAGE)
    page = pages.get_page(request.GET.get("page"))

    def url(number: int) -> str:
        query = request.GET.copy()
        query["page"] = str(number)
        return "?" + query.urlencode()

    return list(page.object_list), {
        "number": page.number,
        "count": pages.num_pages,
        "first": page.start_index(),
        "last": page.end_index(),
        "rows": pages.count,
        "previous": url(page.previous_page_number()) if page.has_previous() else None,
        "next": url(page.next_page_number()) if page.has_next() else None,
    }


def parameters(request: HttpRequest) -> Parameters:
    problems: list[str] = []

    def day_of(name: str, default: date | None) -> date | None:
        text = request.GET.get(name)
        if not text:
            return default
        try:
            return date.fromisoformat(text)
        except ValueError:
            shown = selectors.day_text(default) if default else _("none")
            problems.append(
                _("%(text)r is not a gaming day (YYYY-MM-DD): showing %(shown)s.")
                % {"text": text, "shown": shown}
            )
            return default

    day = day_of("day", _latest_day()) or _latest_day()
    since = day_of("from", None)
    if since is not None and since > day:
        problems.append(
            _("from %(since)s is after %(day)s: showing %(day)s alone.")
            % {"since": selectors.day_text(since), "day": selectors.day_text(day)}
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


# the reports' words in their text cells (the CSV keeps them as the record writes them)
SCREEN_WORDS = {
    "used": gettext_lazy("used"),
    "voided": gettext_lazy("voided"),
    "under way": gettext_lazy("under way"),
    "gap": gettext_lazy("gap"),
    "not used yet": gettext_lazy("not used yet"),
    "used at several tables": gettext_lazy("used at several tables"),
    "in a book of the other kind": gettext_lazy("in a book of the other kind"),
    "outside every book": gettext_lazy("outside every book"),
    "number of no series": gettext_lazy("number of no series"),
    "no book recorded": gettext_lazy("no book recorded"),
    "no reason recorded": gettext_lazy("no reason recorded"),
    "no book recorded: the numbers used": gettext_lazy("no book recorded: the numbers used"),
    "fill": pgettext_lazy("slip kind", "fill"),
    "credit": pgettext_lazy("slip kind", "credit"),
}
_ISO_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_RANGE = re.compile(r"^(?P<start>\S+) to (?P<end>\S+)$")
_LAST_STEP = re.compile(r"^last step: (?P<step>\w+)$")


def screen_words(text: str) -> str:
    """A report's text cell in the active language where it is one of the reports' own
    words (a slip's state, a book's range); data - codes, names, numbers - as it is."""
    if text in SCREEN_WORDS:
        return str(SCREEN_WORDS[text])
    if _ISO_DAY.match(text):  # a gaming day: the one date format, the locale's
        try:
            return selectors.day_text(date.fromisoformat(text))
        except ValueError:
            return text
    if found := _RANGE.match(text):
        return _("%(start)s to %(end)s") % {"start": found["start"], "end": found["end"]}
    if found := _LAST_STEP.match(text):
        from .admin import word

        return _("last step: %(step)s") % {"step": word(found["step"])}
    return text


# whole numbers that name, not count: as they are written (no thousands separator)
IDENTIFIERS = frozenset({"line", "event_version", "version", "entry"})


def counted(row: dict[str, Any], column: Column, text: str) -> str:
    """A count (rounds, numbers, days) with the locale's thousands separators; any other
    cell's text as it is."""
    value = row.get(column.key)
    if column.kind == "int" and value is None and column.key in row:
        return not_available()  # a count not known (a change against no year): never 0 or blank
    if column.kind != "int" or column.key in IDENTIFIERS or not isinstance(value, int):
        return text
    return format_number(value)


def cell(
    report: Report, row: dict[str, Any], column: Column, *, total: bool = False
) -> dict[str, Any]:
    """A cell as the template shows it: the text (``-`` for an empty text column on a
    report's line; an amount of the other side - a debit's credit - stays empty), whether
    it is a number, whether it is not known, and lines under it."""
    text = report.total_display(row, column) if total else report.display(row, column)
    if not text and not total and column.kind == "text":
        text = "-"
    elif column.kind == "text":
        text = _("total") if total and text == TOTAL else screen_words(text)
    else:
        text = counted(row, column, text)
    return {
        "text": text,
        "num": column.kind != "text",
        "unknown": text in (NOT_KNOWN, not_available()),
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
    link: Callable[[dict[str, Any]], str | None] | None = None,
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
            cells[0]["text"] = _("total")
        if first_lines and not total and cells:
            cells[0]["lines"], cells[0]["cls"] = first_lines(row), "wraps"
        if link and not total and cells:
            cells[0]["url"] = link(row)
        return {"cells": cells, "cls": "total" if total else (row_class(row) if row_class else "")}

    return {
        "name": report.name,
        "title": report.title,
        "titles": [(_(c.title), c.kind != "text") for c in shown] + list(extra_titles),
        "rows": [line(r, False) for r in report.rows],
        "totals": [line(r, True) for r in report.totals],
    }


def day_url(table: str, day: date) -> str:
    """A table-day's reconciliation page, where its rounds and findings are linked."""
    return reverse("admin:ledger_reconciliation_key", kwargs={"table": table, "day": str(day)})


def may_open(request: HttpRequest, url: str | None) -> str | None:
    """``url`` where the person may open it, else None: a link to another app's list is
    shown only to who may view that list (an accountant may not see the rounds)."""
    if url is None:
        return None
    try:
        match = resolve(urlsplit(url).path)
    except Resolver404:
        return None
    model_admin = getattr(match.func, "model_admin", None)
    if model_admin is not None and not model_admin.has_view_or_change_permission(request):
        return None
    return url


def hub(
    request: HttpRequest, *, day: date | None = None, table: str | None = None
) -> dict[str, Any]:
    """What every accounting screen links besides the screens themselves (the template
    ``admin/ledger/hub.html``): the day's findings, and with a table its reconciliation
    and rounds (where the project registers them: ``ledger.admin.rounds_link_register``),
    each where the person may open it."""
    from .admin import _rounds_url

    if day is None:
        return {}
    where = {"gaming_day": day.isoformat(), **({"stream": table} if table else {})}
    findings = reverse("admin:audit_finding_changelist") + "?" + urlencode(where)
    return {
        "hub_day": day,
        "hub_table": table,
        "hub_findings_url": may_open(request, findings),
        "hub_day_url": day_url(table, day) if table else None,
        "hub_rounds_url": may_open(request, _rounds_url(table, day)) if table else None,
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
                (_("cash"), "drop_cash"),
                (_("markers"), "drop_markers"),
                (_("chips"), "drop_chips"),
            )
        ]
        if row.get("drop") is not None:
            shown["lines"] = [f"{name} {text}" for name, text in parts]
        out = [shown] + [cell(made, row, c, total=total) for c in after]
        if row.get("adjustment_win") or row.get("adjustment_drop"):
            adjustments = _("adjustments")
            out[0]["lines"] = out[0]["lines"] + [
                f"{adjustments} {made.display(row, by_key['adjustment_drop'])}"
                if not total
                else f"{adjustments} {made.total_display(row, by_key['adjustment_drop'])}"
            ]
            out[1]["lines"] = [f"{adjustments} {made.total_display(row, by_key['adjustment_win'])}"]
        if row.get("variance") and row.get("unexplained"):
            out[-1]["cls"] = "bad"
        if total:
            out.append({"text": "", "num": False, "unknown": False, "lines": [], "plain": True})
            return out
        people = [
            f"{what} {by or not_available()} / {witness or not_available()}"
            for what, by, witness in (
                (_("opener"), row["opener_counted_by"], row["opener_witnessed_by"]),
                (_("closer"), row["closer_counted_by"], row["closer_witnessed_by"]),
            )
        ]
        drop_word = _("drop")
        people.append(f"{drop_word} {row['drop_counted_by'] or not_available()}")
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
            (_("drop"), True),
            (_("chip-count win"), True),
            (_("hold"), True),
            (_("theoretical win"), True),
            (_("variance not explained"), True),
            (_("counted / witnessed"), False),
        ),
        row_class=lambda row: (
            "unexplained" if row.get("unexplained") and row.get("variance") else ""
        ),
        link=lambda row: day_url(row["table"], p.day),
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
        {"kinds": m.Slip.Kind.choices},
    )


def _general_ledger_page(
    p: Parameters,
) -> tuple[list[Report], list[dict[str, Any]], dict[str, Any]]:
    balance = general_ledger.trial_balance(day=p.day, table=p.table)
    folds = general_ledger.folded(day=p.day, table=p.table)
    lines = general_ledger.journal(day=p.day, folds=folds)
    found = general_ledger.agreement(day=p.day, folds=folds)
    notes = []
    if not balance.rows:
        notes.append(
            ("", _("No table-day of %(day)s on record.") % {"day": selectors.day_text(p.day)})
        )
    elif found.agrees:
        notes.append(
            (
                "ok",
                _(
                    "The journal, folded again from the record, sums account by account to the "
                    "trial balance the ledger stored."
                ),
            )
        )
    else:
        for table_code, differ in found.said().items():
            notes.append(
                (
                    "bad",
                    _(
                        "%(table)s: the journal and the stored trial balance differ - %(differ)s. "
                        "The ledger's read models may be behind the record: run manage.py "
                        "reconcile."
                    )
                    % {"table": table_code, "differ": differ},
                )
            )
    shown = table(lines)
    return [balance, lines], [table(balance), shown], {"notes": notes}


GAMING_DAY_LABEL = gettext_lazy("gaming day")


@dataclass(frozen=True)
class Page:
    title: Any  # lazily translated texts
    make: Callable[[Parameters], tuple[list[Report], list[dict[str, Any]], dict[str, Any]]]
    fields: tuple[str, ...]  # the form's parameters
    explain: Any
    day_label: Any = GAMING_DAY_LABEL


PAGES: dict[str, Page] = {
    "master-game": Page(
        gettext_lazy("Master game report"),
        _master_game_page,
        ("day", "shift", "table", "game", "pit"),
        gettext_lazy(
            "Per table: opener, fills, credits, closer, the drop by instrument, the chip-count win "
            "(closer - opener + credits - fills + drop), hold, theoretical win and the variance the record does not "
            "explain, with who counted and witnessed. Shift: blank for the whole gaming day, all for every shift."
        ),
    ),
    "marker-aging": Page(
        gettext_lazy("Marker receivables"),
        _marker_page,
        ("day", "table", "pit", "every"),
        gettext_lazy(
            "Markers issued on or before the day, with what the cage received for them on or before it, aged by the "
            "days since their issue. The markers listed are those still owed (tick every marker to list the paid "
            "ones too)."
        ),
        day_label=gettext_lazy("as of"),
    ),
    "chips-outstanding": Page(
        gettext_lazy("Chips to players at the tables"),
        _chips_page,
        ("day", "from", "table", "pit"),
        gettext_lazy(
            "What each table's books put into players' hands, net: chips for cash and markers, payouts and "
            "corrections paid at the cage, less what came back - stakes lost, chips found in the drop box, markers "
            "paid in chips. This is not the casino's chip float (chips outstanding): chips sold for cash or cashed "
            "at the cage are not on record, so the figure grows with every buy-in and never falls by a cage "
            "cash-out. The float needs the cage's chip transactions and a chip inventory."
        ),
        day_label=gettext_lazy("as of the end of"),
    ),
    "slips": Page(
        gettext_lazy("Slip sequence"),
        _slips_page,
        ("kind",),
        gettext_lazy(
            "Every number of every book of fill and credit slips recorded as issued, against the slips used: used, "
            "voided, under way (requested or issued, never received), a gap (skipped while a later number was used), "
            "not used yet. A series of slips with no book recorded is read from its lowest to its highest number used."
        ),
    ),
    "general-ledger": Page(
        gettext_lazy("General ledger"),
        _general_ledger_page,
        ("day", "table"),
        gettext_lazy(
            "The day's trial balance and journal for the accounting system: every line of every entry the books "
            "posted for the gaming day (a debit where value arrives at an account, a credit where it leaves), folded "
            "again from the record; the CSV is the general ledger export (docs/accounting.md gives its format)."
        ),
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
        model_admin.message_user(
            request, _("Recorded: %(book)s.") % {"book": book}, messages.SUCCESS
        )
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
    for shown in tables:
        shown["rows"], shown["paging"] = paged(shown["rows"], request)
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
        **hub(
            request,
            day=p.day if "day" in page.fields else None,
            table=p.table if "table" in page.fields else None,
        ),
        "hub_current": name,
        **extra,
    }
    request.current_app = model_admin.admin_site.name
    return TemplateResponse(request, "admin/ledger/accounting.html", context)


@contextmanager
def machine_read() -> Iterator[None]:
    """A CSV is read by machines (a spreadsheet, the accounting system): in English and
    the ISO code form of money, whatever language the screen is in."""
    with translation.override("en"), in_locale(None):
        yield


def _csv(model_admin: admin.ModelAdmin, request: HttpRequest, name: str) -> HttpResponse:
    if name not in PAGES:
        raise Http404(f"No accounting report {name!r}.")
    if not model_admin.has_view_permission(request):
        raise PermissionDenied
    p = parameters(request)
    with machine_read():
        made, _tables, _extra = PAGES[name].make(p)
        wanted = request.GET.get("report") or made[0].name
        report = next((r for r in made if r.name == wanted), made[0])
        text = report.as_csv()
    response = HttpResponse(text, content_type="text/csv; charset=utf-8")
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
