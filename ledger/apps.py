from django.apps import AppConfig


class LedgerConfig(AppConfig):
    name = "ledger"
    verbose_name = "Ledger: chips, cash, reconciliation"

    def ready(self) -> None:
        from audit.subscribers import register

        from .feed import SUBSCRIBER

        # the read models and the reconciliation follow the global feed
        register(SUBSCRIBER)
