from django.apps import AppConfig


class LedgerConfig(AppConfig):
    name = "ledger"
    verbose_name = "Ledger: chips, cash, reconciliation"

    def ready(self) -> None:
        from audit.derived import register as register_derived
        from audit.subscribers import register

        from .feed import SUBSCRIBER
        from .fx import FX_RATES
        from .signoff_events import SIGN_OFF

        # the sign-off and exchange-rate rows, checked against their events by verify (audit.derived)
        register_derived(SIGN_OFF)
        register_derived(FX_RATES)

        # the read models and the reconciliation follow the global feed
        register(SUBSCRIBER)
