"""Settings come from the environment, with development defaults and production guards."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from audit.store.gaming_day import gaming_day

ROOT = Path(__file__).resolve().parents[2]
_PRINT = (
    "from django.conf import settings as s; print(s.DEBUG, s.DATABASES['default']['ENGINE'], "
    "s.CELERY_TASK_ALWAYS_EAGER, s.GAMING_DAY_CUTOFF_HOUR, s.TIME_ZONE, s.ALLOWED_HOSTS)"
)
_SEAL = "from django.conf import settings as s; print(s.SEAL_KEY); print(','.join(s.SEAL_KEY_FALLBACKS))"


_SECURITY = (
    "from django.conf import settings as s; print(s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, "
    "s.SECURE_SSL_REDIRECT, s.SECURE_HSTS_SECONDS, 'csp.middleware.CSPMiddleware' in s.MIDDLEWARE)"
)


def _settings(*, show: str = _PRINT, **env: str) -> subprocess.CompletedProcess:
    clean = {
        k: v
        for k, v in os.environ.items()
        if k
        not in {
            "DATABASE_URL",
            "DEBUG",
            "SECRET_KEY",
            "CELERY_BROKER_URL",
            "ALLOWED_HOSTS",
            "TIME_ZONE",
            "GAMING_DAY_CUTOFF_HOUR",
            "SEAL_KEY",
            "SEAL_KEY_FILE",
            "SEAL_KEY_FALLBACKS",
            "SEAL_KEY_FALLBACK_FILES",
            "DIGEST_PUBLISHERS",
            "SECURE_COOKIES",
            "SECURE_SSL_REDIRECT",
            "SECURE_HSTS_SECONDS",
        }
    }
    code = f"import django, os; os.environ['DJANGO_SETTINGS_MODULE'] = 'casino.settings'; django.setup(); {show}"
    return subprocess.run(
        [sys.executable, "-c", code],
        check=False,
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_defaults_are_sqlite_eager_and_debug_off():
    """A fresh checkout runs on SQLite and eager Celery, with debug mode off and a random
    secret key of its own (made once in var/)."""
    run = _settings()
    assert run.returncode == 0, run.stderr
    assert run.stdout.split()[:5] == [
        "False",
        "django.db.backends.sqlite3",
        "True",
        "6",
        "Europe/Rome",
    ]
    key = (ROOT / "var" / "dev-secret-key").read_text()
    assert len(key) >= 60 and key not in {"dev-insecure-blackjack-backoffice-change-me"}
    # the store's seal key: a random key of its own beside it, never Django's
    seal = _settings(show=_SEAL)
    assert seal.returncode == 0, seal.stderr
    assert seal.stdout.splitlines()[0] == (ROOT / "var" / "dev-seal-key").read_text() != key


@pytest.mark.parametrize(
    "database",
    [{}, {"DATABASE_URL": "postgresql://u@db:5432/casino"}],
    ids=["sqlite", "postgresql"],
)
def test_the_security_flags_follow_debug_being_off_on_any_database(
    database: dict[str, str],
) -> None:
    """DEBUG off: secure cookies, HTTPS redirect, a year of HSTS and the CSP header, on
    SQLite as on PostgreSQL; DEBUG on (a laptop, the demo): none of the HTTPS ones; each
    may still be turned off by name."""
    key = {"SECRET_KEY": "k" * 50, "SEAL_KEY": "s" * 50, "DIGEST_PUBLISHERS": "/mnt/heads"}
    off = _settings(show=_SECURITY, DEBUG="false", **database, **key)
    assert off.returncode == 0, off.stderr
    assert off.stdout.split() == ["True", "True", "True", "31536000", "True"]
    on = _settings(show=_SECURITY, DEBUG="true", **database, **key)
    assert on.returncode == 0, on.stderr
    assert on.stdout.split() == ["False", "False", "False", "0", "True"]
    plain = _settings(
        show=_SECURITY,
        DEBUG="false",
        SECURE_SSL_REDIRECT="false",
        SECURE_HSTS_SECONDS="0",
        **database,
        **key,
    )
    assert plain.stdout.split() == ["True", "True", "False", "0", "True"]


def test_environment_overrides():
    run = _settings(
        DATABASE_URL="postgresql://u@db:5432/casino",
        CELERY_BROKER_URL="redis://r:6379/0",
        GAMING_DAY_CUTOFF_HOUR="4",
        TIME_ZONE="Europe/Prague",
        ALLOWED_HOSTS="a.example,b.example",
        DEBUG="false",
        SECRET_KEY="x" * 50,
        SEAL_KEY="s" * 50,
        DIGEST_PUBLISHERS="/mnt/heads,https://heads.example/casino",
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.split()[:5] == [
        "False",
        "django.db.backends.postgresql",
        "False",
        "4",
        "Europe/Prague",
    ]
    assert "a.example" in run.stdout and "b.example" in run.stdout


@pytest.mark.parametrize(
    ("env", "says"),
    [
        ({"DATABASE_URL": "postgresql://u@db:5432/casino"}, "SECRET_KEY is not set"),
        (
            {
                "DATABASE_URL": "postgresql://u@db:5432/casino",
                "SECRET_KEY": "change-me-to-50-random-characters",
            },
            "known example",
        ),
        ({"SECRET_KEY": "dev-insecure-blackjack-backoffice-change-me"}, "known example"),
        (
            {"DATABASE_URL": "postgresql://u@db:5432/casino", "SECRET_KEY": "short-key"},
            "shorter than 40",
        ),
        (
            {"DATABASE_URL": "postgresql://u@db:5432/casino", "SECRET_KEY": "x" * 50},
            "SEAL_KEY is not set",
        ),
        (
            {
                "DATABASE_URL": "postgresql://u@db:5432/casino",
                "SECRET_KEY": "x" * 50,
                "SEAL_KEY": "short",
            },
            "SEAL_KEY is shorter than 40",
        ),
        (
            {
                "DATABASE_URL": "postgresql://u@db:5432/casino",
                "SECRET_KEY": "x" * 50,
                "SEAL_KEY": "x" * 50,
            },
            "SEAL_KEY is the SECRET_KEY",
        ),
        (
            {
                "DATABASE_URL": "postgresql://u@db:5432/casino",
                "SECRET_KEY": "x" * 50,
                "SEAL_KEY_FILE": "/nonexistent/seal",
            },
            "SEAL_KEY_FILE=/nonexistent/seal: No such file or directory",
        ),
        ({"SEAL_KEY": "s" * 50, "SEAL_KEY_FILE": "/nonexistent/seal"}, "both set"),
        (
            {
                "DATABASE_URL": "postgresql://u@db:5432/casino",
                "SECRET_KEY": "x" * 50,
                "SEAL_KEY": "s" * 50,
            },
            "DIGEST_PUBLISHERS is not set",
        ),
        (
            {"DIGEST_PUBLISHERS": "ftp://heads.example/x"},
            "DIGEST_PUBLISHERS: 'ftp://heads.example/x': expected",
        ),
    ],
)
def test_a_deployment_refuses_a_missing_known_or_short_secret(env, says):
    """Fail closed: a deployment without its own long random keys, or without a place to
    publish its signed heads, does not start."""
    run = _settings(**env)
    assert run.returncode != 0
    assert says in run.stderr


def test_the_seal_key_and_its_fallbacks_come_from_files(tmp_path):
    """SEAL_KEY_FILE and SEAL_KEY_FALLBACK_FILES: each file's text (its line end dropped),
    the fallbacks given as keys first."""
    (tmp_path / "seal").write_text("n" * 50 + "\n")
    (tmp_path / "old").write_text("o" * 50)
    run = _settings(
        show=_SEAL,
        DATABASE_URL="postgresql://u@db:5432/casino",
        SECRET_KEY="x" * 50,
        DIGEST_PUBLISHERS="/mnt/heads",
        SEAL_KEY_FILE=str(tmp_path / "seal"),
        SEAL_KEY_FALLBACKS="p" * 50,
        SEAL_KEY_FALLBACK_FILES=str(tmp_path / "old"),
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["n" * 50, f"{'p' * 50},{'o' * 50}"]


def test_the_demo_turns_debug_on_for_itself_only():
    """manage.py demo runs in debug mode (it serves the admin with runserver); any other
    command does not."""
    code = (
        "import manage, os; manage.environment(['manage.py', '{}']); "
        "print(os.environ.get('DEBUG', 'unset'))"
    )
    env = {k: v for k, v in os.environ.items() if k != "DEBUG"}
    for command, debug in (("demo", "true"), ("migrate", "unset")):
        run = subprocess.run(
            [sys.executable, "-c", code.format(command)],
            check=True,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
        )
        assert run.stdout.strip() == debug


@pytest.mark.parametrize(
    ("name", "value", "says"),
    [
        ("GAMING_DAY_CUTOFF_HOUR", "25", "GAMING_DAY_CUTOFF_HOUR=25: expected 0..23"),
        ("GAMING_DAY_CUTOFF_HOUR", "six", "expected a whole number"),
        ("DEBUG", "maybe", "DEBUG='maybe'"),
    ],
)
def test_bad_values_are_refused_naming_the_variable(name, value, says):
    run = _settings(**{name: value})
    assert run.returncode != 0 and says in run.stderr


def test_gaming_day_cut_off():
    """Before the cut-off hour, local time belongs to the previous day's gaming day."""
    assert gaming_day(
        datetime(2026, 11, 29, 4, 0, tzinfo=UTC), cutoff_hour=6, tz="Europe/Rome"
    ) == date(2026, 11, 28)
    assert gaming_day(
        datetime(2026, 11, 29, 5, 0, tzinfo=UTC), cutoff_hour=6, tz="Europe/Rome"
    ) == date(2026, 11, 29)
    with pytest.raises(ValueError):
        gaming_day(datetime(2026, 11, 29, 5, 0), cutoff_hour=6, tz="Europe/Rome")
