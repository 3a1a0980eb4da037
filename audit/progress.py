"""A progress bar for long commands, on stderr, shown only on a terminal."""
from __future__ import annotations

import sys

from tqdm import tqdm


def progress_bar(*, total: int | None, unit: str, desc: str) -> tqdm:
    return tqdm(total=total, unit=unit, desc=desc, file=sys.stderr, disable=None, unit_scale=True)
