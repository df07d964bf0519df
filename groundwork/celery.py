"""The Celery app. Without CELERY_BROKER_URL tasks run in-process (the embedded mode)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "groundwork.settings")

app = Celery("groundwork")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
