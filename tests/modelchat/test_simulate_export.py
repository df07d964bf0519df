"""`simulate model_chat` runs scripted evaluators through the real socket path, one conversation per
arm here (three built-in models and the human control); `export_dataset modelchat` writes them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from collect.tasktypes.modelchat.selectors import modelchat_conversations
from collect.models import Message

pytestmark = [pytest.mark.backends, pytest.mark.django_db(transaction=True)]


def test_simulated_chats_cover_every_arm_and_export(mc_campaign, tmp_path: Path) -> None:
    mc_campaign.protocol_config = {
        "models": {"kb-retrieval": 1, "tfidf-reply": 1, "no-knowledge": 1},
        "control": 1,
        "unseen_topics": ["Blues"],
    }
    mc_campaign.save()

    call_command("simulate", "model_chat", "--dialogues", "4", "--concurrency", "2")

    records = modelchat_conversations(campaigns=["mc-test"])
    assert sorted(r.model for r in records) == ["human", "kb-retrieval", "no-knowledge", "tfidf-reply"]
    for record in records:
        assert record.answers.keys() == {"engagingness"} and 1 <= record.answers["engagingness"] <= 5
        assert record.seen is (record.topic != "Blues")
        assert [t.speaker for t in record.turns] == ["human", "model"] * (len(record.turns) // 2)
        if record.arm == "model":
            assert all(p is not None for p in record.turn_problems) and len(record.latencies_ms) == len(record.model_utterances)
        else:
            assert record.turn_problems == [None] * len(record.model_utterances) and record.latencies_ms == []
    assert not Message.objects.filter(text="").exists()

    call_command("export_dataset", "modelchat", "--out", str(tmp_path))
    lines = (tmp_path / "modelchat_conversations.jsonl").read_text(encoding="utf-8").splitlines()
    exported = {r["model"]: r for r in map(json.loads, lines)}
    assert exported.keys() == {"human", "kb-retrieval", "no-knowledge", "tfidf-reply"}
    kb = exported["kb-retrieval"]
    assert kb["ratings"] == next(r.answers for r in records if r.model == "kb-retrieval")
    assert kb["dialog"][0]["speaker"] == "human" and kb["dialog"][1]["id"] == "kb-retrieval"
    assert isinstance(kb["dialog"][1]["latency_ms"], int) and kb["dialog"][1]["problems"]
    assert "problems" not in exported["human"]["dialog"][1] and isinstance(kb["seen"], bool)

    with pytest.raises(CommandError, match="no model-chat campaign named nope"):
        call_command("export_dataset", "modelchat", "--out", str(tmp_path), "--campaign", "nope")


def test_simulated_evaluators_pick_among_several_replies(mc_campaign, tmp_path: Path) -> None:
    from collect.tasktypes.modelchat.models import ModelCandidate
    from collect.tasktypes.modelchat.prism import choice_judgments

    mc_campaign.protocol_config = {"models": {"kb-retrieval": 2}, "prism": {"models": ["kb-retrieval", "no-knowledge"]}}
    mc_campaign.save()

    call_command("simulate", "model_chat", "--dialogues", "2", "--concurrency", "2")

    records = modelchat_conversations(campaigns=["mc-test"])
    assert len(records) == 2 and all(r.prism == ("kb-retrieval", "no-knowledge") for r in records)
    model_turns = [t for r in records for t in r.turns if t.speaker == "model"]
    assert model_turns and all(len(t.candidates) == 2 and sum(c.picked for c in t.candidates) == 1 for t in model_turns)
    assert all(t.model == next(c.model for c in t.candidates if c.picked) for t in model_turns)
    assert ModelCandidate.objects.filter(picked=True, rating__isnull=False).count() == len(model_turns)
    assert len(list(choice_judgments(campaigns=["mc-test"]))) == len(model_turns)
