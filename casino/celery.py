"""The Celery app. Eager (in-process) unless CELERY_BROKER_URL names a broker."""

import os

from celery import Celery
from celery.signals import worker_init, worker_process_init

from audit.record.collector import freeze_startup

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")

app = Celery("casino")
app.config_from_object("django.conf:settings", namespace="CELERY")
# one message reserved per worker process: with the late acknowledgement of the replay
# and catch-up tasks, a worker that dies gives back only the task it was running, and a
# day's tables spread over the workers instead of queueing behind the first
app.conf.worker_prefetch_multiplier = 1
# every thread's app, not only this one's: the apps below casino find it through
# celery.current_app (they do not import casino), and a thread of its own (a threaded
# server's request, a test's second connection) would otherwise get Celery's unconfigured
# fallback app
app.set_default()
# the apps' tasks.py modules; each app also imports its own in AppConfig.ready(), so a
# process that is not a worker (manage.py replay_day with a broker) knows them too
app.autodiscover_tasks()


@worker_init.connect
def _freeze_main(**_: object) -> None:
    """The worker's main process, started (Django set up by Celery's fixup, connected
    before this): its heap frozen (audit.record.collector) before the pool forks, so the
    children share it untouched and their full collections skip it."""
    freeze_startup()


@worker_process_init.connect
def _freeze_child(**_: object) -> None:
    """A pool process, started: what it made of its own frozen too (its collection walks
    only what is not frozen yet)."""
    freeze_startup()
