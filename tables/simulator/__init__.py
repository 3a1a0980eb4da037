"""The simulator: realistic gaming days of many tables as events, with faults planted on
demand and a manifest of what was planted where (docs/simulator.md).

Pure Python apart from :mod:`.store` (straight into the event store), which imports
Django; the command is ``manage.py simulate``.
"""
