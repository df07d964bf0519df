"""`eval_report CAMPAIGN --json`, the staff results page, and pairwise jobs built from a model-chat
campaign, over conversations stored as collect.tasktypes.modelchat stores them."""

from __future__ import annotations

import io
import json

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client

from annotate.models import Job
from collect.models import Worker
from tests.annotate.conftest import Api
from tests.annotate.test_pairwise import answer_all
from tests.evaluation.campaign import make_campaign, populate

pytestmark = pytest.mark.django_db


def report(slug: str, *args: str) -> dict:
    out = io.StringIO()
    call_command("eval_report", slug, "--json", *args, stdout=out)
    return json.loads(out.getvalue())


def test_it_reports_each_model_the_control_and_the_splits() -> None:
    populate(make_campaign())
    data = report("eval-mc", "--rounds", "50")
    assert data["conversations"] == 8 and data["questions"] == ["engagingness"]
    assert list(data["models"]) == ["bad-bot", "good-bot", "human"]
    good, bad, human = (data["models"][m] for m in ("good-bot", "bad-bot", "human"))
    assert good["all"]["ratings"]["engagingness"]["mean"] == pytest.approx(14 / 3)
    assert (good["seen"]["conversations"], good["unseen"]["conversations"]) == (2, 1)
    assert bad["all"]["problem_rates"] == {"labelled_turns": 6, "repetitive": 0.5, "off_topic": 0.5, "none": 0.5}
    assert bad["all"]["median_latency_ms"] == 1000 and good["all"]["median_latency_ms"] == 150
    assert good["all"]["wiki_f1"]["mean"] > 0.3 > bad["all"]["wiki_f1"]["mean"] == 0.0
    assert human["all"]["conversations"] == 2 and human["all"]["median_latency_ms"] is None
    test = next(t for t in data["rating_tests"] if (t["model_a"], t["model_b"]) == ("bad-bot", "good-bot"))
    assert test["welch_t"]["p"] < 0.05 and test["welch_t"]["cohens_d"] < 0
    assert data["pairwise"] == []


def test_it_refuses_unknown_and_other_campaigns() -> None:
    with pytest.raises(CommandError, match="no campaign 'nope'"):
        report("nope")
    campaign = make_campaign("wow-one")
    campaign.protocol = "wow"
    campaign.save()
    with pytest.raises(CommandError, match="not model_chat"):
        report("wow-one")


def test_a_pairwise_job_from_the_campaign_reaches_the_report() -> None:
    populate(make_campaign())
    alice = Api(Client(), Worker.objects.create(external_id="alice"))
    call_command("create_annotation_job", "mc-pairs", "--kind", "pairwise", "--question", "knowledgeable",
                 "--campaign", "eval-mc", "--overlap", "1", stdout=io.StringIO())
    job = Job.objects.get(slug="mc-pairs")
    models = {(i.payload["conversations"]["a"]["model"], i.payload["conversations"]["b"]["model"]) for i in job.items.all()}
    assert models == {("bad-bot", "good-bot"), ("bad-bot", "human"), ("good-bot", "human")}
    assert job.items.count() == 3 + 2 + 2  # zipped: min(3, 3) + min(3, 2) + min(3, 2)
    answer_all(alice, job, check_right=True)
    data = report("eval-mc", "--rounds", "50")
    (pairwise,) = data["pairwise"]
    assert pairwise["job"] == "mc-pairs" and pairwise["question"] == "knowledgeable"
    assert pairwise["judgments"] == 7 and set(pairwise["leaderboard"]) == {"bad-bot", "good-bot", "human"}


def test_the_results_page_is_for_staff(client: Client) -> None:
    populate(make_campaign())
    url = "/annotate/results/eval-mc/"
    assert client.get(url).status_code == 302
    client.force_login(User.objects.create(username="rita", is_staff=True))
    page = client.get(url)
    html = page.content.decode()
    assert page.status_code == 200
    assert html.count('data-testid="model-row"') == 3 + 2 + 1 + 1  # all splits with conversations (human: all, seen)
    assert 'data-testid="rating-test-row"' in html and 'data-testid="interval-chart"' in html
    assert "Wiki F1" in html
    assert client.get("/annotate/results/nope/").status_code == 404
    assert "/annotate/results/eval-mc/" in client.get("/annotate/jobs/").content.decode()


def test_the_judgments_of_a_campaign_are_listed_for_export() -> None:
    from annotate.kinds.pairwise.selectors import campaign_pair_judgments

    populate(make_campaign())
    call_command("create_annotation_job", "mc-pairs", "--kind", "pairwise", "--campaign", "eval-mc", "--overlap", "1",
                 stdout=io.StringIO())
    answer_all(Api(Client(), Worker.objects.create(external_id="alice")), Job.objects.get(slug="mc-pairs"), check_right=True)
    records = campaign_pair_judgments(campaigns=["eval-mc"])
    assert len(records) == 7 and all(r["counted"] for r in records)
    first = records[0]
    assert first["job"] == "mc-pairs" and first["question"] == "engaging" and first["reason"] == "my reason"
    assert first["winner"] in ("model_a", "model_b") and first["shown_left"] in ("a", "b")
    assert campaign_pair_judgments(campaigns=["other"]) == []


def test_export_dataset_modelchat_writes_the_judgments_beside_the_conversations(tmp_path) -> None:
    populate(make_campaign())
    call_command("create_annotation_job", "mc-pairs", "--kind", "pairwise", "--campaign", "eval-mc", "--overlap", "1",
                 stdout=io.StringIO())
    answer_all(Api(Client(), Worker.objects.create(external_id="alice")), Job.objects.get(slug="mc-pairs"), check_right=True)
    call_command("export_dataset", "modelchat", "--out", str(tmp_path), "--campaign", "eval-mc", stdout=io.StringIO())
    conversations = [json.loads(line) for line in (tmp_path / "modelchat_conversations.jsonl").read_text().splitlines()]
    judgments = [json.loads(line) for line in (tmp_path / "modelchat_pairwise_judgments.jsonl").read_text().splitlines()]
    assert len(conversations) == 8 and len(judgments) == 7
    ids = {c["conversation_id"] for c in conversations}
    assert all({j["conversation_a"], j["conversation_b"]} <= ids for j in judgments)
    # the file is rank_models input as it stands
    out = io.StringIO()
    call_command("rank_models", str(tmp_path / "modelchat_pairwise_judgments.jsonl"), "--json", "--rounds", "20", stdout=out)
    assert set(json.loads(out.getvalue())["models"]) == {"bad-bot", "good-bot", "human"}


def test_a_top_up_pairs_only_new_conversations() -> None:
    from tests.evaluation.campaign import add_chat

    campaign = make_campaign()
    populate(campaign)
    args = ["create_annotation_job", "mc-pairs", "--kind", "pairwise", "--campaign", "eval-mc"]
    call_command(*args, stdout=io.StringIO())
    job = Job.objects.get(slug="mc-pairs")
    assert job.items.count() == 7
    call_command(*args, stdout=io.StringIO())
    assert job.items.count() == 7  # nothing new
    add_chat(campaign, 30, model=None, rating=3, replies=["Jazz, yes."])
    call_command(*args, stdout=io.StringIO())
    # the third human conversation pairs with the conversation of each bot not yet paired with a human
    assert job.items.count() == 9
    ids = [c["id"] for i in job.items.all() for c in i.payload["conversations"].values()]
    assert max(ids.count(x) for x in set(ids)) == 2  # each conversation at most once per other model
