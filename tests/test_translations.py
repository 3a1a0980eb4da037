"""Every message a person reads is there in English, Italian and Czech.

English is the sources' own text; each app's catalogue (``APP/locale/{it,cs}``, and the
analytics' own) must translate every message, in both languages, with the placeholders
of the original, no entry left fuzzy; the compiled ``.mo`` Django loads must say what the
``.po`` says; and the catalogue must hold every message the sources mark today (made
again with ``makemessages`` in a copy and compared)."""

from __future__ import annotations

import gettext
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[1]
LANGUAGES = ("it", "cs")
# the directories makemessages runs in (each with its locale/), and what each leaves to
# another's catalogue
IGNORED = {"tables": ("analytics/*",)}
CATALOGUES = {
    str(folder.parent.relative_to(ROOT)): IGNORED.get(str(folder.parent.relative_to(ROOT)), ())
    for folder in sorted([*ROOT.glob("*/locale"), *ROOT.glob("*/*/locale")])
    if folder.is_dir() and ".venv" not in folder.parts
}
# the apps whose screens people read: each must have its catalogue
SPEAKING = {"casino", "audit", "ledger", "regulator", "tables", "tables/analytics"}
PLACEHOLDER = re.compile(r"%\((\w+)\)[sdr]|\{(\w*)\}|%[sdr]")


def _po(folder: str, language: str):
    path = ROOT / folder / "locale" / language / "LC_MESSAGES" / "django.po"
    assert path.exists(), f"{folder} has no {language} catalogue ({path})"
    with path.open("rb") as handle:
        return read_po(handle, locale=language)


def _placeholders(text: str) -> list[str]:
    return sorted(m.group(0) for m in PLACEHOLDER.finditer(text))


def test_every_app_that_speaks_to_people_has_a_catalogue() -> None:
    assert SPEAKING <= set(CATALOGUES), f"no catalogue: {sorted(SPEAKING - set(CATALOGUES))}"


@pytest.mark.parametrize("folder", list(CATALOGUES))
def test_every_message_is_translated_in_both_languages(folder: str) -> None:
    ids = {}
    for language in LANGUAGES:
        catalogue = _po(folder, language)
        ids[language] = {message.id for message in catalogue if message.id}
        for message in catalogue:
            if not message.id:
                continue
            where = f"{folder} {language}: {message.id!r}"
            assert not message.fuzzy, f"fuzzy: {where}"
            if message.pluralizable:
                assert all(message.string), f"a plural form missing: {where}"
                originals, translations = message.id, message.string
                for text in translations:
                    assert _placeholders(text) == _placeholders(originals[1]) or _placeholders(
                        text
                    ) == _placeholders(originals[0]), f"placeholders differ: {where}"
            else:
                assert message.string, f"not translated: {where}"
                assert _placeholders(message.string) == _placeholders(message.id), (
                    f"placeholders differ: {where}"
                )
    assert ids["it"] == ids["cs"], f"{folder}: Italian and Czech catalogues hold different messages"


def test_a_message_means_one_thing_in_every_catalogue() -> None:
    """Django merges the catalogues into one per language: a message two apps translate
    differently would read as whichever loads first, in both places. The same words with
    two meanings take a context (``pgettext``, ``{% translate ... context ... %}``)."""
    for language in LANGUAGES:
        seen: dict[tuple[str | None, str], dict[str, object]] = {}
        for folder in CATALOGUES:
            for message in _po(folder, language):
                if message.id:
                    key = (message.context, str(message.id))
                    seen.setdefault(key, {})[folder] = message.string
        differing = {key: by for key, by in seen.items() if len(set(map(str, by.values()))) > 1}
        assert not differing, f"{language}: one message, several translations: {differing}"


@pytest.mark.parametrize("folder", list(CATALOGUES))
def test_the_compiled_catalogue_says_what_the_po_says(folder: str) -> None:
    for language in LANGUAGES:
        mo = ROOT / folder / "locale" / language / "LC_MESSAGES" / "django.mo"
        assert mo.exists(), f"{folder} {language}: run compilemessages"
        with mo.open("rb") as handle:
            compiled = gettext.GNUTranslations(handle)
        for message in _po(folder, language):
            if not message.id or message.pluralizable:
                continue
            key = f"{message.context}\x04{message.id}" if message.context else message.id
            assert compiled._catalog.get(key) == message.string, (  # type: ignore[attr-defined]
                f"{folder} {language}: the .mo is older than the .po ({message.id!r}); run compilemessages"
            )


@pytest.fixture(scope="module")
def project_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sources in a folder of their own, for makemessages to write into."""
    copy = tmp_path_factory.mktemp("sources") / "project"
    shutil.copytree(
        ROOT,
        copy,
        ignore=shutil.ignore_patterns(
            ".venv", ".git", "var", "artifacts", "node_modules", "__pycache__", "*.mo"
        ),
    )
    return copy


@pytest.mark.parametrize("folder", list(CATALOGUES))
def test_the_catalogue_holds_every_message_the_sources_mark(
    folder: str, project_copy: Path
) -> None:
    if shutil.which("xgettext") is None:
        why = "needs GNU gettext's xgettext: as root, run `bash deploy/install-system-packages.sh`"
        if os.environ.get("CI"):
            pytest.fail(why)
        pytest.skip(why)
    copy = project_copy
    command = [
        sys.executable,
        str(copy / "manage.py"),
        "makemessages",
        "-l",
        "it",
        "--no-obsolete",
        "--no-location",
    ]
    for pattern in CATALOGUES[folder]:
        command += ["-i", pattern]
    subprocess.run(command, cwd=copy / folder, check=True, capture_output=True)
    with (copy / folder / "locale" / "it" / "LC_MESSAGES" / "django.po").open("rb") as handle:
        marked = {
            message.id if isinstance(message.id, str) else message.id[0]
            for message in read_po(handle)
            if message.id
        }
    held = {
        message.id if isinstance(message.id, str) else message.id[0]
        for message in _po(folder, "it")
        if message.id
    }
    missing = sorted(marked - held)
    assert not missing, (
        f"{folder}: messages marked in the sources but not in the catalogue (run makemessages): {missing[:10]}"
    )
