from django.apps import AppConfig


class AuditConfig(AppConfig):
    name = "audit"
    verbose_name = "Audit: event store, integrity, findings"

    def ready(self) -> None:
        # register the tasks in every process, not only in a worker (where Celery's
        # autodiscovery imports them)
        from . import tasks  # noqa: F401
