"""The game's words as the tables' screens show them, in the page's language: a bet's
kind, a hand's decision, a settlement's outcome (their codes are declared once in
``audit.record.events.fields``; the codes stay codes where they are data - the API, the
CSV, the filters). An unknown code is shown as it is."""

from __future__ import annotations

from django.utils.translation import pgettext_lazy

BET_KINDS = {
    "main": pgettext_lazy("bet kind", "main"),
    "insurance": pgettext_lazy("bet kind", "insurance"),
    "double": pgettext_lazy("bet kind", "double"),
    "split": pgettext_lazy("bet kind", "split"),
    "behind": pgettext_lazy("bet kind", "behind"),
}
ACTIONS = {
    "hit": pgettext_lazy("decision", "hit"),
    "stand": pgettext_lazy("decision", "stand"),
    "double": pgettext_lazy("decision", "double"),
    "split": pgettext_lazy("decision", "split"),
    "surrender": pgettext_lazy("decision", "surrender"),
    "insurance": pgettext_lazy("decision", "insurance"),
    "no_insurance": pgettext_lazy("decision", "no insurance"),
    "even_money": pgettext_lazy("decision", "even money"),
}
OUTCOMES = {
    "win": pgettext_lazy("outcome", "win"),
    "natural": pgettext_lazy("outcome", "natural"),
    "lose": pgettext_lazy("outcome", "lose"),
    "push": pgettext_lazy("outcome", "push"),
    "surrender": pgettext_lazy("outcome", "surrender"),
    "carried": pgettext_lazy("outcome", "carried"),
    "cashed_out": pgettext_lazy("outcome", "cashed out"),
    "even_money": pgettext_lazy("outcome", "even money"),
}


def bet_kind(code: str) -> str:
    return str(BET_KINDS.get(code, code))


def action(code: str) -> str:
    return str(ACTIONS.get(code, code))


def outcome(code: str) -> str:
    return str(OUTCOMES.get(code, code))
