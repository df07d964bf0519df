"""Where a model room's turns run: a local checkpoint's on the `local_models` queue (workers that
hold the weights, on the GPU where there is one), every other model's on `models`. A checkpoint
starts loading as soon as a room is seated with it, so the load (half a minute on a CPU) overlaps
the evaluator's topic choice instead of their first turn."""

from __future__ import annotations

import threading
from typing import Any

from django.conf import settings
from django.db import transaction

from collect.tasktypes.modelchat.models import EvalModel, EvalModelKind, ModelChat, ModelChatArm

LOCAL_QUEUE = "local_models"
MODELS_QUEUE = "models"


def room_model_queue(*, room_id: Any) -> str | None:
    """The queue of this room's model turns; None when it is not a model room."""
    kind = ModelChat.objects.filter(room_id=room_id, arm=ModelChatArm.MODEL).values_list("model__kind", flat=True).first()
    if kind is None:
        return None
    return LOCAL_QUEUE if kind == EvalModelKind.CHECKPOINT else MODELS_QUEUE


def checkpoint_warm_soon(*, model: EvalModel) -> None:
    """After the transaction commits, load `model` where its turns will run (a no-op for other kinds)."""
    if model.kind != EvalModelKind.CHECKPOINT:
        return
    options = dict(model.options)
    transaction.on_commit(lambda: _warm(options))


def _warm(options: dict[str, Any]) -> None:
    if settings.CELERY_TASK_ALWAYS_EAGER:
        from collect.tasktypes.modelchat.checkpoints import checkpoint_warm

        # In the chat process: a thread, never the event loop or the request.
        threading.Thread(target=checkpoint_warm, kwargs={"options": options}, name="checkpoint-warm", daemon=True).start()
        return
    from collect.tasktypes.modelchat.local_tasks import checkpoint_warm_task

    checkpoint_warm_task.apply_async(kwargs={"options": options}, queue=LOCAL_QUEUE)
