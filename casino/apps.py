from django.apps import AppConfig


class CasinoConfig(AppConfig):
    """The project itself, installed as an app for its management commands (demo) and to
    wire the apps that may not import each other: the ledger's view of the game."""

    name = "casino"
    verbose_name = "Casino"

    def ready(self) -> None:
        from ledger.game import register

        from .game import TablesGame

        register(TablesGame())
