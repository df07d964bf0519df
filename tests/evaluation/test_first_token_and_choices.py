"""The results of a model-chat campaign carry each model's time to first token (p50/p95), and, in
a campaign showing several models' replies per turn, a leaderboard of the evaluators' picks: in
eval_report's JSON and text and on the staff results page."""

from __future__ import annotations

import io
import json

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from annotate.kinds.pairwise.evaluation.results import percentile
from collect.models import Room
from collect.tasktypes.modelchat.models import EvalModel, ModelCandidate, ModelTurn
from tests.evaluation.campaign import make_campaign, populate

pytestmark = pytest.mark.django_db


def test_percentiles_interpolate_between_ranks() -> None:
    assert percentile([], 50) is None and percentile([7], 95) == 7
    assert percentile([100, 200, 300, 400], 50) == 250 and percentile(list(range(1, 101)), 95) == pytest.approx(95.05)


def picks(campaign, winner: str, losers: list[str], times: int) -> None:
    """`times` turns in which the evaluator picked `winner`'s reply over the `losers`' replies."""
    room = Room.objects.filter(campaign=campaign).first()
    for _ in range(times):
        after = 100 + ModelCandidate.objects.filter(room=room).values("after_seq").distinct().count()
        for position, name in enumerate([winner, *losers]):
            ModelCandidate.objects.create(
                room=room, after_seq=after, position=position, model=EvalModel.objects.get_or_create(name=name, defaults={"dotted_path": "x.Y"})[0],
                text=f"{name} says hi", latency_ms=100, picked=position == 0, picked_at=timezone.now() if position == 0 else None,
            )


def test_the_report_has_time_to_first_token_and_the_picks_leaderboard(client: Client) -> None:
    campaign = make_campaign()
    populate(campaign)
    for turn, first in zip(ModelTurn.objects.filter(model__name="good-bot").order_by("pk"), [100, 200, 300, 400, 500, 600]):
        turn.first_token_ms = first
        turn.save(update_fields=["first_token_ms"])
    picks(campaign, "good-bot", ["bad-bot"], 12)
    picks(campaign, "bad-bot", ["good-bot"], 2)

    out = io.StringIO()
    call_command("eval_report", "eval-mc", "--json", "--rounds", "50", stdout=out)
    data = json.loads(out.getvalue())
    good, bad = data["models"]["good-bot"]["all"], data["models"]["bad-bot"]["all"]
    assert good["first_token_ms"] == {"n": 6, "p50": 350, "p95": pytest.approx(575)}
    assert bad["first_token_ms"] == {"n": 0, "p50": None, "p95": None}  # stored before times to first token
    choices = data["choices"]
    assert choices["judgments"] == 14 and list(choices["leaderboard"]) == ["good-bot", "bad-bot"]
    (rate,) = choices["win_rates"]
    assert (rate["model_a"], rate["model_b"], rate["wins"], rate["losses"]) == ("bad-bot", "good-bot", 2, 12)

    text = io.StringIO()
    call_command("eval_report", "eval-mc", "--rounds", "50", stdout=text)
    assert "first token p50/p95 350/575 ms" in text.getvalue()
    assert "the evaluators' picks among several replies (14 judgments)" in text.getvalue()

    client.force_login(User.objects.create(username="rita", is_staff=True))
    html = client.get("/annotate/results/eval-mc/").content.decode()
    assert "350 / 575 ms" in html and 'data-testid="choices-board"' in html


def test_a_campaign_without_picks_has_no_choices_board(client: Client) -> None:
    populate(make_campaign())
    out = io.StringIO()
    call_command("eval_report", "eval-mc", "--json", "--rounds", "10", stdout=out)
    assert json.loads(out.getvalue())["choices"] is None
    client.force_login(User.objects.create(username="rita", is_staff=True))
    assert 'data-testid="choices-board"' not in client.get("/annotate/results/eval-mc/").content.decode()
