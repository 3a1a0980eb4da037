"""Typed reads of environment variables, each with an embedded development default."""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path
from typing import Any

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str) -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r}: expected one of true/false/1/0/yes/no/on/off")


def env_int(name: str, default: int, *, low: int, high: int) -> int:
    raw = os.environ.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r}: expected a whole number") from None
    if not low <= value <= high:
        raise ImproperlyConfigured(f"{name}={value}: expected {low}..{high}")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_json(name: str, default: Any) -> Any:
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        return json.loads(raw)
    except json.JSONDecodeError as error:
        raise ImproperlyConfigured(f"{name}: not JSON ({error.msg})") from None


def env_database(name: str, default: str, **options: Any) -> dict[str, Any]:
    """Django's ``DATABASES`` entry for the URL in ``name`` (dj-database-url's parse, with
    ``options``), ``default``'s when the variable is unset. Set but empty, or not a database
    URL, stops the process with one line naming the variable - never the URL itself, which
    may hold a password."""
    raw = os.environ.get(name)
    if raw is None:
        raw = default
    elif not raw.strip():
        raise ImproperlyConfigured(
            f"{name} is set but empty: unset it for the checkout's SQLite file, or set it to a "
            "database URL such as postgresql://user@127.0.0.1:5432/blackjack"
        )
    try:
        return dict(dj_database_url.parse(raw.strip(), **options))
    except dj_database_url.UnknownSchemeError:
        scheme, found, _ = raw.strip().partition("://")
        why = f"no database has the scheme {scheme!r}" if found else "it has no scheme"
    except ValueError:  # a URL whose parts cannot be read
        why = "it cannot be read (a password holding @, : or / must be percent-encoded)"
    raise ImproperlyConfigured(
        f"{name} is not a database URL: {why}; expected e.g. "
        "postgresql://user:password@127.0.0.1:5432/blackjack or sqlite:///path/to/db.sqlite3"
    )


def development_secret_key(path: Path) -> str:
    """A random secret key for a development checkout, made once and kept in ``path``
    (``var/``, ignored by git): never a key anyone else knows."""
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(50)
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process made it first
        return path.read_text().strip()
    with os.fdopen(descriptor, "w") as out:
        out.write(key)
    return key


def _secret_file(name: str, path: str) -> str:
    try:
        text = Path(path).read_text().strip()
    except OSError as error:
        raise ImproperlyConfigured(f"{name}={path}: {error.strerror or error}") from None
    if not text:
        raise ImproperlyConfigured(f"{name}={path}: the file is empty")
    return text


def seal_keys(
    development_path: Path, *, development: bool, secret_key: str
) -> tuple[str, list[str]]:
    """The store's seal key and its fallbacks (audit.store.seals), from ``SEAL_KEY`` or
    ``SEAL_KEY_FILE`` and ``SEAL_KEY_FALLBACKS`` (keys, comma-separated) with
    ``SEAL_KEY_FALLBACK_FILES`` (files, comma-separated). ``development`` (a checkout, or
    debug mode): a missing key is made once in ``development_path``. Otherwise it fails
    closed: no key, a key shorter than 40 characters, or the key that is ``secret_key``
    (the seal key is kept apart from Django's) stops the process, naming the variable."""
    key, path = env_str("SEAL_KEY", ""), env_str("SEAL_KEY_FILE", "")
    if key and path:
        raise ImproperlyConfigured("SEAL_KEY and SEAL_KEY_FILE are both set: set one of them")
    if path:
        key = _secret_file("SEAL_KEY_FILE", path)
    if not key and development:
        key = development_secret_key(development_path)
    if not key:
        raise ImproperlyConfigured(
            "SEAL_KEY is not set: a deployment (DATABASE_URL set, DEBUG off) seals every stored event with a key "
            "of its own, apart from SECRET_KEY - set SEAL_KEY_FILE to a file holding a long random value "
            "(e.g. python -c 'import secrets; print(secrets.token_urlsafe(50))'), or SEAL_KEY to the value"
        )
    if not development and len(key) < 40:
        raise ImproperlyConfigured(
            "SEAL_KEY is shorter than 40 characters: set a long random value of your own"
        )
    if key == secret_key:
        raise ImproperlyConfigured(
            "SEAL_KEY is the SECRET_KEY: the seal key must be a secret of its own"
        )
    fallbacks = env_list("SEAL_KEY_FALLBACKS", [])
    fallbacks += [
        _secret_file("SEAL_KEY_FALLBACK_FILES", name)
        for name in env_list("SEAL_KEY_FALLBACK_FILES", [])
    ]
    return key, fallbacks
