"""register_model --transformers: a checkpoint is checked before it is stored, and each bad path
gets a CommandError naming what is wrong; nothing is stored then."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from collect.tasktypes.modelchat.models import EvalModel
from tests.modelchat.checkpoint import needs_smollm2, smollm2_path
from tests.modelchat.tiny_checkpoint import tiny_checkpoint

pytestmark = pytest.mark.django_db


def refused(*args: str) -> str:
    with pytest.raises(CommandError) as error:
        call_command("register_model", "local-lm", "--transformers", *args)
    assert not EvalModel.objects.filter(name="local-lm").exists()
    return str(error.value)


def test_it_refuses_a_path_that_does_not_exist(tmp_path: Path) -> None:
    assert refused(str(tmp_path / "nowhere")) == f"{tmp_path / 'nowhere'}: no such file or directory"


def test_it_refuses_a_directory_without_a_config(tmp_path: Path) -> None:
    assert "no config.json, so not a transformers checkpoint" in refused(str(tmp_path))


def test_it_refuses_a_directory_that_is_not_a_causal_lm(tmp_path: Path) -> None:
    # An encoder checkpoint (BERT): complete files, but nothing to generate with.
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "bert", "architectures": ["BertModel"]}))
    (tmp_path / "tokenizer.json").write_text("{}")
    (tmp_path / "model.safetensors").write_bytes(_empty_safetensors())
    assert "a bert model (BertModel), not a causal language model" in refused(str(tmp_path))


def test_it_refuses_a_truncated_safetensors_file(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "llama"}))
    (tmp_path / "tokenizer.json").write_text("{}")
    (tmp_path / "model.safetensors").write_bytes(_empty_safetensors()[:5])
    assert "unreadable safetensors file (truncated or damaged?)" in refused(str(tmp_path))


def test_it_refuses_a_file_that_is_not_gguf(tmp_path: Path) -> None:
    path = tmp_path / "model.gguf"
    path.write_bytes(b"not a gguf file at all" * 10)
    assert "not a whole GGUF file" in refused(str(path))


@needs_smollm2
def test_it_refuses_a_truncated_gguf(tmp_path: Path) -> None:
    whole = smollm2_path().read_bytes()
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(whole[: len(whole) // 2])
    message = refused(str(cut))
    assert message.startswith(f"{cut}: ") and ("truncated" in message)


@needs_smollm2
def test_it_refuses_bad_generation_settings() -> None:
    message = refused(str(smollm2_path()), "--max-new-tokens", "0")
    assert '"generation.max_new_tokens" must be between 1 and 512' in message


@needs_smollm2
def test_it_registers_a_gguf_with_its_generation_settings() -> None:
    call_command("register_model", "local-lm", "--transformers", str(smollm2_path()), "--device", "cpu", "--max-new-tokens", "20",
                 "--options", '{"knowledge_limit": 3}')
    model = EvalModel.objects.get(name="local-lm")
    assert (model.kind, model.timeout_seconds, model.retries, model.max_concurrency) == ("checkpoint", 120.0, 0, 1)
    assert model.options == {
        "path": str(smollm2_path()),
        "device": "cpu",
        "knowledge_limit": 3,
        "generation": {"max_new_tokens": 20},
    }


@pytest.mark.parametrize(("prompts", "problem"), [
    ({"wow": "About {subject} and {topic"}, "prompts.wow: "),
    ({"wow": "About {subject}: {knowledge}"}, "prompts.wow: unknown field(s) {subject}; it may use {knowledge}, {language}, {topic}"),
    ({"opening": "Hello {topic}"}, "prompts.opening: unknown field(s) {topic}; it may use {language}"),
    ({"greeting": "Hi"}, "prompts.greeting: unknown prompt; the prompts are wow, duconv, plain, opening"),
    ({"plain": 3}, "prompts.plain: a template must be a string"),
    (["wow"], '"prompts" must map some of wow, duconv, plain, opening to template strings'),
])
def test_it_refuses_a_prompt_template_it_could_not_fill(tmp_path: Path, prompts: object, problem: str) -> None:
    message = refused(str(tiny_checkpoint(tmp_path / "tiny")), "--options", json.dumps({"prompts": prompts}))
    assert problem in message


def test_it_registers_prompt_templates_with_their_fields(tmp_path: Path) -> None:
    prompts = {"wow": "Chatting about {topic}. Facts:\n{knowledge}\nUse {{one}} fact.", "plain": "About {topic}."}
    call_command("register_model", "local-lm", "--transformers", str(tiny_checkpoint(tmp_path / "tiny")), "--options",
                 json.dumps({"prompts": prompts}))
    assert EvalModel.objects.get(name="local-lm").options["prompts"] == prompts


def _empty_safetensors() -> bytes:
    header = b'{"__metadata__":{}}'
    return len(header).to_bytes(8, "little") + header
