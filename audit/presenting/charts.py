"""What every chart drawn on the server shares (inline SVG, no JavaScript, nothing
fetched from elsewhere): the canvas and its margins, round axis steps and ticks. The
ledger's charts (win against theoretical, hold by table) and the tables' analytics
(bet against count, errors and their cost, dealers' rates) are drawn on these."""

from __future__ import annotations

WIDTH = 1000
LEFT, RIGHT, TOP, BOTTOM = 120, 24, 20, 56


def svg_open(name: str, height: int) -> str:
    return (
        f'<svg class="chart {name}" role="img" viewBox="0 0 {WIDTH} {height}" width="100%" '
        'xmlns="http://www.w3.org/2000/svg" font-family="sans-serif" font-size="12">'
    )


def nice_step(span: int, count: int = 5) -> int:
    """A step of 1, 2 or 5 times a power of ten that cuts ``span`` into about ``count``.

    >>> nice_step(434_500), nice_step(7), nice_step(0)
    (100000, 2, 1)
    """
    raw = max(span / count, 1)
    power = 10 ** (len(str(int(raw))) - 1)
    for factor in (1, 2, 5, 10):
        if factor * power >= raw:
            return factor * power
    return 10 * power  # pragma: no cover


def ticks(low: int, high: int) -> tuple[int, int, list[int]]:
    """Round axis bounds around ``low``..``high`` and the ticks between them."""
    step = nice_step(high - low)
    first = (low // step) * step
    last = -((-high) // step) * step
    return first, last, list(range(first, last + 1, step))
