from django.apps import AppConfig


class CasinoConfig(AppConfig):
    """The project itself, installed as an app for its management commands (demo) and to
    wire the apps that may not import each other: the ledger's view of the game."""

    name = "casino"
    verbose_name = "Casino"

    def ready(self) -> None:
        from ledger.game import register

        # register the tasks in every process, not only in a worker
        from . import package_tasks  # noqa: F401
        from .game import TablesGame

        register(TablesGame())
