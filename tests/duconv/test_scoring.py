"""The competition's human evaluation as an annotation job over DuConv dialogues: items carry the
automatic goal completion, answers are validated on the rubric's scales, agreement is weighted kappa."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command

from annotate.kinds.duconv_eval.scoring import RUBRIC, weighted_kappa
from annotate.models import Assignment, Job
from annotate.services import AnnotationError
from annotate.services.answers import answer_submit
from annotate.services.assignment import assignment_next
from annotate.services.jobs import job_create, job_items_from_campaigns
from collect.tasktypes.duconv.completion import goal_completion
from collect.models import Worker

pytestmark = pytest.mark.django_db


@pytest.fixture
def job(sample_path: Path) -> Job:
    call_command("import_dataset", "duconv", str(sample_path), "--job", "duconv-dev", verbosity=0)
    job = job_create(slug="duconv-eval", name="DuConv evaluation", kind="duconv_eval", overlap=2)
    job_items_from_campaigns(job=job, campaigns=["duconv-dev"])
    return job


def test_items_carry_the_dialogue_and_the_automatic_score(job: Job) -> None:
    assert job.items.count() == 200
    item = job.items.order_by("position").first()
    assert item.payload["goal"][0][0] == "START" and item.payload["messages"][0]["sender"] == "agent"
    assert item.payload["auto_goal_completion"] in (0, 1, 2)
    autos = [i.payload["auto_goal_completion"] for i in job.items.all()]
    assert autos.count(2) > 100  # most real DuConv sessions reach both topics with knowledge
    assert set(RUBRIC) == {"coherence", "goal_completion"} and len(RUBRIC["coherence"]) == 4


def test_answers_are_checked_against_the_rubric_scales(job: Job) -> None:
    alice = Worker.objects.create(external_id="alice")
    served = assignment_next(job=job, worker=alice).assignment.item
    for bad, code in (({"coherence": 4, "goal_completion": 1}, "bad_score"), ({"coherence": 2}, "bad_answer")):
        with pytest.raises(AnnotationError) as error:
            answer_submit(item_id=served.pk, worker=alice, scores=bad)
        assert error.value.code == code
    assert not Assignment.objects.filter(worker=alice, status="submitted").exists()
    answer_submit(item_id=served.pk, worker=alice, scores={"coherence": 3, "goal_completion": 2})
    assert Assignment.objects.get(worker=alice, item=served).answer == {"coherence": 3, "goal_completion": 2}


def test_weighted_kappa_rewards_near_misses() -> None:
    same = [("a", i, s) for i, s in enumerate([0, 1, 2, 3])] + [("b", i, s) for i, s in enumerate([0, 1, 2, 3])]
    assert weighted_kappa(same, top=3) == pytest.approx(1.0)
    near = [("a", i, s) for i, s in enumerate([0, 1, 2, 3])] + [("b", i, s) for i, s in enumerate([1, 1, 2, 2])]
    far = [("a", i, s) for i, s in enumerate([0, 1, 2, 3])] + [("b", i, s) for i, s in enumerate([3, 2, 1, 0])]
    assert weighted_kappa(far, top=3) == pytest.approx(-1.0)
    assert 0 < weighted_kappa(near, top=3) < 1
    assert weighted_kappa([("a", 1, 2)], top=3) is None


def test_goal_completion_follows_the_rubric() -> None:
    goal = [["START", "A片", "B君"], ["B君", "主演", "A片"]]
    knowledge = [["A片", "类型", "喜剧"], ["B君", "星座", "天秤座"], ["A片", "主演", "B君"]]
    assert goal_completion(goal, knowledge, ["你好", "B君 知道 吗", "A片 呢"]) == 0  # B before A
    assert goal_completion(goal, knowledge, ["A片 好看", "嗯", "B君 演 的"], [[], None, [2]]) == 1
    assert goal_completion(goal, knowledge, ["A片 是 喜剧", "嗯", "B君 是 天秤座"], [[0], None, [1]]) == 2
    # Without marks (imported sessions), values mentioned in the text count as used.
    assert goal_completion(goal, knowledge, ["A片 是 喜剧", "嗯", "B君 是 天秤座"]) == 2


from django.contrib.auth.models import User  # noqa: E402
from django.test import Client  # noqa: E402

from tests.annotate.conftest import api, people  # noqa: E402,F401 (fixtures)


def test_two_annotators_score_through_the_api_and_the_report_compares_with_the_computed_score(job: Job, api) -> None:  # noqa: F811
    scores = {"alice": [(3, 2), (2, 1), (1, 0)], "bob": [(3, 2), (1, 1), (0, 0)]}
    served = {}
    for name, answers in scores.items():
        for coherence, goal in answers:
            data = api[name].next(job).json()
            item = data["item"]
            assert "auto_goal_completion" not in item and item["goal"][0][0] == "START"
            served.setdefault(name, []).append(item["id"])
            response = api[name].answer(item["id"], {"scores": {"coherence": coherence, "goal_completion": goal}})
            assert response.status_code == 201, response.content
    assert served["alice"] == served["bob"]  # overlap 2: both score the same dialogues
    refused = api["alice"].answer(api["alice"].next(job).json()["item"]["id"], {"scores": {"coherence": 9, "goal_completion": 0}})
    assert refused.status_code == 400 and refused.json()["code"] == "bad_score"

    from annotate.selectors.report import annotation_report

    report = annotation_report(job=job)
    assert report["agreement"]["measure"] == "weighted_kappa" and 0 < report["agreement"]["value"] <= 1
    assert report["duconv"]["kappa"]["goal_completion"] == pytest.approx(1.0)
    rows = report["duconv"]["goal_completion"]
    assert [r["human_mean"] for r in rows] == [2.0, 1.0, 0.0] and all(r["auto"] in (0, 1, 2) for r in rows)
    staff = Client()
    staff.force_login(User.objects.create(username="rita", is_staff=True))
    page = staff.get(f"/annotate/jobs/{job.slug}/report/")
    assert page.status_code == 200 and b'data-testid="duconv-scores"' in page.content


def test_the_scoring_screen_shows_the_rubric(job: Job, client: Client) -> None:
    response = client.get(f"/annotate/join/{job.slug}/?worker=dora", follow=True)
    html = response.content.decode()
    assert response.status_code == 200 and "duconv_eval/screen.js" in html
    for text in (RUBRIC["coherence"][2], RUBRIC["goal_completion"][1]):
        assert text in html


def test_a_gold_item_scores_the_annotator_by_distance_to_the_known_scores(job: Job) -> None:
    from annotate.models import Item, ItemRole

    gold = job.items.order_by("position").first()
    Item.objects.filter(pk=gold.pk).update(role=ItemRole.GOLD, gold={"coherence": 3, "goal_completion": 2})
    Job.objects.filter(pk=job.pk).update(gold_rate=1.0)
    dora = Worker.objects.create(external_id="dora")
    served = assignment_next(job=Job.objects.get(pk=job.pk), worker=dora).assignment.item
    assert served.pk == gold.pk
    answer_submit(item_id=served.pk, worker=dora, scores={"coherence": 2, "goal_completion": 2})
    # One step off on the 0–3 scale, exact on the other: 1 − (1/3 + 0) / 2.
    assert Assignment.objects.get(worker=dora, item=served).score == pytest.approx(1 - (1 / 3) / 2)


def test_the_mean_kappa_names_the_scales_it_covers(job: Job, api) -> None:  # noqa: F811
    # Both annotators give every dialogue coherence 2: that scale's kappa is 0/0, undefined, and the
    # figure shown is goal completion's alone, said so on the page.
    for name, goals in {"alice": (2, 1, 0), "bob": (2, 1, 0)}.items():
        for goal in goals:
            item = api[name].next(job).json()["item"]
            assert api[name].answer(item["id"], {"scores": {"coherence": 2, "goal_completion": goal}}).status_code == 201

    from annotate.selectors.report import annotation_report

    agreement = annotation_report(job=job)["agreement"]
    assert agreement["scales"] == ["goal_completion"] and agreement["undefined_scales"] == ["coherence"]
    assert agreement["value"] == pytest.approx(1.0)
    staff = Client()
    staff.force_login(User.objects.create(username="rita", is_staff=True))
    page = staff.get(f"/annotate/jobs/{job.slug}/report/").content.decode()
    assert "weighted κ (quadratic, goal completion only; coherence undefined)" in page
    assert "mean of both scales" not in page
