"""The Celery app. Without CELERY_BROKER_URL tasks run in-process (the embedded mode)."""

import os
from typing import Any

from celery import Celery
from celery.signals import setup_logging, task_postrun, task_prerun, worker_process_init
from django.db import close_old_connections

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "groundwork.settings")

app = Celery("groundwork")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@setup_logging.connect
def _logging(**_: object) -> None:
    # With no receiver here, Celery replaces the root logger's handlers with its own, which neither
    # redact secrets nor write JSON: the workers log through the settings' LOGGING instead.
    from logging.config import dictConfig

    from django.conf import settings

    dictConfig(settings.LOGGING)


@worker_process_init.connect
def _settle(**_: object) -> None:
    # Each pool process, once forked with what the worker loaded (groundwork.gc_tuning).
    from groundwork import gc_tuning

    gc_tuning.settle()


@task_prerun.connect
@task_postrun.connect
def _connections(sender: Any = None, **_: object) -> None:
    # Around each task a worker runs, as around each request: a connection is closed if an error
    # left it unusable or it is older than CONN_MAX_AGE, else reused (CELERY_DB_REUSE_MAX in
    # settings). Not around a task run in the caller's process (eager), which may be inside the
    # caller's transaction.
    if sender is not None and getattr(sender.request, "is_eager", False):
        return
    close_old_connections()
