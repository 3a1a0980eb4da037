from django.apps import AppConfig


class CasinoConfig(AppConfig):
    """The project itself, installed as an app only for its management commands (demo)."""

    name = "casino"
    verbose_name = "Casino"
