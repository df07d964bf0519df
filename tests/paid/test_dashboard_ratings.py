"""The dashboard's rating charts are each task type's own ratings, titled by who rated whom: WoW's
apprentice rating of the wizard, DuConv's user rating of the agent, Curiosity's four ratings (kept
on its dialog, not on the room)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from collect.tasktypes.curiosity.models import CuriosityDialog
from collect.review.stats import campaign_stats
from tests.factories import make_campaign, make_room

pytestmark = pytest.mark.django_db


def charts(campaign) -> dict[str, dict[str, int]]:
    return {title: dict(counts) for title, counts in campaign_stats(campaign=campaign)["ratings"]}


def test_wow_and_duconv_rooms_rating_named_by_their_roles() -> None:
    wow = make_campaign(protocol="wow")
    for rating in (4, 5, 5):
        make_room(wow, status="complete", rating=rating)
    assert charts(wow) == {"Apprentice ratings of the wizard": {"1": 0, "2": 0, "3": 0, "4": 1, "5": 2}}
    duconv = make_campaign(protocol="duconv")
    make_room(duconv, status="complete", rating=2)
    assert charts(duconv) == {"User ratings of the agent": {"1": 0, "2": 1, "3": 0, "4": 0, "5": 0}}


def test_curiosity_shows_its_four_ratings_and_no_apprentice() -> None:
    campaign = make_campaign(protocol="curiosity")
    for user, assistant in ((5, 3), (4, None)):
        room = make_room(campaign, status="complete")
        CuriosityDialog.objects.create(
            room=room, user_dialog_rating=user, user_other_agent_rating=user, assistant_dialog_rating=assistant,
            assistant_other_agent_rating=assistant,
        )
    found = charts(campaign)
    assert list(found) == [
        "User ratings of the dialog", "User ratings of the assistant",
        "Assistant ratings of the dialog", "Assistant ratings of the user",
    ]
    assert found["User ratings of the dialog"] == {"1": 0, "2": 0, "3": 0, "4": 1, "5": 1}
    assert found["Assistant ratings of the user"] == {"1": 0, "2": 0, "3": 1, "4": 0, "5": 0}
    staff = Client()
    staff.force_login(User.objects.create(username="rita", is_staff=True))
    page = staff.get(f"/research/{campaign.slug}/dashboard/").content.decode()
    assert "User ratings of the assistant" in page and "Apprentice" not in page


def test_a_model_chat_shows_each_final_question_on_its_scale() -> None:
    from collect.tasktypes.modelchat.config import config_for
    from tests.evaluation.campaign import make_campaign as make_modelchat_campaign, populate

    campaign = make_modelchat_campaign()
    populate(campaign)
    questions = config_for(campaign).questions
    found = charts(campaign)
    assert list(found) == [f"Evaluator ratings: {q.text}" for q in questions]
    first = found[f"Evaluator ratings: {questions[0].text}"]
    assert list(first) == [str(v) for v in range(questions[0].low, questions[0].high + 1)] and sum(first.values()) > 0
