"""``reconcile`` and ``report`` speak the locale's language (audit.presenting.commands):
their lines, errors and help in Italian and Czech, amounts the locale's way - each line
written out here by hand (``~``: the non-breaking space the locale writes in an amount).
What programs read (``--json``, ``--csv``) does not change with it."""

from __future__ import annotations

import pytest
from django.utils import translation
from django.utils.translation import ngettext

from tests.casino.test_command_messages import _manage
from tests.commands import run_command

from .helpers import DAY, worked_example
from .test_reconciliation_service import stored

pytestmark = pytest.mark.django_db


def _nbsp(text: str) -> str:
    return text.replace("~", "\xa0")


@pytest.fixture
def worked_day(fake_game) -> None:
    t = worked_example()
    fake_game.record(t.code, t.events)
    stored(t)


@pytest.mark.parametrize(
    ("lang", "line", "none"),
    [
        (
            "it_IT.UTF-8",
            (
                "BJ-01 2026-11-29: conteggio fiches +4.000,00~€, registrata +4.000,00~€, "
                "ricalcolata +4.000,00~€, teorica +30,00~€ (DS n/d), drop 9.000,00~€, hold 44,4%; "
                "riconciliata"
            ),
            "la contabilità non ha cifre per nessun tavolo il 2026-11-28; ha cifre del 2026-11-29",
        ),
        (
            "cs_CZ.UTF-8",
            (
                "BJ-01 2026-11-29: podle žetonů +4~000,00~€, zaznamenaná +4~000,00~€, přepočtená "
                "+4~000,00~€, teoretická +30,00~€ (SO n/a), drop 9~000,00~€, hold 44,4~%; "
                "odsouhlaseno"
            ),
            "účetnictví nemá žádné údaje pro žádný stůl dne 2026-11-28; má údaje z 2026-11-29",
        ),
    ],
)
def test_reconcile_in_the_locale_s_language(worked_day, monkeypatch, lang, line, none) -> None:
    monkeypatch.setenv("LANG", lang)
    code, out, _ = run_command("reconcile", "--day", DAY)
    assert code == 0 and out.splitlines() == [_nbsp(line)]
    code, _, err = run_command("reconcile", "--day", "2026-11-28")
    assert code == 2 and err == none
    # for programs: English words and ISO amounts, as in any locale
    code, out, _ = run_command("reconcile", "--day", DAY, "--json")
    assert '"state_text": "reconciled"' in out and '"drop": "EUR 9,000.00"' in out


def test_a_count_of_table_days_takes_the_count_s_form() -> None:
    said = "%(lacking)d of %(total)d table-day(s) lack a count, a drop or a finished slip"
    with translation.override("cs"):
        assert [ngettext(said, said, n) % {"lacking": n, "total": 7} for n in (1, 3, 5)] == [
            "1 z 7 dnů stolu postrádá sčítání, drop nebo dokončený doklad",
            "3 z 7 dnů stolu postrádají sčítání, drop nebo dokončený doklad",
            "5 z 7 dnů stolu postrádá sčítání, drop nebo dokončený doklad",
        ]
    with translation.override("it"):
        assert [ngettext(said, said, n) % {"lacking": n, "total": 7} for n in (1, 2)] == [
            (
                "1 giornata del tavolo su 7 è priva di un conteggio, di un drop o di un buono "
                "completato"
            ),
            (
                "2 giornate del tavolo su 7 sono prive di un conteggio, di un drop o di un buono "
                "completato"
            ),
        ]


@pytest.mark.parametrize(
    ("lang", "title", "header", "total", "refused"),
    [
        (
            "it_IT.UTF-8",
            "Hold per tavolo, dal 29/11/2026 al 29/11/2026",
            "tavolo  pit  gioco  valuta  giornate",
            ("totale ", "+4.000,00~€  44,4%"),
            (
                "report statistics: --period mtd accetta --day D, la giornata in cui termina; "
                "--from e --to vanno con --period range"
            ),
        ),
        (
            "cs_CZ.UTF-8",
            "Hold podle stolů, 29. 11. 2026 až 29. 11. 2026",
            "stůl    pit  hra    měna  dny",
            ("celkem ", "+4~000,00~€  44,4~%"),
            (
                "report statistics: --period mtd bere --day D, den, kterým končí; --from a --to "
                "patří k --period range"
            ),
        ),
    ],
)
def test_report_in_the_locale_s_language(
    worked_day, monkeypatch, lang, title, header, total, refused
) -> None:
    monkeypatch.setenv("LANG", lang)
    code, out, _ = run_command("report", "hold", "--from", DAY, "--to", DAY)
    lines = out.splitlines()
    assert code == 0 and lines[0] == title and lines[1].startswith(header)
    assert lines[-1].startswith(total[0]) and _nbsp(total[1]) in lines[-1]
    code, _, err = run_command(
        "report", "statistics", "--period", "mtd", "--from", DAY, "--to", DAY
    )
    assert code == 2 and err == refused
    # for programs: the CSV as in any locale
    code, out, _ = run_command("report", "hold", "--from", DAY, "--to", DAY, "--csv")
    assert '"+EUR 4,000.00",4000.00,400000,44.4%,4444' in out.splitlines()[-1]
    assert out.splitlines()[-1].startswith("total,,,EUR,1,")


@pytest.mark.parametrize(
    ("lang", "refused", "help_says"),
    [
        (
            "it_IT.UTF-8",
            "--from '29/11/2026': atteso AAAA-MM-GG",
            "1 a una giornata del tavolo manca un conteggio, un drop o un buono completato",
        ),
        (
            "cs_CZ.UTF-8",
            "--from '29/11/2026': očekáváno RRRR-MM-DD",
            "1 dni stolu chybí sčítání, drop nebo dokončený doklad",
        ),
    ],
)
def test_from_the_shell_in_the_locale_s_language(lang, refused, help_says) -> None:
    done = _manage("report", "hold", "--from", "29/11/2026", "--to", DAY, LANG=lang)
    assert done.returncode == 2 and done.stderr.strip().endswith(refused), done.stderr
    done = _manage("reconcile", "--help", LANG=lang)
    assert done.returncode == 0 and help_says in " ".join(done.stdout.split()), done.stdout
