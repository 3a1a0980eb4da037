"""The analytics' charts, drawn on the server as inline SVG on the shared canvas
(:mod:`audit.presenting.charts`): bet against true count (counter detection), the expected value
each player's errors gave up (strategy accuracy), and a rate per dealer. Money on an
axis or in a tooltip goes through the one formatter; every mark has a ``<title>``."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from django.utils.formats import number_format
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext

from audit.presenting.charts import BOTTOM, LEFT, RIGHT, TOP, WIDTH, svg_open, ticks
from audit.record.money import format_money, format_number
from tables.analytics.counters import PlayerCount

COUNTS = tuple(range(-4, 9))  # true-count buckets shown: -4 (and below) .. +8 (and above)
FLAGGED_COLOURS = ("#b00020", "#d35400", "#8e44ad", "#c0392b", "#e67e22", "#6c3483")


def _bucket(true_count: float) -> int:
    return max(COUNTS[0], min(COUNTS[-1], int(true_count // 1)))


def _units_by_count(
    points: Sequence[tuple[float, int]], unit: int
) -> dict[int, tuple[Fraction, int]]:
    """Mean bet in units of the player's smallest bet, and how many bets, by bucket."""
    sums: dict[int, list[int]] = {}
    for count, stake in points:
        sums.setdefault(_bucket(count), []).append(stake)
    return {b: (Fraction(sum(v), len(v) * unit), len(v)) for b, v in sums.items()}


def bet_against_count(
    players: Sequence[PlayerCount], *, shown: int = 6, height: int = 340
) -> SafeString:
    """Mean bet (in units of each player's smallest bet) by true count: a line for each
    flagged player (up to ``shown``), and one dashed line for every other player
    together. A counter's line climbs with the count; the crowd's stays flat."""
    if not players:
        nothing = gettext("No bets on the day.")
        return mark_safe(f'<p class="chart-empty">{escape(nothing)}</p>')
    flagged = [p for p in players if p.flagged][:shown]
    crowd_points: dict[int, list[Fraction]] = {}
    for p in players:
        if p.flagged:
            continue
        for bucket, (units, n) in _units_by_count(p.points, p.min_bet).items():
            crowd_points.setdefault(bucket, []).extend([units] * n)
    crowd = {b: (sum(v, Fraction(0)) / len(v), len(v)) for b, v in crowd_points.items()}
    lines = [
        (p.player, _units_by_count(p.points, p.min_bet), FLAGGED_COLOURS[i % len(FLAGGED_COLOURS)])
        for i, p in enumerate(flagged)
    ]
    top = max(
        [
            1,
            *(float(u) for _, line, _ in lines for u, _ in line.values()),
            *(float(u) for u, _ in crowd.values()),
        ]
    )
    low, high, marks = ticks(0, int(top + 0.999))
    high = max(high, 1)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, height - TOP - BOTTOM

    def x(bucket: int) -> float:
        return LEFT + plot_w * (bucket - COUNTS[0] + 0.5) / len(COUNTS)

    def y(units: Fraction | float) -> float:
        return TOP + plot_h * (high - float(units)) / (high - low)

    crowd_name = gettext("every player not flagged")
    title = gettext("Mean bet by Hi-Lo true count")
    axis = gettext("true count")
    parts = [svg_open("bet-against-count", height), f"<title>{escape(title)}</title>"]
    for tick in marks:
        parts.append(
            f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" stroke="#ddd"/>'
        )
        parts.append(
            f'<text x="{LEFT - 6}" y="{y(tick) + 4:.1f}" text-anchor="end" fill="#555">{tick}x</text>'
        )
    for bucket in COUNTS:
        label = (
            f"{bucket:+d}"
            if COUNTS[0] < bucket < COUNTS[-1]
            else (f"≤{bucket:+d}" if bucket == COUNTS[0] else f"≥{bucket:+d}")
        )
        parts.append(
            f'<text x="{x(bucket):.1f}" y="{height - BOTTOM + 18}" text-anchor="middle" fill="#555">{label}</text>'
        )
    parts.append(
        f'<text x="{LEFT + plot_w / 2:.1f}" y="{height - BOTTOM + 32}" text-anchor="middle" '
        f'fill="#333">{escape(axis)}</text>'
    )

    def polyline(
        name: str, line: dict[int, tuple[Fraction, int]], colour: str, dashed: bool
    ) -> None:
        buckets = sorted(line)
        dash = ' stroke-dasharray="6 4"' if dashed else ""
        points = " ".join(f"{x(b):.1f},{y(line[b][0]):.1f}" for b in buckets)
        parts.append(
            f'<polyline class="player{" crowd" if dashed else " flagged"}" points="{points}" fill="none" '
            f'stroke="{colour}" stroke-width="2.5"{dash}><title>{escape(name)}</title></polyline>'
        )
        for b in buckets:
            units, n = line[b]
            tip = gettext(
                "%(name)s: true count %(count)s, mean bet %(units)sx the smallest (bets: %(bets)s)"
            ) % {
                "name": name,
                "count": f"{b:+d}",
                "units": number_format(round(float(units), 2), decimal_pos=2, use_l10n=True),
                "bets": format_number(n),
            }
            parts.append(
                f'<circle cx="{x(b):.1f}" cy="{y(units):.1f}" r="3.5" '
                f'fill="{colour}"><title>{escape(tip)}</title></circle>'
            )

    if crowd:
        polyline(crowd_name, crowd, "#777", True)
    for name, line, colour in lines:
        polyline(gettext("%(player)s (flagged)") % {"player": name}, line, colour, False)
    legend = [
        f'<g class="legend" transform="translate({LEFT},{height - 8})">',
        (
            '<line x1="0" x2="24" y1="-4" y2="-4" stroke="#777" stroke-width="2.5" stroke-dasharray="6 4"/>'
            f'<text x="30" y="0">{escape(crowd_name)}</text>'
        ),
    ]
    first = 30 + 7 * len(crowd_name) + 24  # after the crowd's words, about 7 px a letter
    for i, (name, _line, colour) in enumerate(lines):
        at = first + i * 120
        legend.append(
            f'<line x1="{at}" x2="{at + 24}" y1="-4" y2="-4" stroke="{colour}" stroke-width="2.5"/>'
            f'<text x="{at + 30}" y="0">{escape(name)}</text>'
        )
    legend.append("</g>")
    parts.extend(legend)
    parts.append("</svg>")
    return mark_safe("".join(parts))


def bars(
    items: Sequence[tuple[str, int, str]],
    *,
    name: str,
    title: str,
    money: str | None = None,
    row_height: int = 24,
    above: str = "#b00020",
    below: str = "#0b6b3a",
) -> SafeString:
    """Horizontal bars, one per (label, value, tooltip), from zero; ``money``: the values
    are minor units of that currency (labelled by the one formatter). ``above`` and
    ``below`` colour the bars above and below zero (red above: errors, money lost)."""
    if not items:
        nothing = gettext("Nothing to chart.")
        return mark_safe(f'<p class="chart-empty">{escape(nothing)}</p>')
    values = [v for _, v, _ in items]
    low, high = min(0, *values), max(0, *values)
    if high == low:
        high = low + 1
    height = TOP + row_height * len(items) + 20
    plot_w = WIDTH - LEFT - RIGHT - 130  # room for the label after the longest bar

    def x(v: int) -> float:
        return LEFT + plot_w * (v - low) / (high - low)

    def text(v: int) -> str:
        return format_money(v, money) if money else format_number(v)

    parts = [
        svg_open(name, height),
        f"<title>{escape(title)}</title>",
        f'<line x1="{x(0):.1f}" x2="{x(0):.1f}" y1="{TOP - 4}" y2="{height - 16}" stroke="#888"/>',
    ]
    for i, (label, value, tip) in enumerate(items):
        top = TOP + i * row_height
        start, end = sorted((x(0), x(value)))
        colour = above if value > 0 else below
        parts.append(
            f'<text x="{LEFT - 6}" y="{top + row_height / 2 + 4:.1f}" text-anchor="end">{escape(label)}</text>'
        )
        parts.append(
            f'<rect class="bar" x="{start:.1f}" y="{top + 3}" width="{max(end - start, 1):.1f}" '
            f'height="{row_height - 6}" fill="{colour}"><title>{escape(tip)}</title></rect>'
        )
        parts.append(
            f'<text x="{max(end, x(0)) + 4:.1f}" y="{top + row_height / 2 + 4:.1f}">{escape(text(value))}</text>'
        )
    parts.append("</svg>")
    return mark_safe("".join(parts))
