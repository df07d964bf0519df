"""The options of an OpenAI-compatible model (EvalModel.options of kind `openai`), checked when it
is registered or saved:

    {"model": "HuggingFaceTB/SmolLM2-135M-Instruct",   # the served model's name (required)
     "api_key_env": "MY_ENDPOINT_KEY",                 # the environment variable holding the key
     "temperature": 0.7, "max_tokens": 60,
     "knowledge_sentences": 40,                        # at most this many knowledge lines in a prompt
     "prompts": {"wow": "...", "duconv": "...", "plain": "...", "opening": "..."}}

Only the environment variable's name is stored: the key itself is read from the environment of the
process that calls the model, and never written anywhere."""

from __future__ import annotations

import os
import re
from typing import Any
from urllib.parse import urlsplit

from collect.tasktypes.modelchat.prompts import PROMPT_FIELDS, template_problems

ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,99}$")
KNOWN = {"model", "api_key_env", "temperature", "max_tokens", "knowledge_sentences", "prompts"}
DEFAULT_MAX_TOKENS = 60
DEFAULT_KNOWLEDGE_SENTENCES = 40


def api_key_read(variable: str) -> str:
    """The key in the environment variable a registered model names ("" when it is not set). Read
    here, at call time, not in settings: the variable's name is data (each model names its own, set
    on the worker that calls it), so settings cannot know it (tests/test_configuration.py allows
    this module)."""
    return os.environ.get(variable, "")


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def base_url_problem(base_url: str) -> str | None:
    parts = urlsplit(base_url or "")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"the base URL must be http(s)://HOST[:PORT]/PATH, e.g. http://127.0.0.1:8000/v1, not {base_url!r}"
    if parts.query or parts.fragment:
        return f"the base URL takes no query or fragment: {base_url!r}"
    if base_url.rstrip("/").endswith("/chat/completions"):
        return "give the base URL (e.g. http://127.0.0.1:8000/v1), not the /chat/completions address"
    return None


def options_problems(*, base_url: str, options: Any) -> list[str]:
    """What is wrong with an OpenAI-compatible model's base URL and options (empty when fine)."""
    problems = [p for p in [base_url_problem(base_url)] if p]
    if not isinstance(options, dict):
        return [*problems, "options must be a JSON object"]
    unknown = set(options) - KNOWN
    if unknown:
        problems.append(f"unknown option(s) {', '.join(sorted(unknown))}; known: {', '.join(sorted(KNOWN))}")
    if not isinstance(options.get("model"), str) or not options["model"].strip():
        problems.append("'model' must name the served model, e.g. \"HuggingFaceTB/SmolLM2-135M-Instruct\"")
    env = options.get("api_key_env")
    if env is not None and (not isinstance(env, str) or not ENV_NAME.match(env)):
        problems.append(f"'api_key_env' must be an environment variable's name (letters, digits, _), not {env!r}")
    temperature = options.get("temperature")
    if temperature is not None and (not _number(temperature) or not 0 <= temperature <= 2):
        problems.append(f"'temperature' must be a number from 0 to 2, not {temperature!r}")
    for key, high in (("max_tokens", 4096), ("knowledge_sentences", 500)):
        value = options.get(key)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= high):
            problems.append(f"'{key}' must be a whole number from 1 to {high}, not {value!r}")
    prompts = options.get("prompts", {})
    if not isinstance(prompts, dict):
        problems.append("'prompts' must be an object of templates: " + ", ".join(PROMPT_FIELDS))
    else:
        for name, template in prompts.items():
            problems += [f"prompts.{name}: {p}" for p in template_problems(name, template)]
    return problems
