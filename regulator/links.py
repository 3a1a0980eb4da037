"""The links a round's review shows to its recall (registered with
``tables.admin.round_links_register`` from :class:`regulator.apps.RegulatorConfig`).
A module of its own, light to import: every process imports it at start, while the recall's
views bring the PDF library and the REST framework with them."""

from __future__ import annotations

from django.urls import reverse


def recall_links(table: str, day: str, number: int) -> list[tuple[str, str, str]]:
    """(key, label, address) of the round's printable recall and its PDF."""
    key = {"table": table, "day": day, "number": number}
    return [
        ("recall", "printable recall", reverse("round-recall", kwargs=key)),
        ("recall-pdf", "PDF", reverse("round-recall-pdf", kwargs=key)),
    ]
