"""Tasks for tests/test_celery_redis_restart.py. The worker that test starts imports this module
(`-I`); the test sends the tasks by name."""

from __future__ import annotations

import time

from celery import shared_task


# acks_late, as collect.tasks.messages_knowledge (the `default` queue's task): a task a worker is
# running is still unacknowledged on its channel when the broker goes away.
@shared_task(name="tests.celery_restart_tasks.nap", acks_late=True, ignore_result=True)
def nap(seconds: float) -> None:
    time.sleep(seconds)


@shared_task(name="tests.celery_restart_tasks.echo")
def echo(value: int) -> int:
    return value
