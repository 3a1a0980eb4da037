from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RegulatorConfig(AppConfig):
    """The regulator's feature: the package of gaming days (built on request or by
    ``export_package``), its REST API and Celery task, the archival of a day's events, and
    game recall. It stands above tables, ledger and audit, and below the project."""

    name = "regulator"
    verbose_name = _("Regulator")

    def ready(self) -> None:
        from tables.admin import round_links_register

        # register the tasks in every process, not only in a worker
        from . import tasks  # noqa: F401
        from .links import recall_links

        # a round's review links its recall (the tables' app knows nothing of it)
        round_links_register("regulator.recall", recall_links)
