import os

from django.core.wsgi import get_wsgi_application

from audit.record.collector import freeze_startup

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
application = get_wsgi_application()
# a long-running web process: its start-up heap (Django, the apps, the models) frozen, so
# that full collections do not walk it on every request (audit.record.collector)
freeze_startup()
