"""docs/security.md's threat model cites the tests that prove each row as
``file::test``; every one cited is a test that exists (a row cannot point at nothing)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _cited() -> list[tuple[str, str]]:
    text = (ROOT / "docs" / "security.md").read_text()
    section = text.split("## The threat model", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| **")]
    assert len(rows) == 7, "the seven attackers"
    cited = []
    for row in rows:
        proved = row.rstrip(" |").rsplit(" | ", 1)[1]
        file = None
        for name, test in re.findall(r"`([\w/]+\.py)?::(\w+)`", proved):
            file = name or file
            assert file is not None, proved
            cited.append((file, test))
    return cited


def test_every_test_the_threat_model_cites_exists() -> None:
    cited = _cited()
    assert len(cited) >= 40
    missing = [
        f"{file}::{test}"
        for file, test in cited
        if not re.search(rf"^def {test}\(", (ROOT / "tests" / file).read_text(), re.MULTILINE)
    ]
    assert not missing, missing
