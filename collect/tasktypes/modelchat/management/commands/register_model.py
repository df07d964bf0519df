"""`manage.py register_model NAME (--python DOTTED.PATH | --url URL | --openai BASE_URL --model MODEL
[--api-key-env VAR --temperature T --max-tokens N --no-check] | --transformers PATH_OR_GGUF
[checkpoint_register.py's options]) [--timeout S --token-timeout S --retries N
--concurrency N --options JSON]`: register (or update) a model for human evaluation.
`register_model --builtins` registers the built-in bots."""

from __future__ import annotations

import json
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from collect.tasktypes.modelchat.bots import builtin_models_ensure
from collect.tasktypes.modelchat.checkpoint_register import (
    CHECKPOINT_CONCURRENCY,
    CHECKPOINT_RETRIES,
    CHECKPOINT_TIMEOUT_S,
    checkpoint_arguments,
    checkpoint_options_from,
)
from collect.tasktypes.modelchat.models import EvalModel, EvalModelKind

OPENAI_ONLY = ("model", "api_key_env", "temperature", "max_tokens")


class Command(BaseCommand):
    help = "Register a dialogue model (a Python class, an HTTP or an OpenAI-compatible endpoint) for model-chat campaigns."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", nargs="?", help="the model's name in campaigns and results (a slug)")
        kind = parser.add_mutually_exclusive_group()
        kind.add_argument("--python", metavar="DOTTED.PATH", help="a class with respond(context) -> reply")
        kind.add_argument("--url", help="an endpoint taking POST JSON {history, topic, knowledge, goal?} -> {text}")
        kind.add_argument("--openai", metavar="BASE_URL", help="an OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1")
        kind.add_argument("--builtins", action="store_true", help="register the built-in bots")
        parser.add_argument("--model", help="with --openai: the served model's name")
        parser.add_argument("--api-key-env", metavar="VAR", help="with --openai: the environment variable holding the API key")
        parser.add_argument("--temperature", type=float, help="with --openai or --transformers: sampling temperature")
        parser.add_argument("--max-tokens", type=int, help="with --openai: the longest reply, in tokens")
        parser.add_argument("--no-check", action="store_true", help="with --openai: do not ask the server now")
        checkpoint_arguments(parser=parser, kind=kind)
        parser.add_argument("--description", default="")
        parser.add_argument("--timeout", type=float, help=f"seconds per attempt (10; {CHECKPOINT_TIMEOUT_S:g} with --transformers)")
        parser.add_argument("--token-timeout", type=float, help="a streamed reply: the longest wait for its next token, in seconds (10)")
        parser.add_argument("--retries", type=int, help=f"further attempts after a failure (1; {CHECKPOINT_RETRIES} with --transformers)")
        parser.add_argument("--concurrency", type=int, help=f"calls at once, more wait their turn (4; {CHECKPOINT_CONCURRENCY} with --transformers)")
        parser.add_argument("--options", default="{}", help="JSON object of keyword arguments for the Python class")
        parser.add_argument("--inactive", action="store_true")

    def handle(self, *args: Any, **opts: Any) -> None:
        if opts["builtins"]:
            names = [m.name for m in builtin_models_ensure()]
            self.stdout.write(f"built-in models registered: {', '.join(names)}")
            return
        if not opts["name"] or not (opts["python"] or opts["url"] or opts["openai"] or opts["transformers"]):
            raise CommandError(
                "give NAME and one of --python DOTTED.PATH, --url URL, --openai BASE_URL --model MODEL "
                "or --transformers PATH_OR_GGUF (or --builtins)"
            )
        try:
            options = json.loads(opts["options"])
        except ValueError as error:
            raise CommandError(f"--options is not valid JSON: {error}") from error
        local = bool(opts["transformers"])
        opts["timeout"] = opts["timeout"] if opts["timeout"] is not None else CHECKPOINT_TIMEOUT_S if local else 10.0
        opts["retries"] = opts["retries"] if opts["retries"] is not None else CHECKPOINT_RETRIES if local else 1
        opts["concurrency"] = opts["concurrency"] if opts["concurrency"] is not None else CHECKPOINT_CONCURRENCY if local else 4
        if opts["openai"]:
            options = self._openai_options(options, opts)
        elif any(opts[key] is not None for key in OPENAI_ONLY if not (local and key == "temperature")) or opts["no_check"]:
            raise CommandError("--model, --api-key-env, --max-tokens and --no-check go with --openai (--temperature with --openai or --transformers)")
        if local:
            options = checkpoint_options_from(opts=opts, options=options, stdout=self.stdout)
        if opts["retries"] < 0 or opts["concurrency"] < 1:
            raise CommandError("--retries must be at least 0 and --concurrency at least 1")
        model = EvalModel.objects.filter(name=opts["name"]).first() or EvalModel(name=opts["name"])
        kinds = {"python": EvalModelKind.PYTHON, "openai": EvalModelKind.OPENAI, "transformers": EvalModelKind.CHECKPOINT}
        model.kind = next((kind for flag, kind in kinds.items() if opts[flag]), EvalModelKind.HTTP)
        model.dotted_path = opts["python"] or ""
        model.endpoint_url = opts["url"] or opts["openai"] or ""
        model.description = opts["description"]
        model.timeout_seconds = opts["timeout"]
        if opts["token_timeout"] is not None:
            model.token_timeout_seconds = opts["token_timeout"]
        model.retries = opts["retries"]
        model.max_concurrency = opts["concurrency"]
        model.options = options
        model.is_active = not opts["inactive"]
        try:
            model.full_clean()
        except ValidationError as error:
            raise CommandError("; ".join(f"{k}: {' '.join(v)}" for k, v in error.message_dict.items())) from error
        if model.kind == EvalModelKind.OPENAI:
            self._openai_check(model, check=not opts["no_check"])
        model.save()
        self.stdout.write(self.style.SUCCESS(f"registered {model.kind} model {model.name!r}"))

    def _openai_options(self, options: Any, opts: dict[str, Any]) -> dict[str, Any]:
        if not isinstance(options, dict):
            raise CommandError("--options must be a JSON object")
        if not opts["model"]:
            raise CommandError("--openai needs --model MODEL: the name the server knows the model by")
        given = {key: opts[key] for key in OPENAI_ONLY}
        return {**options, **{k: v for k, v in given.items() if v is not None}}

    def _openai_check(self, model: EvalModel, *, check: bool) -> None:
        from collect.tasktypes.modelchat.openai_check import endpoint_check
        from collect.tasktypes.modelchat.openai_options import api_key_read

        variable = model.options.get("api_key_env")
        if not check:
            if variable and not api_key_read(variable):
                raise CommandError(f"the environment variable {variable} is not set (it must hold the endpoint's API key)")
            return
        result = endpoint_check(base_url=model.endpoint_url, model=model.options["model"], api_key_env=variable)
        if result.problems:
            raise CommandError("; ".join(result.problems))
        for note in result.notes:
            self.stdout.write(self.style.WARNING(f"note: {note}"))
