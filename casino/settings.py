"""Settings for the blackjack back-office.

Every setting comes from an environment variable with an embedded development default,
so a fresh clone runs on SQLite with Celery eager and nothing configured. See
docs/settings.md for the full list.
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from .env import (
    development_secret_key,
    env_bool,
    env_database,
    env_int,
    env_json,
    env_list,
    env_str,
    seal_keys,
)

BASE_DIR = Path(__file__).resolve().parent.parent

# Off unless turned on: `manage.py demo` turns it on for itself (manage.py).
DEBUG = env_bool("DEBUG", False)
DEFAULT_SQLITE_URL = f"sqlite:///{BASE_DIR / 'db.sqlite3'}"
EMBEDDED = "DATABASE_URL" not in os.environ
# read first: a DATABASE_URL set but unusable is the first thing to say (lower case: not a setting)
default_database = env_database(
    "DATABASE_URL", DEFAULT_SQLITE_URL, conn_max_age=60, conn_health_checks=True
)
# Secret keys that are public: the old development default and the deploy example's.
KNOWN_SECRET_KEYS = frozenset(
    {"dev-insecure-blackjack-backoffice-change-me", "change-me-to-50-random-characters"}
)
SECRET_KEY = env_str("SECRET_KEY", "")
if not SECRET_KEY and (DEBUG or EMBEDDED):
    # a laptop: a random key made once for this checkout, never one the world knows
    SECRET_KEY = development_secret_key(BASE_DIR / "var" / "dev-secret-key")
if not SECRET_KEY:
    raise ImproperlyConfigured(
        "SECRET_KEY is not set: a deployment (DATABASE_URL set, DEBUG off) needs a long random "
        "SECRET_KEY of its own (e.g. python -c 'import secrets; print(secrets.token_urlsafe(50))')"
    )
if not DEBUG and (SECRET_KEY in KNOWN_SECRET_KEYS or len(SECRET_KEY) < 40):
    raise ImproperlyConfigured(
        "SECRET_KEY is a known example or shorter than 40 characters: set a long random value of your own"
    )
# Previous keys, while sessions made with them are still checked
SECRET_KEY_FALLBACKS = env_list("SECRET_KEY_FALLBACKS", [])
# The key of the store's seals (audit.store.seals): a secret of its own, apart from SECRET_KEY and
# the database's login, so that whoever reads the env file for either cannot seal a row.
# SEAL_KEY (the key) or SEAL_KEY_FILE (a file holding it); older keys, while the rows sealed
# with them are checked, in SEAL_KEY_FALLBACKS / SEAL_KEY_FALLBACK_FILES (rotation:
# docs/security.md). A checkout makes one in var/; a deployment refuses to start without it.
SEAL_KEY, SEAL_KEY_FALLBACKS = seal_keys(
    BASE_DIR / "var" / "dev-seal-key", development=DEBUG or EMBEDDED, secret_key=SECRET_KEY
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
    "drf_spectacular",
    "drf_spectacular_sidecar",
    # admin login throttling and lockout (below)
    "axes",
    # the Content-Security-Policy header (below)
    "csp",
    "casino",
    "audit",
    "tables",
    "ledger",
    "regulator",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # the Content-Security-Policy header on every answer, a refused request's too
    # (CONTENT_SECURITY_POLICY below)
    "csp.middleware.CSPMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # the browser's language (Accept-Language, or the chooser's cookie) ...
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # ... unless the person chose one; money and numbers written in it (casino.middleware)
    "casino.middleware.PersonLanguageMiddleware",
    # every read of /admin/ and /api/ by a person, after the view answered (audit.access.log)
    "audit.access.log.AccessLogMiddleware",
    # a NUL byte in the path or query: 400 before any view, logged by the access log above
    "casino.middleware.RefuseNulMiddleware",
    # a session whose person's authority does not hold its seal: 403, logged above
    # (audit.access.authority_seal; a token's is refused by its authentication)
    "audit.access.authentication.SealedSessionMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # last, as django-axes asks: answers a locked-out login (casino.lockout)
    "axes.middleware.AxesMiddleware",
]

# Admin logins: django-axes counts failures and locks out (its backend first, so that a
# locked-out login is refused before the password is even checked).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# After this many failed logins for one user name, or from one address, that name or
# address may not log in for ADMIN_LOCKOUT_MINUTES (each new failure starts it again);
# manage.py axes_reset (axes_reset_username NAME, axes_reset_ip ADDRESS) unlocks now.
AXES_FAILURE_LIMIT = env_int("ADMIN_LOGIN_FAILURES_MAX", 5, low=1, high=1000)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("ADMIN_LOCKOUT_MINUTES", 30, low=1, high=7 * 24 * 60))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_RESET_ON_SUCCESS = True
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = True
AXES_CLIENT_IP_CALLABLE = "audit.access.clients.client_address"
AXES_LOCKOUT_CALLABLE = "casino.lockout.lockout_response"
AXES_HTTP_RESPONSE_CODE = 429
# every failed login kept (who, when, from where), for compliance to read in the admin
AXES_ENABLE_ACCESS_FAILURE_LOG = True

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

DATABASES = {"default": default_database}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Readers never block the writer, and a writer waits for the lock instead of failing.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            "timeout": 20,
            "transaction_mode": "IMMEDIATE",
        }
    )
    DATABASES["default"]["CONN_MAX_AGE"] = 0

# PostgreSQL least privilege (audit.store.roles): the role the web, worker and beat processes
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

# The back-office speaks the languages of the houses it serves. A person's page is in
# the language chosen in the admin's header (casino.LanguagePreference), else the one
# the browser asks for, else English; money, numbers and dates follow it (Babel's CLDR
# data through audit.record.money, the date formats in casino/formats/).
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("it", "Italiano"), ("cs", "Čeština")]
LOCALE_PATHS = [BASE_DIR / "casino" / "locale", BASE_DIR / "tables" / "analytics" / "locale"]
FORMAT_MODULE_PATH = ["casino.formats"]
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
        # a deployment serves hashed, compressed files made by collectstatic; a checkout
        # serves them from the apps as they are
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG or EMBEDDED
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}
# without collectstatic on a checkout, WhiteNoise serves the apps' files directly
WHITENOISE_USE_FINDERS = EMBEDDED

# Sessions: a shift long by default, and gone when the browser closes.
SESSION_COOKIE_AGE = env_int("SESSION_COOKIE_AGE", 8 * 3600, low=300, high=30 * 86400)
SESSION_EXPIRE_AT_BROWSER_CLOSE = env_bool("SESSION_EXPIRE_AT_BROWSER_CLOSE", True)
SESSION_COOKIE_HTTPONLY = True
# Trust a proxy's X-Forwarded-Proto and X-Forwarded-For (the access log's address) only
# when told that one sets them, and strips what a client sent.
TRUST_PROXY_HEADERS = env_bool("TRUST_PROXY_HEADERS", False)
if TRUST_PROXY_HEADERS:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

if not DEBUG:
    # production: static files from the app (runserver serves them in development)
    MIDDLEWARE.insert(1, "whitenoise.middleware.WhiteNoiseMiddleware")
    # With DEBUG off the back-office is served as production is, whatever the database:
    # cookies only over HTTPS, plain HTTP redirected, a year of HTTPS only once a browser
    # has seen it. A laptop serving plain HTTP runs with DEBUG on (manage.py demo does)
    # or turns each off by name.
    SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = env_bool("SECURE_COOKIES", True)
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31_536_000, low=0, high=63_072_000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
    CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [f"https://{h}" for h in ALLOWED_HOSTS])

# Content-Security-Policy on every response (django-csp): scripts, styles, images,
# fonts and the floor's polls from this server only; no plugins, no framing, forms
# posted here only. Inline style stays allowed: the admin's widgets and this project's
# pages set style attributes, which a nonce cannot cover, and a style cannot run code;
# inline script does not (the admin and these pages load every script from a file; the
# API docs page is Swagger's split view, its setup a script of its own).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    },
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # hashed tokens with an expiry; failed guesses throttled per address (audit.access.tokens)
        "audit.access.authentication.HashedTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "casino.api_errors.exception_handler",
    # JSON for machines, no browsable HTML API (the admin is the screen for people); a
    # client accepting none of a view's formats gets its first (audit.api.negotiation)
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "audit.api.negotiation.FirstRendererUnlessAccepted",
    "DEFAULT_PARSER_CLASSES": ["audit.api.parsers.BoundedJSONParser"],
    # every authenticated caller, device or person: API_REQUESTS_PER_MINUTE
    "DEFAULT_THROTTLE_CLASSES": ["audit.access.authentication.CallerRateThrottle"],
}

# The most requests one caller (a device or a person) may make to the API in a minute;
# more get 429 with Retry-After.
API_REQUESTS_PER_MINUTE = env_int("API_REQUESTS_PER_MINUTE", 1200, low=1, high=1_000_000)
# API tokens (audit.access.tokens): stored as SHA-256 only, valid this many days from issue.
API_TOKEN_DAYS = env_int("API_TOKEN_DAYS", 90, low=1, high=3650)
# Token guessing: after this many failed token authentications from one address within
# the window, that address gets 429 with Retry-After until the oldest leaves the window.
TOKEN_FAILURES_MAX = env_int("TOKEN_FAILURES_MAX", 10, low=1, high=10_000)
TOKEN_FAILURES_WINDOW_SECONDS = env_int("TOKEN_FAILURES_WINDOW_SECONDS", 600, low=1, high=86_400)

# The throttles' counts live in the cache: one per process without CACHE_URL (each web
# process then counts on its own); shared by every process with Redis.
CACHE_URL = env_str("CACHE_URL", "")
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": CACHE_URL}
    if CACHE_URL
    else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Blackjack back-office API",
    "DESCRIPTION": "Event store ingestion and feeds, rounds, findings. See docs/api.md.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # every operation documents the 400 and 404 a request may meet before its view (audit.api.common)
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "audit.api.common.document_refusals",
    ],
    # the schema for people and devices with a login only; the docs page's assets installed
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
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
# A table a read model fails to follow this many runs in a row (an event it cannot apply)
# is set aside, with a critical finding, so that every other table goes on (audit.feed.subscribers)
SET_ASIDE_AFTER_FAILURES = env_int("SET_ASIDE_AFTER_FAILURES", 3, low=1, high=1000)
# Findings per page of GET /api/findings and rounds per page of GET /api/rounds.
BACK_OFFICE_PAGE_MAX = env_int("BACK_OFFICE_PAGE_MAX", 500, low=1, high=10_000)

# The floor (tables.floor): a table whose gaming day is open and whose stream has recorded
# nothing for this long raises an alert; the periodic check (celery beat) runs this often.
FLOOR_SILENT_AFTER_SECONDS = env_int("FLOOR_SILENT_AFTER_SECONDS", 600, low=30, high=86400)
FLOOR_CHECK_EVERY_SECONDS = env_int("FLOOR_CHECK_EVERY_SECONDS", 30, low=5, high=86400)

# The access log (audit.access.log): rows older than this many days may be purged by the
# owner role (manage.py access_log --purge); at least 90 (AGCO Registrar's Standards 6.1).
ACCESS_LOG_RETENTION_DAYS = env_int("ACCESS_LOG_RETENTION_DAYS", 400, low=90, high=36_500)

# How long events and the regulator's packages are kept (N.J.A.C. 13:69O-1.8: play can be
# recreated for 10 years): nothing deletes events, this states the duty and every package
# carries it in its manifest.
EVENT_RETENTION_YEARS = env_int("EVENT_RETENTION_YEARS", 10, low=1, high=100)
# PostgreSQL: the event table's partitions (one a gaming day) made this many days ahead
# of today, by celery beat (audit.tasks.make_event_partitions) and migrate
EVENT_PARTITIONS_AHEAD = env_int("EVENT_PARTITIONS_AHEAD", 7, low=1, high=366)
# Where the packages requested over REST or from the admin are built (regulator.package_requests),
# each kept EVENT_RETENTION_YEARS; served only to the regulator group, compliance and superusers.
PACKAGE_DIR = env_str("PACKAGE_DIR", str(BASE_DIR / "var" / "packages"))

# Signed tree heads of the record (audit.integrity.digests): the Ed25519 private key (PEM, outside
# the database; in development a missing one is made), the public keys heads may also be
# signed with (rotated-out keys, comma-separated paths).
DIGEST_SIGNING_KEY = env_str("DIGEST_SIGNING_KEY", str(BASE_DIR / "var" / "digest-signing-key.pem"))
DIGEST_TRUSTED_KEYS = env_list("DIGEST_TRUSTED_KEYS", [])
# Where every signed head is published besides the database, out of its owner's reach
# (audit.integrity.publishers): comma-separated folders (another mount), http(s):// endpoints and
# s3://bucket/prefix buckets with object lock. A deployment must name at least one; a
# checkout publishes to var/digests.
DIGEST_PUBLISHERS = env_list(
    "DIGEST_PUBLISHERS", [str(BASE_DIR / "var" / "digests")] if DEBUG or EMBEDDED else []
)
if not DIGEST_PUBLISHERS:
    raise ImproperlyConfigured(
        "DIGEST_PUBLISHERS is not set: a deployment publishes its signed heads where the database's owner cannot "
        "write - a folder on another mount, an https:// endpoint or an s3://bucket/prefix with object lock"
    )
for _publisher in DIGEST_PUBLISHERS:
    if "://" in _publisher and not _publisher.startswith(
        ("file://", "http://", "https://", "s3://")
    ):
        raise ImproperlyConfigured(
            f"DIGEST_PUBLISHERS: {_publisher!r}: expected a folder, file://, http(s):// or s3://"
        )
DIGEST_HTTP_TOKEN = env_str("DIGEST_HTTP_TOKEN", "")  # an HTTP publisher's bearer token
DIGEST_S3_ENDPOINT_URL = env_str(
    "DIGEST_S3_ENDPOINT_URL", ""
)  # an S3-compatible service other than AWS
# how long an S3 publisher's objects are locked (COMPLIANCE): the events' own retention
DIGEST_S3_RETAIN_DAYS = env_int(
    "DIGEST_S3_RETAIN_DAYS", 366 * EVENT_RETENTION_YEARS, low=1, high=366 * 100
)
# the signer (manage.py digest --follow) signs a head at most this often, and within this
# long of a commit while tables record (docs/security.md: the window a head leaves open)
DIGEST_INTERVAL_MS = env_int("DIGEST_INTERVAL_MS", 500, low=50, high=3_600_000)
# of those, one this often is also stored in the record (a digest.signed event) and
# archived at the publishers; the others are each publisher's latest until the next
DIGEST_EVERY_SECONDS = env_int("DIGEST_EVERY_SECONDS", 300, low=10, high=7 * 86400)

# The ledger (docs/accounting.md). N.J.A.C. 13:69D-1.21(e): per currency, in its units, an
# unexplained variance above the first is a finding and from the second its message says it
# goes to the regulator: EUR=25.00/100.00;JPY=3000/12000. A currency not named: 25 and 100
# of its major unit.
LEDGER_VARIANCE_THRESHOLDS = env_str("LEDGER_VARIANCE_THRESHOLDS", "")
# The casino's house currency (ISO 4217): reports consolidate the tables' figures in it at
# each gaming day's rates (fx.rate_set), and a rate is set for it by default.
LEDGER_HOUSE_CURRENCY = env_str("LEDGER_HOUSE_CURRENCY", "EUR")
for _gone in ("LEDGER_VARIANCE_REPORT_MINOR", "LEDGER_VARIANCE_REGULATOR_MINOR"):
    # one number of minor units for every currency (2500: EUR 25.00 but JPY 2,500): refused
    # rather than ignored, so that a deployment that set it is told
    if _gone in os.environ:
        raise ImproperlyConfigured(
            f"{_gone} is no longer read: the thresholds are set per currency, in its units - "
            "LEDGER_VARIANCE_THRESHOLDS=EUR=25.00/100.00"
        )
# The shifts of the gaming day (Nevada MICS note 3): 24h, 8h (any whole number of hours
# dividing 24) from GAMING_DAY_CUTOFF_HOUR, or start times, each optionally named
# (day=06:00,swing=14:00,grave=22:00), in TIME_ZONE.
LEDGER_SHIFTS = env_str("LEDGER_SHIFTS", "24h")
# The pits tables stand in, by table-code pattern: PIT-A=BJ-0*,BJ-10;PIT-B=BJ-1* (the admin
# may put a table in another pit; that choice then stays).
LEDGER_PITS = env_str("LEDGER_PITS", "")
# The games (rule-set names or shell patterns, comma-separated) whose tables have no chip
# tray and no drop box by design: the live game of seed 000, whose players are remote. Their
# table-days have the state "no drop box" and never enter a hold ratio; every other game's
# day lacking an opener, a closer or a drop is incomplete.
LEDGER_NO_DROP_BOX = env_list("LEDGER_NO_DROP_BOX", ["it-live"])


def _check_ledger() -> None:
    from audit.record.money import minor_unit_digits
    from audit.record.shifts import ShiftPlan
    from ledger.config import parse_pits, parse_thresholds

    try:
        ShiftPlan.parse(LEDGER_SHIFTS, day_start=f"{GAMING_DAY_CUTOFF_HOUR:02d}:00", zone=TIME_ZONE)
    except ValueError as error:
        raise ImproperlyConfigured(f"LEDGER_SHIFTS={LEDGER_SHIFTS!r}: {error}") from None
    try:
        parse_pits(LEDGER_PITS)
    except ValueError as error:
        raise ImproperlyConfigured(f"LEDGER_PITS={LEDGER_PITS!r}: {error}") from None
    try:
        parse_thresholds(LEDGER_VARIANCE_THRESHOLDS)
    except ValueError as error:
        raise ImproperlyConfigured(
            f"LEDGER_VARIANCE_THRESHOLDS={LEDGER_VARIANCE_THRESHOLDS!r}: {error}"
        ) from None
    try:
        minor_unit_digits(LEDGER_HOUSE_CURRENCY)
    except ValueError as error:
        raise ImproperlyConfigured(
            f"LEDGER_HOUSE_CURRENCY={LEDGER_HOUSE_CURRENCY!r}: {error}"
        ) from None


_check_ledger()

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
    # a signed tree head of the record, when it grew, stored in the record: the backstop of
    # the signer process (manage.py digest --follow, within DIGEST_INTERVAL_MS of a commit,
    # which stores one this often too)
    "sign-record-digest": {
        "task": "audit.tasks.sign_digest",
        "schedule": DIGEST_EVERY_SECONDS,
    },
    # PostgreSQL: the event table's partitions for today and EVENT_PARTITIONS_AHEAD days
    "make-event-partitions": {
        "task": "audit.tasks.make_event_partitions",
        "schedule": env_int("EVENT_PARTITIONS_EVERY_SECONDS", 3600, low=60, high=86400),
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
    # django-axes announces itself at every start (every command): not news; its
    # failed logins and lockouts (axes.handlers) are still logged
    "loggers": {"axes.apps": {"level": "WARNING"}},
}
