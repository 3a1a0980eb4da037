"""``{% load analytics_screens %}``: the analytics' screens where people look for them -
the admin's index of every screen (``casino/templates/admin/index.html``) shows them as a
module of their own, as it shows each app's models. What the tags show, in words, comes
from the analytics' screens (:mod:`tables.analytics.views`), translated in their own
catalogue."""

from __future__ import annotations

from typing import Any

from django import template

from tables.analytics import views

register = template.Library()


@register.inclusion_tag("admin/analytics/module.html")
def analytics_module() -> dict[str, Any]:
    """The analytics' screens as a module of the admin's index."""
    return views.admin_module()


@register.simple_tag
def floor_label() -> str:
    """The floor's name, for a breadcrumb back to it."""
    return views.words()["floor"]
