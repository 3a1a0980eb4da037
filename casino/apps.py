from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CasinoConfig(AppConfig):
    """The project itself, installed as an app for its management commands (demo) and to
    wire the apps that may not import each other: the ledger's view of the game, the
    floor's link to the API's docs, the reconciliation's link to a table-day's rounds, the
    ledger's figures of a table-day on the tables' pages."""

    name = "casino"
    verbose_name = _("Casino: packages for the regulator")

    def ready(self) -> None:
        from django.urls import reverse

        from ledger.admin import rounds_link_register
        from ledger.game import register
        from tables.accounts import accounts_register
        from tables.admin import rounds_of_day_url
        from tables.floor_views import floor_link_register

        from .accounts import LedgerAccounts
        from .game import TablesGame

        register(TablesGame())
        floor_link_register("api_docs", lambda: reverse("api-docs"))
        rounds_link_register(rounds_of_day_url)
        accounts_register(LedgerAccounts())
