"""Progress bars of the long commands: on stderr, shown only on a terminal (tqdm's
``disable=None``: quiet in a pipe or a file), always with the total known up front - a
bar that only counts says nothing about how long is left."""

from __future__ import annotations

import sys

from tqdm import tqdm


def progress_bar(*, total: int | None, unit: str, desc: str) -> tqdm:
    return tqdm(total=total, unit=unit, desc=desc, file=sys.stderr, disable=None, unit_scale=True)


def count_lines(path: str, *, block: int = 1 << 20) -> int:
    """The lines of a file (a last line without a newline counts), read in binary blocks:
    a read of the file before the work, the price of a bar with a total."""
    lines, last = 0, b"\n"
    with open(path, "rb") as source:
        while chunk := source.read(block):
            lines += chunk.count(b"\n")
            last = chunk[-1:]
    return lines + (last != b"\n")
