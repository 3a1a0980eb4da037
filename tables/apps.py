from django.apps import AppConfig


class TablesConfig(AppConfig):
    name = "tables"
    verbose_name = "Tables: rule sets, shoes, rounds"

    def ready(self) -> None:
        from audit.subscribers import register

        # register the tasks in every process, not only in a worker (where Celery's
        # autodiscovery imports them): manage.py replay_day sends them by name
        from . import tasks  # noqa: F401
        from .feed import SUBSCRIBER

        # the read models follow the global feed
        register(SUBSCRIBER)
