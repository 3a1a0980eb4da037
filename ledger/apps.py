from datetime import date
from typing import Any

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LedgerConfig(AppConfig):
    name = "ledger"
    verbose_name = _("Ledger: chips, cash, reconciliation")

    def ready(self) -> None:
        from audit.feed.derived import register as register_derived
        from audit.feed.subscribers import register, table_day_replayed

        from .feed import SUBSCRIBER
        from .fx import FX_RATES
        from .signoff_events import SIGN_OFF

        # the sign-off and exchange-rate rows, checked against their events by verify (audit.feed.derived)
        register_derived(SIGN_OFF)
        register_derived(FX_RATES)

        # the read models and the reconciliation follow the global feed
        register(SUBSCRIBER)
        # the days that found the tables' replay behind take it when the tables announce it
        table_day_replayed.connect(_replayed, dispatch_uid="ledger.reconcile_replayed")


def _replayed(
    sender: object, *, stream: str, gaming_day: date, version: int, **kwargs: Any
) -> None:
    from .reconciliation import reconcile_replayed

    reconcile_replayed(table=stream, version=version)
