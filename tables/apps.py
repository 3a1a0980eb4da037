from django.apps import AppConfig


class TablesConfig(AppConfig):
    name = "tables"
    verbose_name = "Tables: rule sets, shoes, rounds"

    def ready(self) -> None:
        # register the tasks in every process, not only in a worker (where Celery's
        # autodiscovery imports them): manage.py replay_day sends them by name
        from . import tasks  # noqa: F401
