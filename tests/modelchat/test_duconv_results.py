"""DuConv model chats from `simulate model_chat` to the results: goal completion per conversation
in the records and the export, and per model in eval_report (JSON and the staff page)."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client

from collect.tasktypes.modelchat.selectors import modelchat_conversations
from tests.modelchat.conftest import GOAL

pytestmark = [pytest.mark.backends, pytest.mark.django_db(transaction=True)]


def test_simulated_duconv_chats_reach_the_report_and_the_export(dc_campaign, tmp_path: Path, admin_client: Client) -> None:
    dc_campaign.protocol_config = {**dc_campaign.protocol_config, "models": {"duconv-agent": 1, "no-knowledge": 1}}
    dc_campaign.save()

    call_command("simulate", "model_chat", "--campaign", "mc-duconv", "--dialogues", "2", "--concurrency", "2")

    records = {r.model: r for r in modelchat_conversations(campaigns=["mc-duconv"])}
    assert set(records) == {"duconv-agent", "no-knowledge"}
    for record in records.values():
        assert record.goal == GOAL and record.topic == "Inception" and record.seen is True
        assert [t.speaker for t in record.turns][:3] == ["model", "human", "model"]
        assert all(p is not None for p in record.turn_problems)
    assert records["duconv-agent"].goal_completion == 2
    assert records["no-knowledge"].goal_completion == 0  # it never names Christopher Nolan

    out = StringIO()
    call_command("eval_report", "mc-duconv", "--json", stdout=out)
    models = json.loads(out.getvalue())["models"]
    assert models["duconv-agent"]["all"]["goal_completion"] == {"n": 1, "mean": 2, "sd": None, "scores": {"0": 0, "1": 0, "2": 1}}
    assert models["no-knowledge"]["all"]["goal_completion"]["mean"] == 0
    assert models["duconv-agent"]["all"]["ratings"]["engagingness"]["n"] == 1
    text = StringIO()
    call_command("eval_report", "mc-duconv", stdout=text)
    assert "goal completion 2" in text.getvalue()
    page = admin_client.get("/annotate/results/mc-duconv/").content.decode()
    assert "Goal completion (0–2)" in page and page.count('data-testid="goal-completion"') == 2 + 2  # all, seen

    call_command("export_dataset", "modelchat", "--out", str(tmp_path), "--campaign", "mc-duconv")
    lines = [json.loads(line) for line in (tmp_path / "modelchat_conversations.jsonl").read_text().splitlines()]
    agent = next(line for line in lines if line["model"] == "duconv-agent")
    assert agent["goal"] == GOAL and agent["knowledge"] == records["duconv-agent"].knowledge and agent["goal_completion"] == 2
    model_turns = [t for t in agent["dialog"] if t["speaker"] == "model"]
    assert all(len(t["knowledge_used"]) == 1 for t in model_turns)
    assert all("knowledge_used" not in t for t in agent["dialog"] if t["speaker"] == "human")
