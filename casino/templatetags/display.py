"""How the screens write figures a person reads: ``{% load display %}``.

Every filter writes in the language of the request (``casino.middleware``) and keeps the
figure on one line (``<span class="nowrap">``: an amount or a date never breaks across
two). Money comes from the one formatter, :mod:`audit.record.money`; dates from the
locale's formats (``casino/formats/``), in the casino's time zone. A missing figure is
``n/a``, never 0.

    {{ row.win_minor|money:row.currency }}   {{ result|signed_money:"EUR" }}
    {{ bets|number }}   {{ hold|percent }}   {{ event.recorded_at|when }}   {{ gaming_day|day }}
"""

from __future__ import annotations

import datetime as dt
from fractions import Fraction

from django import template
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import get_language

from audit.record import money as formatter

register = template.Library()


def _one_line(text: str) -> SafeString:
    return format_html('<span class="nowrap">{}</span>', text)


# the template's language (a request's, or translation.override's around a render)
@register.filter
def money(amount_minor: int | None, currency: str | None) -> SafeString:
    """Integer minor units of ``currency``: ``EUR 1,234.50``, ``1.234,50 €``."""
    with formatter.in_locale(get_language()):
        return _one_line(formatter.money_text(amount_minor, currency or None, none="n/a"))


@register.filter
def signed_money(amount_minor: int | None, currency: str | None) -> SafeString:
    """A house result or a difference, its sign always shown: ``+EUR 40.00``."""
    with formatter.in_locale(get_language()):
        text = formatter.money_text(amount_minor, currency or None, signed=True, none="n/a")
    return _one_line(text)


@register.filter
def number(value: int | None) -> SafeString:
    """A count with the locale's thousands separators: ``12,345``, ``12.345``."""
    with formatter.in_locale(get_language()):
        if value is None or value == "":
            return _one_line(formatter.not_available())
        return _one_line(formatter.format_number(int(value)))


@register.filter
def percent(value: Fraction | None, digits: int = 1) -> SafeString:
    """An exact rate: ``12.5%``, ``12,5 %``; n/a where there is none."""
    with formatter.in_locale(get_language()):
        return _one_line(formatter.percent(value, int(digits)))


@register.filter
def when(value: dt.datetime | None) -> SafeString:
    """A moment in the casino's time zone, the locale's 24-hour date and time."""
    if value is None:
        with formatter.in_locale(get_language()):
            return _one_line(formatter.not_available())
    if timezone.is_aware(value):
        value = timezone.localtime(value)
    return _one_line(date_format(value, "DATETIME_FORMAT"))


@register.filter
def day(value: dt.date | None) -> SafeString:
    """A (gaming) day in the locale's date format: ``2026-11-29``, ``29/11/2026``."""
    if value is None:
        with formatter.in_locale(get_language()):
            return _one_line(formatter.not_available())
    if isinstance(value, str):
        value = dt.date.fromisoformat(value)
    return _one_line(date_format(value, "DATE_FORMAT"))
