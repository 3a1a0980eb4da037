"""The audit commands speak the locale's language: their messages, errors, summaries and
``--help`` in Italian and Czech, counts written the locale's way (``1.050``, ``1 050``),
what programs read (the JSONL export) the same in every language. Each expected line is
written out by hand."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from django.core.management import call_command

from audit.store.streams import events_append
from tests.casino.test_command_messages import _manage
from tests.commands import run_command
from tests.samples import round_events

NBSP = "\u00a0"  # Babel's group separator in Czech


@pytest.fixture
def speaking(monkeypatch: pytest.MonkeyPatch):
    """Run in-process commands as a shell whose locale is ``LANG`` (a command activates
    the language of its environment, whatever the test's active language)."""

    def speak(lang: str) -> None:
        for name in ("LC_ALL", "LC_MESSAGES", "LANGUAGE"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("LANG", lang)

    return speak


@pytest.fixture
def exported(tmp_path: Path) -> tuple[Path, bytes]:
    """Two tables of 21 rounds each (1,050 events) in the store, exported in English."""
    for stream in ("T1", "T2"):
        for r in range(21):
            events_append(stream=stream, expected_version=25 * r, events=round_events(r + 1))
    out = tmp_path / "export.jsonl"
    call_command("export_events", "--out", str(out), stderr=io.StringIO())
    return out, out.read_bytes()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("lang", "exported_line", "verified_line", "thousand"),
    [
        (
            "it_IT.UTF-8",
            "esportati 1050 eventi in {path}",
            "{path}: verificati 1.050 eventi (flussi: 2): tutte le catene integre",
            "1.050",
        ),
        (
            "cs_CZ.UTF-8",
            "exportováno 1050 událostí do {path}",
            f"{{path}}: ověřeno 1{NBSP}050 událostí (proudů: 2): všechny řetězce neporušené",
            f"1{NBSP}050",
        ),
    ],
)
def test_export_and_verify_of_a_file_in_the_locale_s_language(
    lang, exported_line, verified_line, thousand, exported, speaking, tmp_path
) -> None:
    """The export's line and verify's summary in the language, the count of events with
    the locale's thousands separator; the JSONL itself byte for byte the English run's."""
    _english_file, english_bytes = exported
    speaking(lang)
    out = tmp_path / f"export-{lang}.jsonl"
    code, _out, err = run_command("export_events", "--out", str(out))
    assert code == 0
    assert err.strip() == exported_line.format(path=out)
    assert out.read_bytes() == english_bytes  # what programs read does not change
    code, said, err = run_command("verify", "--file", str(out))
    assert (code, err) == (0, "")
    assert said.strip() == verified_line.format(path=out)
    assert thousand in said


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("lang", "error", "result"),
    [
        (
            "it_IT.UTF-8",
            "--jobs 0: atteso un numero intero non inferiore a 1",
            "--take-back T9: nessun sottoscrittore lo ha messo da parte",
        ),
        (
            "cs_CZ.UTF-8",
            "--jobs 0: očekáváno celé číslo alespoň 1",
            "--take-back T9: žádný odběratel jej neodložil",
        ),
    ],
)
def test_catch_up_s_refusals_in_the_locale_s_language(lang, error, result, speaking) -> None:
    speaking(lang)
    assert run_command("catch_up", "--jobs", "0") == (2, "", error)
    assert run_command("catch_up", "--take-back", "T9") == (2, "", result)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("lang", "no_user", "nobody_to_seal"),
    [
        (
            "it_IT.UTF-8",
            "nessun utente 'nobody'",
            "i poteri di ogni persona corrispondono al loro sigillo (0 utenti)",
        ),
        (
            "cs_CZ.UTF-8",
            "uživatel 'nobody' neexistuje",
            # Czech's form for none and for five and more
            "oprávnění každé osoby odpovídají své pečeti (0 uživatelů)",
        ),
    ],
)
def test_tokens_and_authority_in_the_locale_s_language(
    lang, no_user, nobody_to_seal, speaking
) -> None:
    speaking(lang)
    assert run_command("api_token", "nobody") == (2, "", no_user)
    code, out, err = run_command("authority_seal")
    assert (code, out.strip(), err) == (0, nobody_to_seal, "")


@pytest.mark.parametrize(
    ("lang", "lines"),
    [
        (
            "it_IT.UTF-8",
            [
                "CommandError: --since 'ieri': atteso AAAA-MM-GG o un istante ISO 8601",
                "CommandError: nowhere.jsonl: non è un file leggibile",
                "CommandError: db_roles: il database è sqlite; i ruoli sono di PostgreSQL",
            ],
        ),
        (
            "cs_CZ.UTF-8",
            [
                "CommandError: --since 'ieri': očekáváno RRRR-MM-DD nebo časový údaj ISO 8601",
                "CommandError: nowhere.jsonl: není čitelný soubor",
                "CommandError: db_roles: databáze je sqlite; role jsou věcí PostgreSQL",
            ],
        ),
    ],
)
def test_from_the_shell_errors_in_the_locale_s_language(lang, lines, tmp_path) -> None:
    """As the shell runs them (LANG only): each refusal before any work, exit 2."""
    database = tmp_path / "db.sqlite3"
    database.touch()
    env = {"DATABASE_URL": f"sqlite:///{database}", "LANG": lang, "LC_ALL": None}
    runs = [
        _manage("verify", "--since", "ieri", **env),
        _manage("ingest", "nowhere.jsonl", **env),
        _manage("db_roles", "--check", **env),
    ]
    for done, line in zip(runs, lines, strict=True):
        assert done.returncode == 2, done.stderr
        assert done.stderr.startswith(line), done.stderr


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        (
            "it_IT.UTF-8",
            [
                "verifica questo file JSON Lines ('-' per stdin) invece dell'archivio",
                "accettata e superflua: questi comandi saltano i controlli di sistema",
                (
                    "Codici di uscita: 0 ogni catena integra (o nessun evento da verificare); 1 è "
                    "stato trovato un problema (una riga ciascuno), o ci sono eventi e nessuna testa "
                    "firmata affidabile; 2 il file non si può leggere,"
                ),
            ],
        ),
        (
            "cs_CZ.UTF-8",
            [
                "ověří tento soubor JSON Lines ('-' pro stdin) místo úložiště",
                "přijímá se, ale je zbytečná: tyto příkazy systémové kontroly vynechávají",
                (
                    "Návratové kódy: 0 každý řetězec neporušený (nebo žádné události k ověření); 1 "
                    "byl nalezen problém (každý na jednom řádku), nebo jsou události a žádná "
                    "důvěryhodná podepsaná hlava; 2 soubor nelze přečíst,"
                ),
            ],
        ),
    ],
)
def test_help_in_the_locale_s_language(lang, said) -> None:
    """The description, each option's help and the exit codes; option names unchanged."""
    done = _manage("verify", "--help", LANG=lang, LC_ALL=None, COLUMNS="1000")
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())  # argparse's own wrapping aside
    for line in said:
        assert line in text, text
    assert "--file FILE" in text and "--since SINCE" in text


@pytest.mark.parametrize(
    ("lang", "written", "refused"),
    [
        (
            "it_IT.UTF-8",
            r"chiave \S+ scritta in {path} \(tienila segreta\); la sua chiave pubblica:",
            "digest: {path} esiste; una chiave non viene mai sovrascritta",
        ),
        (
            "cs_CZ.UTF-8",
            r"klíč \S+ zapsán do {path} \(uchovejte jej v tajnosti\); jeho veřejný klíč:",
            "digest: {path} existuje; klíč se nikdy nepřepisuje",
        ),
    ],
)
def test_digest_s_new_key_in_the_locale_s_language(
    lang, written, refused, speaking, tmp_path
) -> None:
    speaking(lang)
    path = tmp_path / "signing.key"
    code, out, _err = run_command("digest", "--new-key", str(path))
    assert code == 0
    assert re.fullmatch(written.format(path=re.escape(str(path))), out.splitlines()[0])
    assert run_command("digest", "--new-key", str(path)) == (2, "", refused.format(path=path))
