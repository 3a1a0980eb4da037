"""``manage.py export_package`` in the shell's language: its refusal of a bad date and
its last line (the count the locale's way), written out by hand in Italian and Czech."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from tests.casino.test_command_messages import _manage
from tests.package.conftest import DAY


@pytest.mark.parametrize(
    ("lang", "line"),
    [
        ("it_IT.UTF-8", "argument --day: '2026-13-01' non è una data (AAAA-MM-GG)"),
        ("cs_CZ.UTF-8", "argument --day: '2026-13-01' není datum (RRRR-MM-DD)"),
    ],
)
def test_a_bad_day_is_refused_in_the_locale_s_language(lang: str, line: str) -> None:
    done = _manage("export_package", "--day", "2026-13-01", "--out", "p.zip", LANG=lang)
    assert done.returncode == 2 and done.stderr.strip().endswith(line), done.stderr


def _export(monkeypatch, lang: str, out) -> str:
    for name in ("LC_ALL", "LC_MESSAGES", "LANGUAGE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", lang)
    said = io.StringIO()
    call_command("export_package", "--day", DAY, "--out", str(out), stderr=said)
    return said.getvalue().strip()


def test_the_last_line_in_italian_and_czech(record, tmp_path, monkeypatch) -> None:
    english = _export(monkeypatch, "C.UTF-8", tmp_path / "en.zip")
    events = int(english.split()[1].replace(",", ""))
    assert events > 0 and english == (
        f"exported {events:,} events of 3 table(s) to {tmp_path / 'en.zip'}"
    )
    italian = _export(monkeypatch, "it_IT.UTF-8", tmp_path / "it.zip")
    assert italian == (
        f"esportati {events:,} eventi (tavoli: 3) in {tmp_path / 'it.zip'}".replace(",", ".")
    )
    czech = _export(monkeypatch, "cs_CZ.UTF-8", tmp_path / "cs.zip")
    assert czech == (
        f"exportováno {events:,} událostí (stolů: 3) do {tmp_path / 'cs.zip'}".replace(
            ",", "\u00a0"
        )
    )
