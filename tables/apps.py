from django.apps import AppConfig


class TablesConfig(AppConfig):
    name = "tables"
    verbose_name = "Tables: rule sets, shoes, rounds"

    def ready(self) -> None:
        from audit.feed.derived import register as register_derived
        from audit.feed.subscribers import register
        from audit.findings.workflow import finding_resolved_register

        # register the tasks in every process, not only in a worker (where Celery's
        # autodiscovery imports them): manage.py replay_day sends them by name
        from . import tasks  # noqa: F401
        from .feed import SUBSCRIBER
        from .floor import ALERT_ACKNOWLEDGEMENT, alerts_acknowledge_of_finding

        # the alerts' acknowledgements, checked against their events by verify (audit.feed.derived)
        register_derived(ALERT_ACKNOWLEDGEMENT)
        # resolving a finding acknowledges its alert, in the same trail
        finding_resolved_register(alerts_acknowledge_of_finding)

        # the read models follow the global feed
        register(SUBSCRIBER)
        # a failed verification of the record (audit's periodic task) is an alert on the floor
        from celery.signals import task_success

        task_success.connect(_verify_done, dispatch_uid="tables.floor.verify_done")
        # the findings' screens show amounts in each table's currency, and link a round's review
        from audit.admin import currencies_register, round_review_register

        from .admin import round_review_url

        currencies_register(_currencies)
        round_review_register(round_review_url)


def _currencies(tables: list[str]) -> dict[str, str]:
    from .models import Table

    return {
        stream: currency
        for stream, currency in Table.objects.filter(stream__in=tables).values_list(
            "stream", "currency"
        )
        if currency
    }


def _verify_done(sender: object = None, result: object = None, **kwargs: object) -> None:
    """After ``audit.tasks.verify_chains`` (on the worker, or eagerly): its problems, if
    any, become the floor's alert. Audit knows nothing of the floor; the task's result is
    the meeting point."""
    if getattr(sender, "name", None) != "audit.tasks.verify_chains" or not isinstance(result, dict):
        return
    problems = result.get("problems") or []
    if problems:
        from .floor import alert_verify_failed

        alert_verify_failed(problems=[str(p) for p in problems])
