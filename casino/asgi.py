import os

from django.core.asgi import get_asgi_application

from audit.record.collector import freeze_startup

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
application = get_asgi_application()
# a long-running web process: its start-up heap frozen (audit.record.collector)
freeze_startup()
