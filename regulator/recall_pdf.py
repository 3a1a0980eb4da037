"""Game recall as PDF (fpdf2: pure Python, from PyPI, no system library), from the same
context as the HTML (:func:`regulator.recall.recall_context`), section for section.

The same round gives the same bytes: fpdf2 would stamp the moment it renders as the
creation date (and hash it into the document's /ID), so the date is the round's own
last event's time (:func:`_made_at`), and the /ID follows from the content alone.

The PDF's core fonts are Latin-1: a card is written by its code (``QH``: queen of
hearts), and any other character outside Latin-1 as ``?`` rather than a failure.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from fpdf import FPDF
from fpdf.fonts import FontFace

_HEAD = FontFace(emphasis="BOLD", fill_color=(235, 235, 235))
_DIFFERS = FontFace(fill_color=(255, 227, 227))
_SUITS = "S spades, H hearts, D diamonds, C clubs; ?? a card never shown"


# the payloads' cards (10♦) by their codes' suit letters: the core fonts have no suits
_SUIT_LETTERS = str.maketrans({"\u2660": "S", "\u2665": "H", "\u2666": "D", "\u2663": "C"})


def _text(value: Any) -> str:
    return str(value).encode("latin-1", "replace").decode("latin-1")


def _cards(cards: Sequence[dict[str, Any]]) -> str:
    return " ".join("??" if c.get("back") else c["code"] for c in cards)


def _made_at(context: dict[str, Any]) -> datetime:
    """The round's last event's time (a round with no events: the epoch)."""
    last = context.get("last")
    if not last:
        return datetime(1970, 1, 1, tzinfo=UTC)
    return datetime.fromisoformat(last["at"].removesuffix("Z")).replace(tzinfo=UTC)


class _Recall(FPDF):
    def __init__(self, title: str, made_at: datetime) -> None:
        super().__init__(orientation="landscape", format="A4")
        self.title_text = title
        self.set_margins(12, 12, 12)
        self.set_auto_page_break(auto=True, margin=14)
        self.set_creator("blackjack-backoffice")
        self.set_title(_text(title))
        self.set_creation_date(made_at)

    def footer(self) -> None:
        self.set_y(-10)
        self.set_font("Helvetica", size=7)
        self.cell(0, 5, _text(f"{self.title_text} - page {self.page_no()}/{{nb}}"), align="R")

    def heading(self, text: str) -> None:
        self.ln(2)
        self.set_font("Helvetica", "B", 11)
        self.cell(0, 7, _text(text), new_x="LMARGIN", new_y="NEXT")
        self.set_font("Helvetica", size=8)

    def line_of(self, text: str, size: float = 8) -> None:
        self.set_font("Helvetica", size=size)
        self.multi_cell(0, 4.2, _text(text), align="L", new_x="LMARGIN", new_y="NEXT")

    def rows(
        self,
        header: Sequence[str],
        rows: Sequence[Sequence[Any]],
        widths: Sequence[int],
        marked: Sequence[bool] = (),
        right: Sequence[int] = (),
    ) -> None:
        self.set_font("Helvetica", size=7.5)
        align = tuple("RIGHT" if i in right else "LEFT" for i in range(len(header)))
        with self.table(
            col_widths=widths,
            headings_style=_HEAD,
            line_height=3.8,
            text_align=align,
            first_row_as_headings=True,
            repeat_headings=1,
        ) as table:
            table.row([_text(h) for h in header])
            for index, values in enumerate(rows):
                style = _DIFFERS if index < len(marked) and marked[index] else None
                table.row([_text(v) for v in values], style=style)


def recall_pdf(context: dict[str, Any]) -> bytes:
    """The recall of one round as a PDF document's bytes."""
    title = f"Game recall - round {context['number']}, table {context['table']}, gaming day {context['day']}"
    pdf = _Recall(title, _made_at(context))
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 14)
    pdf.cell(0, 8, _text(title), new_x="LMARGIN", new_y="NEXT")
    shoe = context.get("shoe")
    pdf.line_of(
        f"Rule set {context['ruleset'] or '-'}, currency {context['currency'] or '-'}, {context['status']}"
        + (f", shoe shuffled at version {shoe.shuffled_version}" if shoe else "")
        + f"; {len(context['events'])} events, {len(context['bets'])} bets.",
        9,
    )

    figures = context["figures"]
    pdf.heading("Result")
    pdf.rows(
        [
            "handle",
            "house result recorded",
            "house result recomputed by the rules engine",
            "bets whose settlement differs",
        ],
        [
            [
                figures["handle"],
                figures["house_recorded"],
                figures["house_recomputed"],
                context["mismatched"] or "none",
            ]
        ],
        [1, 1, 1, 1],
        right=(0, 1, 2, 3),
    )

    pdf.heading("Cards")
    hands = []
    if context.get("dealer"):
        dealer = context["dealer"]
        hands.append(
            [
                "dealer",
                _cards(dealer["cards"]),
                f"{dealer['hand'].total or ''}{' bust' if dealer['hand'].bust else ''}",
                "",
                "",
            ]
        )
    for hand in context["hands"]:
        hands.append(
            [
                hand["title"],
                _cards(hand["cards"]),
                f"{hand['total']}{' soft' if hand['soft'] else ''}{' bust' if hand['bust'] else ''}",
                hand["staked"],
                hand["actions"],
            ]
        )
    pdf.rows(["hand", "cards", "total", "staked", "decisions"], hands, [2, 4, 1, 2, 4], right=(3,))
    pdf.line_of(f"Cards by code: rank, then suit ({_SUITS}).", 7)

    pdf.heading("Settlements (player's net: recomputed by the rules engine, recorded at the table)")
    pdf.rows(
        ["bet", "box", "hand", "kind", "stake", "recomputed", "recorded", ""],
        [
            [
                b["bet"],
                b["box"],
                b["hand"],
                b["kind"],
                b["amount"],
                b["recomputed"],
                b["recorded"],
                "agrees" if b["matches"] else "DIFFERS",
            ]
            for b in context["bets"]
        ]
        or [["no bets", "", "", "", "", "", "", ""]],
        [3, 1, 1, 2, 3, 3, 3, 2],
        marked=[not b["matches"] for b in context["bets"]],
        right=(4, 5, 6),
    )

    if context["findings"]:
        pdf.heading("Findings")
        pdf.rows(
            ["kind", "severity", "status", "message"],
            [[f["title"], f["severity"], f["status"], f["message"]] for f in context["findings"]],
            [2, 1, 1, 8],
        )

    pdf.heading("Events (cards, bets, decisions, settlements), in the order recorded")
    pdf.rows(
        ["version", "occurred at (UTC)", "type", "payload", "chain"],
        [
            [
                e["version"],
                e["at"],
                e["title"],
                "; ".join(f"{label}: {value}" for label, value in e["fields"]).translate(
                    _SUIT_LETTERS
                ),
                "intact" if e["chain_ok"] else e["chain"],
            ]
            for e in context["events"]
        ],
        [2, 5, 4, 18, 3],
        marked=[not e["chain_ok"] for e in context["events"]],
    )

    pdf.heading("Chain and signed head")
    first, last, anchor = context.get("first"), context.get("last"), context.get("anchor") or {}
    if first and last:
        pdf.line_of(
            f"First event version {first['version']}; last event version {last['version']}, hash {last['hash']}."
        )
    pdf.line_of(
        "The round's links: "
        + (
            "intact: each event's prev_hash is the hash of the one before it."
            if context["chain_ok"]
            else "BROKEN (see the events above)."
        )
    )
    if anchor.get("covered"):
        pdf.line_of(
            (
                "Inclusion: the round's last event "
                if anchor["ok"]
                else "Inclusion: the proof does NOT lead from the round's last event "
            )
            + f"(version {anchor['version']}, leaf {anchor['index']}) "
            + ("is in " if anchor["ok"] else "to ")
            + f"the signed head of {anchor['size_text']} events, root {anchor['root']}, key {anchor['key']}, signed "
            f"{anchor['signed_at']}; proof of {len(anchor['path'])} nodes: {' '.join(anchor['path'])}",
            7,
        )
    elif anchor:
        pdf.line_of(f"Inclusion: {anchor['why']}.")
    pdf.ln(3)
    pdf.line_of(
        "Printed from the back-office's record; the same round is recalled offline from the regulator's "
        f"package with: blackjack-audit round PACKAGE {context['table']} {context['day']} {context['number']}. "
        "Amounts are the table's currency, house results positive when the house won.",
        7,
    )
    return bytes(pdf.output())
