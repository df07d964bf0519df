"""A pairwise job whose judgments never link two groups of models: its report (page and command)
ranks each group on its own, orders no group against another and names the judgments that would
connect them."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client

from annotate.models import Job
from annotate.selectors.report import annotation_report
from collect.models import Worker
from tests.annotate.judged_pairs import judge, pairwise_job

pytestmark = pytest.mark.django_db


@pytest.fixture
def apart() -> Job:
    """alpha–beta and delta–gamma, 20 judgments each (the first model wins 18), never across."""
    job = pairwise_job("apart", {("alpha", "beta"): 20, ("delta", "gamma"): 20})
    worker = Worker.objects.create(external_id="judge")
    wins: dict[tuple[str, str], int] = {}
    while True:
        def winner(a: str, b: str) -> str:
            wins[(a, b)] = wins.get((a, b), 0) + 1
            return "a" if wins[(a, b)] <= 18 else "b"

        if judge(job, worker, winner) is None:
            return job


def test_the_report_ranks_each_group_on_its_own(apart: Job) -> None:
    pairwise = annotation_report(job=apart)["pairwise"]
    board = pairwise["leaderboard"]
    assert {name: (row["group"], row["rank"]) for name, row in board.items()} == {
        "alpha": (1, 1), "beta": (1, 2), "delta": (2, 1), "gamma": (2, 2)
    }
    assert [group["models"] for group in pairwise["groups"]] == [["alpha", "beta"], ["delta", "gamma"]]
    assert pairwise["connect"] == [{"groups": [1, 2], "model_a": "alpha", "model_b": "delta"}]


def test_the_report_page_shows_the_groups_apart(client: Client, apart: Job) -> None:
    client.force_login(User.objects.create(username="rita", is_staff=True))
    page = client.get(f"/annotate/jobs/{apart.slug}/report/").content.decode()
    assert 'data-testid="leaderboard-groups"' in page and "the groups cannot be ordered" in page
    assert re.search(r"judge <code>alpha</code> vs\s+<code>delta</code> \(group 1 – group 2\)", page)
    assert page.count('data-testid="leaderboard-table"') == 2
    rows = re.findall(r'data-model="(\w+)" data-group="(\d)">\s*<td data-testid="leaderboard-rank">(.)<', page)
    assert rows == [("alpha", "1", "1"), ("beta", "1", "2"), ("delta", "2", "1"), ("gamma", "2", "2")]
    # One chart per group: on one axis the groups' intervals would read as an order.
    assert "Bradley–Terry scores with 95% bootstrap intervals, group 1" in page
    assert "Bradley–Terry scores with 95% bootstrap intervals, group 2" in page


def test_the_report_command_says_so(capsys, apart: Job) -> None:
    call_command("annotation_report", apart.slug)
    out = capsys.readouterr().out
    assert "leaderboard group 1  1. alpha" in out and "leaderboard group 2  1. delta" in out
    assert "note        These judgments form 2 groups" in out and "judge alpha vs delta" in out
