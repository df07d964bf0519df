"""The options of a local-checkpoint model (EvalModelKind.CHECKPOINT), as stored in EvalModel.options:

    {"path": "/abs/path/model.gguf or /abs/path/checkpoint-dir",
     "device": "auto" | "cpu" | "cuda",
     "generation": {"max_new_tokens": 48, "do_sample": false, "temperature": 0.7, "top_p": 0.9,
                    "top_k": 50, "repetition_penalty": 1.0},
     "knowledge_limit": 6,
     "cpu_threads": 1,
     "prompts": {"wow": "...", "duconv": "...", "plain": "...", "opening": "..."}}

Only `path` is required; the rest have the defaults below."""

from __future__ import annotations

from typing import Any

from collect.tasktypes.modelchat.prompts import PROMPT_FIELDS, template_problems

DEVICES = ("auto", "cpu", "cuda")
# No repetition penalty by default: transformers applies it to the prompt's tokens too, which keeps
# a model from using the words of the knowledge it was given.
DEFAULT_GENERATION: dict[str, Any] = {"max_new_tokens": 48, "do_sample": False}
# name → (type, smallest, largest)
GENERATION_LIMITS: dict[str, tuple[type, float, float]] = {
    "max_new_tokens": (int, 1, 512),
    "temperature": (float, 0.0, 5.0),
    "top_p": (float, 0.0, 1.0),
    "top_k": (int, 0, 1000),
    "repetition_penalty": (float, 1.0, 5.0),
}
DEFAULT_KNOWLEDGE_LIMIT = 6


def checkpoint_options_problems(*, options: Any) -> list[str]:
    """What is wrong with a checkpoint model's options, one sentence each; [] when they are usable."""
    if not isinstance(options, dict):
        return ["options must be a JSON object"]
    problems = []
    if not isinstance(options.get("path"), str) or not options["path"].strip():
        problems.append('"path" must name the checkpoint directory or GGUF file')
    if options.get("device", "auto") not in DEVICES:
        problems.append(f'"device" must be one of {", ".join(DEVICES)}')
    generation = options.get("generation", {})
    if not isinstance(generation, dict):
        problems.append('"generation" must be a JSON object')
        generation = {}
    for key, value in generation.items():
        if key == "do_sample":
            if not isinstance(value, bool):
                problems.append('"generation.do_sample" must be true or false')
            continue
        if key not in GENERATION_LIMITS:
            problems.append(f'"generation.{key}" is not a setting; the settings are do_sample, {", ".join(GENERATION_LIMITS)}')
            continue
        kind, low, high = GENERATION_LIMITS[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or (kind is int and not isinstance(value, int)):
            problems.append(f'"generation.{key}" must be {"an integer" if kind is int else "a number"}')
        elif not low <= value <= high:
            problems.append(f'"generation.{key}" must be between {low:g} and {high:g}')
    threads = options.get("cpu_threads")
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= 256):
        problems.append('"cpu_threads" must be an integer from 1 to 256 (or left out: torch\'s default)')
    limit = options.get("knowledge_limit", DEFAULT_KNOWLEDGE_LIMIT)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 0 <= limit <= 50:
        problems.append('"knowledge_limit" must be an integer from 0 to 50')
    prompts = options.get("prompts", {})
    if not isinstance(prompts, dict):
        problems.append(f'"prompts" must map some of {", ".join(PROMPT_FIELDS)} to template strings')
    else:
        for name, template in prompts.items():
            problems += [f"prompts.{name}: {p}" for p in template_problems(name, template)]
    return problems


def generation_settings(options: dict[str, Any]) -> dict[str, Any]:
    """Keyword arguments for `generate`: the defaults, overridden by the model's own."""
    settings = {**DEFAULT_GENERATION, **options.get("generation", {})}
    if not settings.get("do_sample"):
        for key in ("temperature", "top_p", "top_k"):  # meaningless without sampling; transformers warns
            settings.pop(key, None)
    return settings
