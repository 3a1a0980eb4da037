"""The record's words as people read them, in the active language: a finding's kind by
its title and sentence (the one findings vocabulary, :mod:`audit.record.findings`), an
event's type by its title (the event catalogue, :mod:`audit.record.events`), a finding's
severity and status as words.

Those definitions are pure and English; they mark their texts for the catalogue and
these functions translate them where a screen shows them. Every screen that shows a
kind or an event type - the findings' pages, the floor's alerts, the round review, the
recall - calls these, never the code itself. Codes stay codes where they are data (the
API's fields, CSV columns, filters' query strings)."""

from __future__ import annotations

from django.utils.translation import gettext, gettext_lazy, pgettext_lazy

from audit.record.events import REGISTRY
from audit.record.findings import KINDS


def kind_title(kind: str) -> str:
    """A finding kind in a few words (``wrong_payout`` -> "Wrong payout"); an unknown
    kind as it is."""
    found = KINDS.get(kind)
    return gettext(found.title) if found else kind


def kind_sentence(kind: str) -> str:
    """What a finding kind means, in the one vocabulary's words; an unknown kind as it is."""
    found = KINDS.get(kind)
    return gettext(found.sentence) if found else kind


def event_title(event_type: str) -> str:
    """An event type by its title in the catalogue (``betting.closed`` -> "Betting
    closed"); an unknown type as it is."""
    found = REGISTRY.get(event_type)
    return gettext(found.title) if found else event_type


_SEVERITIES = {
    "critical": pgettext_lazy("severity", "critical"),
    "high": pgettext_lazy("severity", "high"),
    "medium": pgettext_lazy("severity", "medium"),
    "low": pgettext_lazy("severity", "low"),
}
_STATUSES = {
    "open": pgettext_lazy("finding status", "Open"),
    "acknowledged": pgettext_lazy("finding status", "Acknowledged"),
    "resolved": pgettext_lazy("finding status", "Resolved"),
}
# a status change, as the trail of a finding names it
_CHANGES = {
    "acknowledged": gettext_lazy("acknowledged"),
    "resolved": gettext_lazy("resolved"),
    "reopened": gettext_lazy("reopened"),
}


def severity_text(severity: str) -> str:
    """A severity as a word (``high`` -> "high", "alta" in Italian)."""
    return str(_SEVERITIES.get(severity, severity))


def status_text(status: str) -> str:
    """A finding's status as a word, capitalised as the list's cell and the page's head
    show it ("Acknowledged")."""
    return str(_STATUSES.get(status, status))


def change_text(change: str) -> str:
    """A finding's status change (``acknowledged``, ``resolved``, ``reopened``) as words."""
    return str(_CHANGES.get(change, change))
