"""The llm_like signal under SmolLM2-135M-Instruct (the checkpoint `make smollm2` converts): fluent
text is more probable than the same words shuffled, a turn above the threshold is flagged with its
evidence and kept when the other signals are computed again, and without a model nothing is
scored."""

from __future__ import annotations

import random

import pytest

from collect.authenticity.likeness import mean_logprobs, room_likeness_compute
from collect.authenticity.signals import room_signals_compute
from collect.models_authenticity import AuthenticityFlag
from tests.factories import add_message, make_campaign, make_room
from tests.modelchat.smollm2_serve import serve_missing, smollm2_checkpoint

pytestmark = [
    pytest.mark.backend_neutral("a language model's likelihood of texts, stored as flags"),
    pytest.mark.django_db,
    pytest.mark.skipif(serve_missing() is not None, reason=f"needs SmolLM2's GGUF file: {serve_missing()}"),
]
FLUENT = "I love the blues because the music is full of feeling and the guitar sounds so warm."


def shuffled(text: str) -> str:
    words = text.rstrip(".").split()
    random.Random(4).shuffle(words)
    return " ".join(words)


@pytest.fixture(scope="module")
def checkpoint() -> str:
    return str(smollm2_checkpoint())


def test_fluent_text_is_more_probable_than_its_words_shuffled(checkpoint: str) -> None:
    (fluent, n), (salad, m), (empty, none) = mean_logprobs([FLUENT, shuffled(FLUENT), ""], model_path=checkpoint)
    assert n > 15 and m > 15 and none == 0 and empty == 0.0
    assert -12.0 < salad < fluent < 0.0  # uniform over the 49,152 tokens would be -10.8


def test_a_turn_above_the_threshold_is_flagged_and_kept_by_the_other_signals(checkpoint: str, settings) -> None:
    (fluent, _), (salad, _) = mean_logprobs([FLUENT, shuffled(FLUENT)], model_path=checkpoint)
    settings.AUTHENTICITY_LLM_MODEL = checkpoint
    settings.AUTHENTICITY_LLM_THRESHOLD = (fluent + salad) / 2
    room = make_room(make_campaign())
    add_message(room, "wizard", FLUENT)
    add_message(room, "apprentice", shuffled(FLUENT))
    add_message(room, "wizard", "Yes, it is.")  # under AUTHENTICITY_LLM_MIN_TOKENS: not scored
    [flag] = room_likeness_compute(room_id=room.pk)
    assert (flag.seq, flag.kind, flag.assignment.role) == (1, "llm_like", "wizard")
    assert flag.evidence == {"mean_logprob": round(fluent, 3), "tokens": flag.evidence["tokens"],
                             "threshold": settings.AUTHENTICITY_LLM_THRESHOLD, "model": "smollm2-135m"}
    room_signals_compute(room_id=room.pk)
    room_likeness_compute(room_id=room.pk)  # again: replaced, not doubled
    assert list(AuthenticityFlag.objects.filter(room=room, kind="llm_like").values_list("seq", flat=True)) == [1]


def test_without_a_model_nothing_is_scored(settings) -> None:
    settings.AUTHENTICITY_LLM_MODEL = ""
    room = make_room(make_campaign())
    add_message(room, "wizard", FLUENT)
    assert room_likeness_compute(room_id=room.pk) == []
    assert not AuthenticityFlag.objects.filter(room=room).exists()
