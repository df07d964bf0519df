"""ACUTE-Eval as published: the four questions and the reason prompt in ParlAI's wordings, built-in
control pairs (known better against known worse) mixed into a judge's queue, a judge who fails
them left out of the results and named on the report, and one leaderboard per question."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client

from annotate.models import Assignment, Item, ItemRole, Job
from annotate.kinds.pairwise.campaign import campaign_evaluation
from annotate.services import AnnotationError
from annotate.kinds.pairwise.controls import BETTER, CONTROL_GOLD_RATE, EVASIVE, control_pairs, job_control_pairs_add
from annotate.kinds.pairwise.pairs import ACUTE_QUESTIONS, REASON_PROMPT
from collect.models import Worker
from tests.annotate.conftest import Api
from tests.annotate.test_pairwise import answer_all
from tests.evaluation.campaign import make_campaign, populate

pytestmark = pytest.mark.django_db

# Li, Weston and Roller (2019); the choices and the reason prompt as in ParlAI's acute_eval task.
PUBLISHED = {
    "engaging": ("Who would you prefer to talk to for a long conversation?", "I would prefer to talk to Speaker 1"),
    "interesting": (
        "If you had to say one of these speakers is interesting and one is boring, who would you say is more interesting?",
        "Speaker 1 is more interesting",
    ),
    "humanlike": ("Which speaker sounds more human?", "Speaker 1 sounds more human"),
    "knowledgeable": (
        "If you had to say that one speaker is more knowledgeable and one is more ignorant, who is more knowledgeable?",
        "Speaker 1 is more knowledgeable",
    ),
}


def test_the_four_questions_have_their_published_wordings() -> None:
    asked = {str(key): (w["question"], w["option"].format(speaker="Speaker 1")) for key, w in ACUTE_QUESTIONS.items()}
    assert asked == PUBLISHED
    assert REASON_PROMPT == "Please provide a brief justification for your choice (a few words or a sentence)"


def judged_turns(conversation: dict) -> list[str]:
    return [t["text"] for t in conversation["dialog"] if t["speaker"] == conversation["speaker"]]


def test_control_pairs_set_a_fluent_conversation_against_an_evasive_one() -> None:
    pairs = control_pairs(12)
    assert len({(p[p["winner"]]["topic"], p["b" if p["winner"] == "a" else "a"]["topic"]) for p in pairs}) == 12
    assert {p["winner"] for p in pairs} == {"a", "b"}  # the better side is not always the same
    for pair in pairs:
        better, worse = pair[pair["winner"]], pair["b" if pair["winner"] == "a" else "a"]
        assert better["topic"] != worse["topic"]
        assert set(judged_turns(worse)) <= set(EVASIVE)
        assert not set(judged_turns(better)) & set(EVASIVE) and all(len(t) > 40 for t in judged_turns(better))
    with pytest.raises(AnnotationError, match="1–12, not 13"):
        control_pairs(len(BETTER) * (len(BETTER) - 1) + 1)
    with pytest.raises(AnnotationError, match="not 0"):
        control_pairs(0)


def campaign_job(slug: str, *extra: str) -> Job:
    call_command("create_annotation_job", slug, "--kind", "pairwise", "--campaign", "eval-mc", "--overlap", "2", *extra,
                 stdout=io.StringIO())
    return Job.objects.get(slug=slug)


def test_create_annotation_job_adds_control_pairs_as_gold_served_in_the_queue() -> None:
    populate(make_campaign())
    job = campaign_job("acute-eng", "--control-pairs", "3")
    assert job.gold_rate == CONTROL_GOLD_RATE
    controls = list(job.items.filter(role=ItemRole.GOLD))
    assert len(controls) == 3 and all(item.gold["winner"] in ("a", "b") for item in controls)
    campaign_job("acute-eng", "--control-pairs", "3")  # a top-up adds none twice
    assert job.items.filter(role=ItemRole.GOLD).count() == 3
    with pytest.raises(CommandError, match="1–12, not 40"):
        campaign_job("acute-eng", "--control-pairs", "40")
    with pytest.raises(AnnotationError, match="pairwise jobs only"):
        job_control_pairs_add(job=Job(kind="relevance"), count=1)


def test_a_judge_who_fails_the_control_pairs_is_left_out_and_named_on_the_report() -> None:
    populate(make_campaign())
    job = campaign_job("acute-eng", "--control-pairs", "4", "--gold-rate", "0.5")
    alice = Api(Client(), Worker.objects.create(external_id="alice"))
    bob = Api(Client(), Worker.objects.create(external_id="bob"))
    answer_all(alice, job, check_right=True)
    answer_all(bob, job, check_right=False)
    for api in (alice, bob):  # both met control pairs between their real pairs
        roles = set(Assignment.objects.filter(worker=api.worker, status="submitted").values_list("item__role", flat=True))
        assert roles == {ItemRole.GOLD, ItemRole.TASK}

    report = campaign_evaluation(campaign=job_campaign(), rounds=50)
    (board,) = report["pairwise_by_question"]
    answered_by_alice = Assignment.objects.filter(job=job, worker=alice.worker, item__role=ItemRole.TASK).count()
    assert board["judgments"] == answered_by_alice and board["excluded_judges"] == 1
    (section,) = report["pairwise"]
    assert [row["worker"] for row in section["excluded_annotators"]] == [bob.worker.pseudonym]

    staff = Client()
    staff.force_login(User.objects.create(username="rita", is_staff=True))
    html = staff.get(f"/annotate/jobs/{job.slug}/report/").content.decode()
    assert 'data-testid="excluded"' in html and bob.worker.pseudonym in html
    html = staff.get("/annotate/results/eval-mc/").content.decode()
    assert "1 judge who failed the control pairs left out" in html


def job_campaign():
    from collect.models import Campaign

    return Campaign.objects.get(slug="eval-mc")


def test_each_question_gets_its_own_leaderboard() -> None:
    populate(make_campaign())
    engaging = campaign_job("acute-eng", "--question", "engaging")
    human = campaign_job("acute-hum", "--question", "humanlike")
    judge = Api(Client(), Worker.objects.create(external_id="alice"))
    answer_all(judge, engaging, check_right=True)
    answer_all(judge, human, check_right=True)

    boards = campaign_evaluation(campaign=job_campaign(), rounds=50)["pairwise_by_question"]
    assert [(b["question"], b["jobs"]) for b in boards] == [("engaging", ["acute-eng"]), ("humanlike", ["acute-hum"])]
    assert boards[1]["text"] == "Which speaker sounds more human?"
    assert all(b["judgments"] == Item.objects.filter(job__slug=b["jobs"][0], role=ItemRole.TASK).count() for b in boards)
    staff = Client()
    staff.force_login(User.objects.create(username="rita", is_staff=True))
    html = staff.get("/annotate/results/eval-mc/").content.decode()
    assert html.count('data-testid="question-board"') == 2
    assert "Humanlike: “Which speaker sounds more human?”" in html


def test_the_admin_adds_control_pairs_to_pairwise_jobs_only(admin_client: Client) -> None:
    populate(make_campaign())
    pairwise = campaign_job("acute-eng")
    relevance = Job.objects.create(slug="rel", name="rel", kind="relevance", overlap=1)
    response = admin_client.post(
        "/admin/annotate/job/", {"action": "add_control_pairs", "_selected_action": [pairwise.pk, relevance.pk]}, follow=True
    )
    html = response.content.decode()
    assert "Job acute-eng: 4 control pair(s) added, served at gold rate 0.1" in html
    assert "Job rel: control pairs belong to pairwise jobs only" in html
    assert pairwise.items.filter(role=ItemRole.GOLD).count() == 4 and not relevance.items.exists()
    pairwise.refresh_from_db()
    assert pairwise.gold_rate == CONTROL_GOLD_RATE


def test_onboarding_control_pairs_come_first_and_turn_away_a_judge_who_fails_them() -> None:
    populate(make_campaign())
    job = campaign_job("acute-eng", "--control-onboarding", "2")
    onboarding = list(job.items.filter(role=ItemRole.QUALIFICATION).values_list("key", flat=True))
    assert len(onboarding) == 2 and job.gold_rate == 0  # the queue itself has no checks here
    assert set(onboarding).isdisjoint(
        f"{ItemRole.QUALIFICATION}:{p['a']['id']}|{p['b']['id']}" for p in control_pairs(2)
    )  # the onboarding's pairs are others than the queue's first ones
    careless = Api(Client(), Worker.objects.create(external_id="bob"))
    careful = Api(Client(), Worker.objects.create(external_id="alice"))
    assert answer_all(careless, job, check_right=False) == 2  # the two onboarding pairs, then nothing
    assert careless.next(job).json()["status"] == "disqualified"
    answered = answer_all(careful, job, check_right=True)
    tasks = job.items.filter(role=ItemRole.TASK).count()
    assert answered == 2 + tasks
    first_two = Assignment.objects.filter(worker=careful.worker).order_by("submitted_at", "pk")[:2]
    assert {a.item.role for a in first_two} == {ItemRole.QUALIFICATION}
