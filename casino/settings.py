"""Settings for the blackjack back-office.

Every setting comes from an environment variable with an embedded development default,
so a fresh clone runs on SQLite with Celery eager and nothing configured. See
docs/settings.md for the full list.
"""
from __future__ import annotations

from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from .env import env_bool, env_int, env_json, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent

DEV_SECRET_KEY = "dev-insecure-blackjack-backoffice-change-me"
DEBUG = env_bool("DEBUG", True)
SECRET_KEY = env_str("SECRET_KEY", DEV_SECRET_KEY)
if not DEBUG and SECRET_KEY == DEV_SECRET_KEY:
    raise ImproperlyConfigured(
        "DEBUG is off (production mode) but SECRET_KEY is the development default: "
        "set SECRET_KEY to a long random value"
    )
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver"])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "casino",
    "audit",
    "tables",
    "ledger",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # every read of /admin/ and /api/ by a person, after the view answered (audit.access)
    "audit.access.AccessLogMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "casino.urls"
WSGI_APPLICATION = "casino.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "casino" / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DEFAULT_SQLITE_URL = f"sqlite:///{BASE_DIR / 'db.sqlite3'}"
DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", DEFAULT_SQLITE_URL), conn_max_age=60, conn_health_checks=True
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Readers never block the writer, and a writer waits for the lock instead of failing.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", "timeout": 20,
         "transaction_mode": "IMMEDIATE"}
    )
    DATABASES["default"]["CONN_MAX_AGE"] = 0

# PostgreSQL least privilege (audit.roles): the role the web, worker and beat processes
# connect as. Set it where migrations run (as the owner role) so each migration ends by
# granting this role what it may do; blank on SQLite and in development.
DATABASE_APP_ROLE = env_str("DATABASE_APP_ROLE", "")

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = env_str("TIME_ZONE", "Europe/Rome")
USE_I18N = True
USE_TZ = True

# The gaming day runs from this local hour to the same hour the next day: an event at
# 03:00 with a cut-off of 6 belongs to the previous calendar day's gaming day.
GAMING_DAY_CUTOFF_HOUR = env_int("GAMING_DAY_CUTOFF_HOUR", 6, low=0, high=23)

STATIC_URL = "static/"
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(BASE_DIR / "var" / "static")))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

if not DEBUG:
    # production: static files from the app (runserver serves them in development)
    MIDDLEWARE.insert(1, "whitenoise.middleware.WhiteNoiseMiddleware")
    # cookies only over HTTPS; behind a proxy that sets X-Forwarded-Proto
    SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 3600, low=0, high=63_072_000)
    CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [f"https://{h}" for h in ALLOWED_HOSTS])

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "casino.api_errors.exception_handler",
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Blackjack back-office API",
    "DESCRIPTION": "Event store ingestion and feeds, rounds, findings. See docs/api.md.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "ENUM_NAME_OVERRIDES": {
        "RoundStatusEnum": "tables.models.Round.Status",
        "FindingStatusEnum": "audit.models.Finding.Status",
        "FindingSeverityEnum": "audit.models.Finding.Severity",
    },
}

# The largest batch one append may carry; a larger one is refused with HTTP 413.
EVENT_BATCH_MAX = env_int("EVENT_BATCH_MAX", 1000, low=1, high=100_000)
# The largest page of the global feed and of a stream read.
EVENT_PAGE_MAX = env_int("EVENT_PAGE_MAX", 1000, low=1, high=100_000)
DATA_UPLOAD_MAX_MEMORY_SIZE = 32 * 1024 * 1024
# After an append or an ingest commits, the feed's subscribers (the read models and
# findings) catch up (a Celery task, eager without a broker). Off: nothing is sent after
# an append; the periodic catch-up or manage.py catch_up brings them up.
PROJECT_ON_APPEND = env_bool("PROJECT_ON_APPEND", True)
# Findings per page of GET /api/findings and rounds per page of GET /api/rounds.
BACK_OFFICE_PAGE_MAX = env_int("BACK_OFFICE_PAGE_MAX", 500, low=1, high=10_000)

# The floor (tables.floor): a table whose gaming day is open and whose stream has recorded
# nothing for this long raises an alert; the periodic check (celery beat) runs this often.
FLOOR_SILENT_AFTER_SECONDS = env_int("FLOOR_SILENT_AFTER_SECONDS", 600, low=30, high=86400)
FLOOR_CHECK_EVERY_SECONDS = env_int("FLOOR_CHECK_EVERY_SECONDS", 30, low=5, high=86400)

# The access log (audit.access): rows older than this many days may be purged by the
# owner role (manage.py access_log --purge); at least 90 (AGCO Registrar's Standards 6.1).
ACCESS_LOG_RETENTION_DAYS = env_int("ACCESS_LOG_RETENTION_DAYS", 400, low=90, high=36_500)
# Take the client's address from X-Forwarded-For (only behind a proxy that sets it).
TRUST_X_FORWARDED_FOR = env_bool("TRUST_X_FORWARDED_FOR", False)

# Celery: with no broker configured, tasks run eagerly in-process.
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "")
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND", "") or None
# JSON, e.g. {"data_folder_in": ...} for kombu's filesystem transport; {} for Redis/AMQP
CELERY_BROKER_TRANSPORT_OPTIONS = env_json("CELERY_BROKER_TRANSPORT_OPTIONS", {})
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
# the queue tasks go to unless sent to another (workers serve it unless told -Q)
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_TASK_DEFAULT_QUEUE", "celery")
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TIMEZONE = TIME_ZONE
CELERY_BEAT_SCHEDULE = {
    "verify-event-chains": {
        "task": "audit.tasks.verify_chains",
        "schedule": env_int("VERIFY_EVERY_SECONDS", 3600, low=60, high=7 * 86400),
    },
    "seal-access-log": {
        "task": "audit.tasks.seal_access_log",
        "schedule": env_int("ACCESS_SEAL_EVERY_SECONDS", 300, low=10, high=86400),
    },
    # every subscriber of the feed, from its own position: what a failure, a restart or
    # PROJECT_ON_APPEND=false left behind
    # the floor's alerts that appends do not bring: silent tables, findings missed
    "floor-check": {
        "task": "tables.tasks.floor_check",
        "schedule": FLOOR_CHECK_EVERY_SECONDS,
    },
    "catch-up-subscribers": {
        "task": "audit.tasks.catch_up",
        "schedule": env_int("CATCH_UP_EVERY_SECONDS", 60, low=5, high=86400),
    },
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}
