"""The audit commands speak the locale's language: their messages, errors and summaries in
Italian and Czech, with the plural each count takes. Each expected line is written out by
hand."""

from __future__ import annotations

import re

import pytest

from tests.casino.test_command_messages import _manage
from tests.commands import run_command


@pytest.fixture
def speaking(monkeypatch: pytest.MonkeyPatch):
    """Run in-process commands as a shell whose locale is ``LANG`` (a command activates
    the language of its environment, whatever the test's active language)."""

    def speak(lang: str) -> None:
        for name in ("LC_ALL", "LC_MESSAGES", "LANGUAGE"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("LANG", lang)

    return speak


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
    ("lang", "line"),
    [
        ("it_IT.UTF-8", "CommandError: db_roles: il database è sqlite; i ruoli sono di PostgreSQL"),
        ("cs_CZ.UTF-8", "CommandError: db_roles: databáze je sqlite; role jsou věcí PostgreSQL"),
    ],
)
def test_from_the_shell_errors_in_the_locale_s_language(lang, line, tmp_path) -> None:
    """As the shell runs it (LANG only): the refusal before any work, exit 2."""
    database = tmp_path / "db.sqlite3"
    database.touch()
    env = {"DATABASE_URL": f"sqlite:///{database}", "LANG": lang, "LC_ALL": None}
    done = _manage("db_roles", "--check", **env)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(line), done.stderr


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
