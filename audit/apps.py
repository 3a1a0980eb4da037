from django.apps import AppConfig
from django.db.models.signals import post_migrate
from django.utils.translation import gettext_lazy as _


def _grant_to_app_role(sender: AppConfig, using: str = "default", **kwargs: object) -> None:
    """After a migration run as the owner role, grant the application role what it may
    do on the tables as they now are (audit.store.roles)."""
    from django.conf import settings
    from django.db import connections

    from audit.store.roles import grant_sql

    app_role = getattr(settings, "DATABASE_APP_ROLE", "")
    connection = connections[using]
    if not app_role or connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        for sql in grant_sql(app=app_role):
            cursor.execute(sql)


class AuditConfig(AppConfig):
    name = "audit"
    verbose_name = _("Audit: event store, integrity, findings")

    def ready(self) -> None:
        # register the tasks in every process, not only in a worker (where Celery's
        # autodiscovery imports them)
        from audit.access.authority_seal import connect as seal_authority
        from audit.feed.derived import register as register_derived
        from audit.feed.subscribers import register
        from audit.findings.workflow import FINDING_STATUS
        from audit.integrity.digests import SUBSCRIBER as MERKLE

        from . import tasks  # noqa: F401

        # the record's Merkle tree follows the feed like any read model
        register(MERKLE)
        # the findings' status, checked against its events by verify (audit.feed.derived)
        register_derived(FINDING_STATUS)
        # who a person is and what they may do, sealed whenever the application changes it
        seal_authority()
        # once per migrate run: after the last app's migrations (this app's signal only)
        post_migrate.connect(
            _grant_to_app_role, sender=self, dispatch_uid="audit.grant_to_app_role"
        )
