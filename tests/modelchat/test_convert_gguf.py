"""convert_gguf: a GGUF checkpoint becomes a folder `transformers serve` loads; what is not a whole
GGUF file is refused with the reason, and nothing is written."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from collect.tasktypes.modelchat.gguf_convert import smollm2_gguf
from tests.modelchat.smollm2_serve import serve_missing, smollm2_checkpoint

pytestmark = pytest.mark.backend_neutral("converts a GGUF file: no database, no channel layer")

needs_smollm2 = pytest.mark.skipif(serve_missing() is not None, reason=f"needs SmolLM2's GGUF file: {serve_missing()}")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no such file"),
        (b"hello, not a model\n", "not a GGUF file"),
        (b"GGUF\x03\x00\x00\x00garbage", "unreadable GGUF file (truncated?)"),
    ],
    ids=["missing", "not-gguf", "cut-header"],
)
def test_what_is_not_a_gguf_file_is_refused(tmp_path: Path, content: bytes | None, message: str) -> None:
    src = tmp_path / "model.gguf"
    if content is not None:
        src.write_bytes(content)
    with pytest.raises(CommandError, match=re.escape(message)):
        call_command("convert_gguf", str(src), str(tmp_path / "out"))
    assert not (tmp_path / "out").exists() and not (tmp_path / "out.partial").exists()


@needs_smollm2
def test_a_truncated_gguf_file_is_refused(tmp_path: Path) -> None:
    whole = smollm2_gguf()
    assert whole is not None
    src = tmp_path / "cut.gguf"
    with whole.open("rb") as handle:
        src.write_bytes(handle.read(whole.stat().st_size // 2))
    with pytest.raises(CommandError, match="truncated"):
        call_command("convert_gguf", str(src), str(tmp_path / "out"))
    assert not (tmp_path / "out").exists()


@needs_smollm2
def test_the_converted_smollm2_names_its_architecture_and_keeps_its_chat_template() -> None:
    checkpoint = smollm2_checkpoint()
    config = json.loads((checkpoint / "config.json").read_text())
    assert config["architectures"] == ["LlamaForCausalLM"] and config["dtype"] == "bfloat16"
    assert "quantization_config" not in config  # plain tensors: nothing left to dequantize
    assert "<|im_start|>" in (checkpoint / "chat_template.jinja").read_text()
    # A second run leaves the finished folder alone.
    call_command("convert_gguf", "smollm2", str(checkpoint))
    assert (checkpoint / "model.safetensors").stat().st_size > 200_000_000
