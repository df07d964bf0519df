"""The Celery app. Without CELERY_BROKER_URL tasks run in-process (the embedded mode)."""

import os

from celery import Celery
from celery.signals import worker_process_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "groundwork.settings")

app = Celery("groundwork")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_process_init.connect
def _settle(**_: object) -> None:
    # Each pool process, once forked with what the worker loaded (groundwork.gc_tuning).
    from groundwork import gc_tuning

    gc_tuning.settle()
