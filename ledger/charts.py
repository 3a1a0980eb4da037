"""Charts drawn on the server as inline SVG (no JavaScript, nothing fetched from elsewhere):
the house result against the theoretical win with its 95% band, by gaming day; hold % by
table.
Axis labels are money by the one formatter, rates as 44.4%. Every mark has a
``<title>`` (a tooltip) saying what it stands for."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from audit.presenting.charts import BOTTOM, LEFT, RIGHT, TOP, WIDTH
from audit.presenting.charts import svg_open as _svg_open
from audit.presenting.charts import ticks as _ticks
from audit.record.money import format_money, format_signed
from ledger.books.stats import percent


@dataclass(frozen=True)
class DayPoint:
    day: str
    result: int  # the house result (recorded win) of the day's rounds
    theoretical: int | None
    low: int | None
    high: int | None


def win_band(points: Sequence[DayPoint], currency: str, *, height: int = 320) -> SafeString:
    """The house result of the rounds (a line with dots) against their theoretical win
    (dashed) and its 95% band (shaded) by gaming day."""
    if not points:
        return format_html('<p class="chart-empty">{}</p>', _("No reconciled days in the range."))
    values = [p.result for p in points] + [
        v for p in points for v in (p.theoretical, p.low, p.high) if v is not None
    ]
    low, high, ticks = _ticks(min(values + [0]), max(values + [0]))
    if high == low:
        high = low + 1
    plot_w, plot_h = WIDTH - LEFT - RIGHT, height - TOP - BOTTOM

    def x(i: int) -> float:
        return LEFT + (plot_w * (i + 0.5) / len(points))

    def y(v: int) -> float:
        return TOP + plot_h * (high - v) / (high - low)

    # xgettext:no-python-format
    band_title = _("95% interval of the theoretical win")
    words = {"result": _("house result (recorded)"), "theoretical": _("theoretical win")}
    parts = [
        _svg_open("win-band", height),
        format_html(
            "<title>{}</title>",
            _("House result against theoretical win by gaming day (%(currency)s)")
            % {"currency": currency},
        ),
    ]
    for tick in ticks:
        parts.append(
            f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" stroke="#ddd"/>'
        )
        parts.append(
            f'<text x="{LEFT - 6}" y="{y(tick) + 4:.1f}" text-anchor="end" fill="#555">'
            f"{escape(format_signed(tick, currency))}</text>"
        )
    parts.append(
        f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y(0):.1f}" y2="{y(0):.1f}" stroke="#888"/>'
    )
    banded = [(i, p) for i, p in enumerate(points) if p.low is not None and p.high is not None]
    if banded:
        upper = " ".join(f"{x(i):.1f},{y(p.high or 0):.1f}" for i, p in banded)
        lower = " ".join(f"{x(i):.1f},{y(p.low or 0):.1f}" for i, p in reversed(banded))
        parts.append(
            f'<polygon class="band" points="{upper} {lower}" fill="#2e6cc0" fill-opacity="0.15" stroke="none">'
            f"<title>{escape(band_title)}</title></polygon>"
        )
    theory = [(i, p) for i, p in enumerate(points) if p.theoretical is not None]
    if theory:
        line = " ".join(f"{x(i):.1f},{y(p.theoretical or 0):.1f}" for i, p in theory)
        parts.append(
            f'<polyline class="theoretical" points="{line}" fill="none" stroke="#2e6cc0" '
            'stroke-width="2" stroke-dasharray="6 4"/>'
        )
    line = " ".join(f"{x(i):.1f},{y(p.result):.1f}" for i, p in enumerate(points))
    parts.append(
        f'<polyline class="win" points="{line}" fill="none" stroke="#0b6b3a" stroke-width="2.5"/>'
    )
    step = max(1, len(points) // 12)
    for i, p in enumerate(points):
        outside = p.low is not None and p.high is not None and not p.low <= p.result <= p.high
        colour = "#b00020" if outside else "#0b6b3a"
        tip = _("%(day)s: house result %(result)s") % {
            "day": p.day,
            "result": format_signed(p.result, currency),
        }
        if p.theoretical is not None:
            tip += _(", theoretical %(win)s") % {"win": format_signed(p.theoretical, currency)}
        if p.low is not None and p.high is not None:
            tip += _(", 95%% %(low)s to %(high)s") % {
                "low": format_signed(p.low, currency),
                "high": format_signed(p.high, currency),
            }
        parts.append(
            f'<circle class="day{" outside" if outside else ""}" cx="{x(i):.1f}" cy="{y(p.result):.1f}" r="4" '
            f'fill="{colour}"><title>{escape(tip)}</title></circle>'
        )
        if i % step == 0:
            parts.append(
                f'<text x="{x(i):.1f}" y="{height - BOTTOM + 18}" text-anchor="middle" fill="#555">'
                f"{escape(p.day[5:])}</text>"
            )
    legend_y = height - 14
    # xgettext:no-python-format
    interval_label = _("95% interval")
    if not banded:
        # xgettext:no-python-format
        interval_label = _("95% interval (n/a: no variance of the game yet)")
    parts.append(
        f'<g class="legend" transform="translate({LEFT},{legend_y})">'
        '<line x1="0" x2="24" y1="-4" y2="-4" stroke="#0b6b3a" stroke-width="2.5"/>'
        f'<text x="30" y="0">{escape(words["result"])}</text>'
        '<line x1="250" x2="274" y1="-4" y2="-4" stroke="#2e6cc0" stroke-width="2" stroke-dasharray="6 4"/>'
        f'<text x="280" y="0">{escape(words["theoretical"])}</text>'
        '<rect x="420" y="-11" width="24" height="12" fill="#2e6cc0" fill-opacity="0.15"/>'
        f'<text x="450" y="0">{escape(interval_label)}</text>'
        "</g>"
    )
    parts.append("</svg>")
    return mark_safe("".join(parts))


@dataclass(frozen=True)
class HoldBar:
    table: str
    hold: Fraction | None
    theoretical_hold: Fraction | None
    drop: int | None  # of the complete table-days
    win: int | None  # chip-count, of the complete table-days
    currency: str
    left_out: int = 0  # table-days without a chip-count win or a drop


def hold_by_table(bars: Sequence[HoldBar], *, row_height: int = 26) -> SafeString:
    """Hold % per table as horizontal bars, the theoretical hold as a tick on each."""
    shown = [b for b in bars if b.hold is not None]
    if not shown:
        return format_html(
            '<p class="chart-empty">{}</p>',
            _("No table with a chip-count win and a drop in the range."),
        )
    rates = [b.hold for b in shown if b.hold is not None] + [
        b.theoretical_hold for b in shown if b.theoretical_hold is not None
    ]
    low, high = min([Fraction(0), *rates]), max([Fraction(0), *rates])
    if high == low:
        high = low + 1
    height = TOP + row_height * len(shown) + 40
    plot_w = WIDTH - LEFT - RIGHT - 70  # room for the label after the longest bar

    def x(v: Fraction) -> float:
        return float(LEFT + plot_w * (v - low) / (high - low))

    words = {
        "title": _("Hold % by table"),
        "tick": _("theoretical hold"),
        "hold": _("hold (chip-count win / drop)"),
        "theoretical": _("theoretical hold (theoretical win / drop)"),
    }
    parts = [
        _svg_open("hold-by-table", height),
        f"<title>{escape(words['title'])}</title>",
        f'<line x1="{x(Fraction(0)):.1f}" x2="{x(Fraction(0)):.1f}" y1="{TOP - 4}" y2="{height - 36}" stroke="#888"/>',
    ]
    for i, bar in enumerate(shown):
        assert bar.hold is not None
        top = TOP + i * row_height
        start, end = sorted((x(Fraction(0)), x(bar.hold)))
        assert bar.win is not None and bar.drop is not None  # a hold has both
        tip = _(
            "%(table)s: hold %(hold)s (chip-count win %(win)s on a drop of %(drop)s), "
            "theoretical hold %(theoretical)s"
        ) % {
            "table": bar.table,
            "hold": percent(bar.hold),
            "win": format_signed(bar.win, bar.currency),
            "drop": format_money(bar.drop, bar.currency),
            "theoretical": percent(bar.theoretical_hold),
        }
        if bar.left_out:
            tip += ngettext(
                "; %(count)s table-day left out (no chip-count win or no drop)",
                "; %(count)s table-days left out (no chip-count win or no drop)",
                bar.left_out,
            ) % {"count": bar.left_out}
        colour = "#0b6b3a" if bar.hold >= 0 else "#b00020"
        parts.append(
            f'<text x="{LEFT - 6}" y="{top + row_height / 2 + 4:.1f}" text-anchor="end">{escape(bar.table)}</text>'
        )
        parts.append(
            f'<rect class="hold" x="{start:.1f}" y="{top + 4}" width="{max(end - start, 1):.1f}" '
            f'height="{row_height - 8}" fill="{colour}"><title>{escape(tip)}</title></rect>'
        )
        parts.append(
            f'<text x="{end + 4:.1f}" y="{top + row_height / 2 + 4:.1f}">{escape(percent(bar.hold))}</text>'
        )
        if bar.theoretical_hold is not None:
            tx = x(bar.theoretical_hold)
            parts.append(
                f'<line class="theoretical" x1="{tx:.1f}" x2="{tx:.1f}" y1="{top + 1}" y2="{top + row_height - 1}" '
                f'stroke="#2e6cc0" stroke-width="3"><title>{escape(words["tick"])} '
                f"{escape(percent(bar.theoretical_hold))}</title></line>"
            )
    parts.append(
        f'<g class="legend" transform="translate({LEFT},{height - 12})">'
        '<rect x="0" y="-11" width="24" height="12" fill="#0b6b3a"/>'
        f'<text x="30" y="0">{escape(words["hold"])}</text>'
        '<line x1="250" x2="250" y1="-12" y2="2" stroke="#2e6cc0" stroke-width="3"/>'
        f'<text x="260" y="0">{escape(words["theoretical"])}</text></g>'
    )
    parts.append("</svg>")
    return mark_safe("".join(parts))
