"""`manage.py register_model NAME (--python DOTTED.PATH | --url URL | --transformers PATH_OR_GGUF
[checkpoint_register.py's options]) [--timeout S --retries N
--concurrency N --options JSON]`: register (or update) a model for human evaluation.
`register_model --builtins` registers the built-in bots."""

from __future__ import annotations

import json
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from collect.modelchat.bots import builtin_models_ensure
from collect.modelchat.checkpoint_register import (
    CHECKPOINT_CONCURRENCY,
    CHECKPOINT_RETRIES,
    CHECKPOINT_TIMEOUT_S,
    checkpoint_arguments,
    checkpoint_options_from,
)
from collect.modelchat.models import EvalModel, EvalModelKind


class Command(BaseCommand):
    help = "Register a dialogue model (a Python class or an HTTP endpoint) for model-chat campaigns."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", nargs="?", help="the model's name in campaigns and results (a slug)")
        kind = parser.add_mutually_exclusive_group()
        kind.add_argument("--python", metavar="DOTTED.PATH", help="a class with respond(context) -> reply")
        kind.add_argument("--url", help="an endpoint taking POST JSON {history, topic, knowledge, goal?} -> {text}")
        kind.add_argument("--builtins", action="store_true", help="register the built-in bots")
        checkpoint_arguments(parser=parser, kind=kind)
        parser.add_argument("--description", default="")
        parser.add_argument("--timeout", type=float, help=f"seconds per attempt (10; {CHECKPOINT_TIMEOUT_S:g} with --transformers)")
        parser.add_argument("--retries", type=int, help=f"further attempts after a failure (1; {CHECKPOINT_RETRIES} with --transformers)")
        parser.add_argument("--concurrency", type=int, help=f"calls at once per server process (4; {CHECKPOINT_CONCURRENCY} with --transformers)")
        parser.add_argument("--options", default="{}", help="JSON object of keyword arguments for the Python class")
        parser.add_argument("--inactive", action="store_true")

    def handle(self, *args: Any, **opts: Any) -> None:
        if opts["builtins"]:
            names = [m.name for m in builtin_models_ensure()]
            self.stdout.write(f"built-in models registered: {', '.join(names)}")
            return
        if not opts["name"] or not (opts["python"] or opts["url"] or opts["transformers"]):
            raise CommandError("give NAME and one of --python DOTTED.PATH, --url URL or --transformers PATH_OR_GGUF (or --builtins)")
        try:
            options = json.loads(opts["options"])
        except ValueError as error:
            raise CommandError(f"--options is not valid JSON: {error}") from error
        local = bool(opts["transformers"])
        opts["timeout"] = opts["timeout"] if opts["timeout"] is not None else CHECKPOINT_TIMEOUT_S if local else 10.0
        opts["retries"] = opts["retries"] if opts["retries"] is not None else CHECKPOINT_RETRIES if local else 1
        opts["concurrency"] = opts["concurrency"] if opts["concurrency"] is not None else CHECKPOINT_CONCURRENCY if local else 4
        if local:
            options = checkpoint_options_from(opts=opts, options=options, stdout=self.stdout)
        if opts["retries"] < 0 or opts["concurrency"] < 1:
            raise CommandError("--retries must be at least 0 and --concurrency at least 1")
        model = EvalModel.objects.filter(name=opts["name"]).first() or EvalModel(name=opts["name"])
        model.kind = EvalModelKind.PYTHON if opts["python"] else EvalModelKind.CHECKPOINT if local else EvalModelKind.HTTP
        model.dotted_path = opts["python"] or ""
        model.endpoint_url = opts["url"] or ""
        model.description = opts["description"]
        model.timeout_seconds = opts["timeout"]
        model.retries = opts["retries"]
        model.max_concurrency = opts["concurrency"]
        model.options = options
        model.is_active = not opts["inactive"]
        try:
            model.full_clean()
        except ValidationError as error:
            raise CommandError("; ".join(f"{k}: {' '.join(v)}" for k, v in error.message_dict.items())) from error
        model.save()
        self.stdout.write(self.style.SUCCESS(f"registered {model.kind} model {model.name!r}"))
