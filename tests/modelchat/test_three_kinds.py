"""One model-chat campaign pits three kinds of model against each other: an OpenAI-compatible
endpoint (a real local HTTP server speaking the chat-completions API), a local checkpoint (a tiny
causal LM written with save_pretrained) and a built-in bot. Scripted evaluators chat with each
through the real socket path, judges compare their conversations in a pairwise job, and
`rank_models` ranks the three from the exported judgments."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client

from annotate.models import Job
from collect.tasktypes.modelchat.models import EvalModelKind, ModelTurn
from collect.models import Campaign, Worker
from tests.annotate.conftest import Api
from tests.annotate.test_pairwise import answer_all
from tests.modelchat.openai_server import completion, openai_server
from tests.modelchat.tiny_checkpoint import tiny_checkpoint

pytestmark = [pytest.mark.backends, pytest.mark.django_db(transaction=True)]
KINDS = {"endpoint-lm": EvalModelKind.OPENAI, "tiny-lm": EvalModelKind.CHECKPOINT, "kb-retrieval": EvalModelKind.PYTHON}


def test_an_endpoint_a_checkpoint_and_a_bot_are_chatted_with_judged_and_ranked(mc_campaign: Campaign, tmp_path: Path) -> None:
    with openai_server() as server:
        server.reply[0] = lambda request: completion("The guitar usually has six strings. [1]")
        call_command("register_model", "endpoint-lm", "--openai", server.base_url, "--model", "test-model", stdout=io.StringIO())
        call_command("register_model", "tiny-lm", "--transformers", str(tiny_checkpoint(tmp_path / "tiny")), "--device", "cpu",
                     "--max-new-tokens", "4", stdout=io.StringIO())
        Campaign.objects.filter(pk=mc_campaign.pk).update(protocol_config={"models": {name: 1 for name in KINDS}})

        call_command("simulate", "model_chat", "--dialogues", "3", "--concurrency", "1", stdout=io.StringIO())

        assert any(r.path.endswith("/chat/completions") for r in server.requests)
    turns = ModelTurn.objects.select_related("model")
    assert {t.model.name: t.model.kind for t in turns} == KINDS
    assert all(t.error == "" for t in turns), [t.error for t in turns if t.error]

    call_command("create_annotation_job", "three-kinds", "--kind", "pairwise", "--campaign", mc_campaign.slug,
                 "--no-completion-code", stdout=io.StringIO())
    job = Job.objects.get(slug="three-kinds")
    assert job.items.count() == 3  # every two of the three models, one pair each
    for name in ("judge-a", "judge-b", "judge-c"):
        answer_all(Api(Client(), Worker.objects.create(external_id=name)), job, check_right=True)

    call_command("export_dataset", "modelchat", "--out", str(tmp_path / "out"), stdout=io.StringIO())
    judgments = tmp_path / "out" / "modelchat_pairwise_judgments.jsonl"
    printed = io.StringIO()
    call_command("rank_models", str(judgments), "--json", "--rounds", "20", stdout=printed)
    ranked = json.loads(printed.getvalue())["models"]
    assert set(ranked) == set(KINDS)
    assert sum(row["battles"] for row in ranked.values()) == 2 * len(judgments.read_text().splitlines())
