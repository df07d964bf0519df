"""A checkpoint directory end to end without a trained model: registered after its files are
checked, loaded once per process and again when rewritten, answering calls.py's contract."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.core.management import call_command

from collect.tasktypes.modelchat import checkpoints
from collect.tasktypes.modelchat.calls import model_respond
from collect.tasktypes.modelchat.models import EvalModel
from tests.modelchat.tiny_checkpoint import tiny_checkpoint

CONTEXT = {"history": ["how many strings has the guitar"], "topic": "Guitar",
           "knowledge": [{"title": "Guitar", "sentences": ["the guitar has six strings"]}]}


@pytest.mark.django_db
def test_a_checkpoint_directory_registers_and_answers(tmp_path: Path) -> None:
    tiny_checkpoint(tmp_path)
    call_command("register_model", "tiny-lm", "--transformers", str(tmp_path), "--device", "cpu", "--max-new-tokens", "4")
    model = EvalModel.objects.get(name="tiny-lm")
    result = model_respond(model=model, context=CONTEXT)
    assert result.error == "" and result.text.strip() and result.attempts == 1
    assert all(word in tiny_words() for word in result.text.split())  # words of its own vocabulary


def test_a_checkpoint_loads_once_and_again_when_rewritten(tmp_path: Path) -> None:
    tiny_checkpoint(tmp_path)
    options = {"path": str(tmp_path), "device": "cpu"}
    first = checkpoints.checkpoint_load(options=options)
    assert checkpoints.checkpoint_load(options=options) is first
    later = os.path.getmtime(tmp_path / "model.safetensors") + 10
    os.utime(tmp_path / "model.safetensors", (later, later))  # the weights rewritten in place
    again = checkpoints.checkpoint_load(options=options)
    assert again is not first and again.device == "cpu"
    assert [k for k in checkpoints._loaded if k[0] == os.path.realpath(tmp_path)] == [(os.path.realpath(tmp_path), later, "cpu", "auto")]


def tiny_words() -> set[str]:
    from tests.modelchat.tiny_checkpoint import WORDS

    return set(WORDS)


def test_a_reply_cut_at_the_token_limit_keeps_its_whole_sentences() -> None:
    cut = "Tea originated in Southwest China. It was a medicinal drink! However, the exact origin is still unknown, and the"
    assert checkpoints._whole_sentences(cut) == "Tea originated in Southwest China. It was a medicinal drink!"
    assert checkpoints._whole_sentences("The guitar has six strings and") == "The guitar has six strings and"


@pytest.mark.django_db
def test_a_checkpoint_streams_its_reply_and_stops_when_told(tmp_path: Path) -> None:
    import threading

    from collect.tasktypes.modelchat.progress import ReplyProgress

    tiny_checkpoint(tmp_path)
    call_command("register_model", "tiny-lm", "--transformers", str(tmp_path), "--device", "cpu", "--max-new-tokens", "6")
    model = EvalModel.objects.get(name="tiny-lm")
    frames: list[dict] = []
    result = model_respond(model=model, context=CONTEXT, progress=ReplyProgress(lambda e: frames.append(e["frame"]), after_seq=1, interval=0.0))
    texts = [f["text"] for f in frames if f["type"] == "stream"]
    assert result.error == "" and texts and all(texts[i + 1].startswith(texts[i]) for i in range(len(texts) - 1))
    assert result.first_token_ms <= result.last_token_ms

    # Told to stop (calls.py gave up): the generation ends at its next token, whatever max_new_tokens says.
    options = {**model.options, "generation": {"max_new_tokens": 200}}
    whole = "".join(checkpoints.checkpoint_stream(options=options, context=CONTEXT, stop=threading.Event()))
    stop = threading.Event()
    stop.set()
    stopped = "".join(checkpoints.checkpoint_stream(options=options, context=CONTEXT, stop=stop))
    assert len(whole.split()) > 20 and len(stopped.split()) <= 1
