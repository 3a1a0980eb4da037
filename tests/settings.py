"""Test settings: the project's settings, with database backends whose ``flush`` (run by
Django between transactional tests) may empty the append-only event table.

Only flush is changed: a raw UPDATE, DELETE or TRUNCATE in a test still hits the
triggers, which is what tests/audit/test_immutability.py proves.
"""

import os

# a key for the tests alone (a deployment's settings refuse to start without their own)
os.environ.setdefault("SECRET_KEY", "tests-only-" + "k" * 40)
# and of the store's seals, apart from it (audit.store.seals)
os.environ.setdefault("SEAL_KEY", "tests-only-seal-" + "s" * 40)
# where signed heads are published (a deployment must name one; set again below)
os.environ.setdefault("DIGEST_PUBLISHERS", "var/test-digests")

# commands speak the locale's language (audit.presenting.commands): the suite's, and every
# command it starts, in English unless a test asks for another with LANG
for _name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
    os.environ.pop(_name, None)
os.environ["LANG"] = "C.UTF-8"

from casino.settings import *
from casino.settings import BASE_DIR, DATABASES, STATIC_ROOT

_TEST_BACKENDS = {
    "django.db.backends.sqlite3": "tests.backends.sqlite",
    "django.db.backends.postgresql": "tests.backends.postgresql",
}
DATABASES["default"]["ENGINE"] = _TEST_BACKENDS[DATABASES["default"]["ENGINE"]]
DATABASES["default"]["CONN_MAX_AGE"] = 0
if DATABASES["default"]["ENGINE"] == "tests.backends.sqlite":
    # a file, not memory, so that a real Celery worker (another process) sees the test data
    (BASE_DIR / "var").mkdir(exist_ok=True)
    # one file per test process, so that test runs side by side do not share it
    DATABASES["default"]["TEST"] = {"NAME": str(BASE_DIR / "var" / f"test-{os.getpid()}.sqlite3")}
else:
    DATABASES["default"]["TEST"] = {"NAME": f"test_{DATABASES['default']['NAME']}_{os.getpid()}"}
DATABASES["default"].pop("CONN_HEALTH_CHECKS", None)

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
CELERY_TASK_ALWAYS_EAGER = True

# signed tree heads: a key and a publish folder of this test process's own
DIGEST_SIGNING_KEY = str(BASE_DIR / "var" / f"test-digest-key-{os.getpid()}.pem")
DIGEST_PUBLISHERS = [str(BASE_DIR / "var" / f"test-digests-{os.getpid()}")]
# and for every process a test starts with the project's settings (manage.py, a Celery
# worker): never the checkout's own key and heads, which the demo signs into var/
os.environ["DIGEST_SIGNING_KEY"] = DIGEST_SIGNING_KEY
os.environ["DIGEST_PUBLISHERS"] = ",".join(DIGEST_PUBLISHERS)

# the apps' static files as they are (a deployment's hashed manifest needs collectstatic)
STORAGES = {
    **STORAGES,
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
# and WhiteNoise serves them from the apps, as on a checkout (no collectstatic in the tests)
WHITENOISE_USE_FINDERS = True
# the test client and the live server speak plain HTTP, whatever database the run uses
SECURE_SSL_REDIRECT = False
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = False
SECURE_HSTS_SECONDS = 0

# WhiteNoise (the production middleware the tests run with) warns on every request when
# its folder is missing, and collectstatic never runs in the tests: an empty one will do
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
