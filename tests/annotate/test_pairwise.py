"""Pairwise (ACUTE-Eval) jobs: pairs from imported conversations, left/right drawn per item, answers
with a required reason, check pairs that exclude careless annotators, onboarding, and results."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotate.models import Assignment, AssignmentStatus, Item, ItemRole, Job
from annotate.kinds.pairwise.selectors import pair_outcomes
from annotate.selectors.report import annotation_report
from tests.annotate.conftest import Api
from tests.annotate.pairwise_data import MODELS, check_pair, conversation, conversations, write

pytestmark = pytest.mark.django_db


def import_pairs(tmp_path: Path, data, *, role: str = "task", job: str = "acute", **extra: str) -> None:
    args = ["--job", job, "--role", role, *[f"--{k}={v}" for k, v in extra.items()]]
    call_command("import_dataset", "pairwise", str(write(tmp_path / f"{role}.json", data)), *args, stdout=open("/dev/null", "w"))


@pytest.fixture
def job(tmp_path: Path) -> Job:
    import_pairs(tmp_path, conversations(2), question="knowledgeable", overlap="2")
    return Job.objects.get(slug="acute")


def test_it_pairs_every_two_models(job: Job) -> None:
    items = list(job.items.all())
    assert job.kind == "pairwise" and job.question == "knowledgeable" and job.overlap == 2
    pairs = Counter((i.payload["conversations"]["a"]["model"], i.payload["conversations"]["b"]["model"]) for i in items)
    assert pairs == {("baseline", "kb_bot"): 2, ("baseline", "retrieval_bot"): 2, ("kb_bot", "retrieval_bot"): 2}
    used = Counter(c["id"] for i in items for c in i.payload["conversations"].values())
    assert set(used.values()) == {2}  # each conversation in one pair per other model
    assert {i.payload["left"] for i in items} <= {"a", "b"}


def test_the_left_side_is_drawn_per_item(tmp_path: Path) -> None:
    import_pairs(tmp_path, [conversation(m, n) for m in MODELS for n in range(12)], job="many")
    sides = Counter(i.payload["left"] for i in Job.objects.get(slug="many").items.all())
    assert sides["a"] > 5 and sides["b"] > 5


def test_it_serves_a_pair_without_model_names(api: dict[str, Api], job: Job) -> None:
    data = api["alice"].next(job).json()
    item = data["item"]
    assert data["status"] == "assigned"
    assert item["question"].startswith("If you had to say that one speaker is more knowledgeable")
    assert [c["side"] for c in item["conversations"]] == ["left", "right"]
    assert [c["option"] for c in item["conversations"]] == ["Speaker 1 is more knowledgeable", "Speaker 2 is more knowledgeable"]
    stored = Item.objects.get(pk=item["id"]).payload
    left = stored["conversations"][stored["left"]]
    assert item["conversations"][0]["turns"][1]["text"] == left["dialog"][1]["text"]
    assert [t["of_interest"] for t in item["conversations"][0]["turns"]] == [False, True, False, True]
    assert "model" not in item["conversations"][0] and "kb_bot" not in {t["speaker"] for c in item["conversations"] for t in c["turns"]}


def test_an_answer_names_the_conversation_chosen(api: dict[str, Api], job: Job) -> None:
    item_id = api["alice"].next(job).json()["item"]["id"]
    response = api["alice"].answer(item_id, {"choice": "right", "reason": "  Knew more facts.  "})
    assert response.status_code == 201, response.content
    item = Item.objects.get(pk=item_id)
    right = "b" if item.payload["left"] == "a" else "a"
    answer = Assignment.objects.get(item=item, status=AssignmentStatus.SUBMITTED).answer
    assert answer == {"choice": "right", "winner": right, "reason": "Knew more facts."}
    assert item.answers_count == 1


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"choice": "left"}, "bad_reason"),
        ({"choice": "left", "reason": "ok"}, "bad_reason"),
        ({"reason": "because"}, "bad_answer"),
        ({"choice": "middle", "reason": "because"}, "invalid"),
        ({"choice": "left", "reason": "because", "selected": [0]}, "bad_answer"),
        ({"choice": "left", "reason": "x" * 501}, "invalid"),
    ],
)
def test_it_refuses_a_bad_answer_and_stores_nothing(api: dict[str, Api], job: Job, body: dict, code: str) -> None:
    item_id = api["alice"].next(job).json()["item"]["id"]
    response = api["alice"].answer(item_id, body)
    assert response.status_code == 400 and response.json()["code"] == code
    assert not Assignment.objects.filter(item_id=item_id, status=AssignmentStatus.SUBMITTED).exists()


def test_a_judgment_on_a_pair_not_assigned_to_you_is_refused(api: dict[str, Api], job: Job) -> None:
    item_id = api["alice"].next(job).json()["item"]["id"]
    response = api["charlie"].answer(item_id, {"choice": "left", "reason": "I like it"})
    assert response.status_code == 403 and response.json()["code"] == "not_assigned"
    assert Item.objects.get(pk=item_id).answers_count == 0


def test_relevance_answers_refuse_pairwise_fields(api: dict[str, Api], relevance_job: Job) -> None:
    item_id = api["alice"].next(relevance_job).json()["item"]["id"]
    response = api["alice"].answer(item_id, {"selected": [], "choice": "left", "reason": "nope"})
    assert response.status_code == 400 and response.json()["code"] == "bad_answer"


def answer_all(api: Api, job: Job, *, check_right: bool, prefer: tuple[str, ...] = ()) -> int:
    """Answer everything served: task pairs "left", or the model `prefer` ranks first where it is
    given; check pairs right or wrong."""
    answered = 0
    while True:
        data = api.next(job).json()
        if data["item"] is None:
            return answered
        item = Item.objects.get(pk=data["item"]["id"])
        choice = "left"
        if item.gold is not None:
            good_left = item.payload["left"] == item.gold["winner"]
            choice = "left" if good_left == check_right else "right"
        elif prefer:
            left = item.payload["left"]
            shown = [item.payload["conversations"][side]["model"] for side in (left, "b" if left == "a" else "a")]
            choice = "left" if prefer.index(shown[0]) < prefer.index(shown[1]) else "right"
        assert api.answer(item.pk, {"choice": choice, "reason": "my reason"}).status_code == 201
        answered += 1


def test_annotators_failing_check_pairs_are_left_out_of_the_results(tmp_path: Path, api: dict[str, Api], job: Job) -> None:
    import_pairs(tmp_path, [check_pair(0, "a"), check_pair(1, "b")], role="gold")
    Job.objects.filter(pk=job.pk).update(gold_rate=0.5)
    job.refresh_from_db()
    assert job.items.filter(role=ItemRole.GOLD).count() == 2
    answer_all(api["alice"], job, check_right=True)
    answer_all(api["bob"], job, check_right=False)
    assert Assignment.objects.filter(worker__external_id="bob", item__role=ItemRole.GOLD, status="submitted").exists()
    outcomes = pair_outcomes(job=job)
    assert outcomes and {o["worker"] for o in outcomes} == {api_worker("alice")}
    report = annotation_report(job=job)["pairwise"]
    assert [row["worker"] for row in report["excluded_annotators"]] == [api_worker("bob")]
    assert report["judgments"] == len(outcomes)
    assert set(report["leaderboard"]) == set(MODELS)
    assert sum(r["wins"] + r["losses"] for r in report["win_rates"]) == len(outcomes)


def api_worker(name: str) -> str:
    from collect.models import Worker

    return Worker.objects.get(external_id=name).pseudonym


def test_onboarding_with_known_answers_comes_first(tmp_path: Path, api: dict[str, Api], job: Job) -> None:
    import_pairs(tmp_path, [check_pair(0, "a"), check_pair(1, "b")], role="qualification")
    first = api["alice"].next(job).json()
    assert Item.objects.get(pk=first["item"]["id"]).role == ItemRole.QUALIFICATION
    assert first["progress"]["qualification"] == "pending"
    # bob gets both onboarding pairs wrong and is turned away before any real pair
    for _ in range(2):
        item = Item.objects.get(pk=api["bob"].next(job).json()["item"]["id"])
        wrong = "right" if item.payload["left"] == item.gold["winner"] else "left"
        assert api["bob"].answer(item.pk, {"choice": wrong, "reason": "guess"}).status_code == 201
    assert api["bob"].next(job).json()["status"] == "disqualified"


@pytest.mark.parametrize(
    ("data", "role", "message"),
    [
        ({"not": "a list"}, "task", "non-empty JSON list of conversations"),
        ([conversation("kb_bot", 0), {"id": "x", "model": "", "dialog": []}], "task", "conversation 1: model must be"),
        ([conversation("kb_bot", 0), {**conversation("b", 0), "speaker": "bot"}], "task", "conversation 1: speaker 'bot'"),
        ([conversation("kb_bot", 0), conversation("kb_bot", 1)], "task", "at least two models"),
        ([conversation("kb_bot", 0), conversation("kb_bot", 0) | {"model": "x"}], "task", "appears twice"),
        ([{"a": conversation("x", 0), "b": conversation("y", 0), "winner": "c"}], "gold", "pair 0: a check pair"),
    ],
)
def test_a_bad_file_is_refused_whole(tmp_path: Path, data, role: str, message: str) -> None:
    with pytest.raises(CommandError, match=message):
        import_pairs(tmp_path, data, role=role, job="bad")
    assert not Job.objects.filter(slug="bad").exists()


def test_the_job_report_page_shows_the_leaderboard(client, api: dict[str, Api], job: Job) -> None:
    from django.contrib.auth.models import User

    answer_all(api["alice"], job, check_right=True)
    url = f"/annotate/jobs/{job.slug}/report/"
    assert client.get(url).status_code == 302
    client.force_login(User.objects.create(username="rita", is_staff=True))
    page = client.get(url)
    html = page.content.decode()
    assert page.status_code == 200
    assert html.count('data-testid="leaderboard-row"') == 3 and html.count('data-testid="win-rate-row"') == 3
    # A handful of judgments per model: scores, battles, and no interval, rank or chart yet.
    assert html.count('data-testid="leaderboard-rank">–<') == 3 and html.count("none yet") == 3
    assert "once it has 10 judgments" in html and '"kind": "interval"' not in html


def test_a_job_saved_without_a_question_asks_the_default_one(api: dict[str, Api], job: Job) -> None:
    Job.objects.filter(pk=job.pk).update(question="")
    item = api["alice"].next(job).json()["item"]
    assert item["question"] == "Who would you prefer to talk to for a long conversation?"


def test_only_pairwise_jobs_ask_a_question(db) -> None:
    from annotate.services import AnnotationError
    from annotate.services.jobs import job_create

    with pytest.raises(AnnotationError, match="only pairwise jobs"):
        job_create(slug="r", name="r", kind="relevance", question="engaging")
    with pytest.raises(AnnotationError, match="question must be one of"):
        job_create(slug="p", name="p", kind="pairwise", question="funny")


def test_the_annotation_report_command_prints_the_pairwise_results(capsys, api: dict[str, Api], job: Job) -> None:
    answer_all(api["alice"], job, check_right=True)
    call_command("annotation_report", job.slug)
    out = capsys.readouterr().out
    assert "judgments   6 counted (knowledgeable)" in out
    assert out.count("win rate    ") == 3 and out.count("leaderboard ") == 3
