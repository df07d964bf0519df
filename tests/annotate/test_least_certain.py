"""create_annotation_job --least-certain N: a relevance job drawn from the contexts where the live
ranker's two best sentences score closest, instead of every context."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotate.models import Item, Job
from retrieval.rankers import Candidate
from retrieval.rankers.load import live_ranker
from collect.models import RoomStatus
from tests.factories import add_message, make_campaign, make_room
from tests.retrieval.retrain_fixtures import ranker_dir  # noqa: F401 - a fixture

pytestmark = pytest.mark.django_db


CLEAR = ["Volcanoes erupt molten lava.", "Bread is baked in ovens.", "The river floods each spring."]
TIED = ["Island{n} ferries sail to the harbour daily.", "Harbour ferries of Island{n} sail daily."]


def rooms(campaign, n: int, *, tied: bool) -> None:
    """One wizard turn each: a panel where one sentence answers the question, or two that answer it equally."""
    room = make_room(campaign, topic=f"Island{n}", topic_passage=[], first_speaker="apprentice", status=RoomStatus.COMPLETE)
    add_message(room, "apprentice", f"Do ferries sail from Island{n} to the harbour daily?")
    sentences = [t.format(n=n) for t in TIED] if tied else [TIED[0].format(n=n), *CLEAR]
    shown = [{"source": "partner", "passage": 0, "title": f"Island{n}", "sentences": sentences + CLEAR[:1]}]
    add_message(room, "wizard", "Yes.", knowledge_shown=shown, checked_sentence={f"partner_Island{n}_0": sentences[0]},
                checked_passage={f"partner_0_Island{n}": f"Island{n}"})


def margin(item: Item) -> float:
    payload = item.payload
    candidates = [Candidate(c["article"], c["sentence"]) for c in payload["candidates"]]
    scores = sorted(live_ranker().score(payload["turns"][-4:], candidates, topic=payload["topic"]), reverse=True)
    return float(scores[0] - scores[1])


def test_it_adds_the_contexts_the_live_ranker_is_least_sure_of(ranker_dir: Path) -> None:
    campaign = make_campaign(slug="wow-a")
    for n in range(12):
        rooms(campaign, n, tied=n % 4 == 3)  # the 4th, 8th and 12th are the uncertain ones
    call_command("create_annotation_job", "every", "--kind", "relevance", "--campaign", "wow-a", stdout=io.StringIO())
    rankable = [i for i in Item.objects.filter(job__slug="every").order_by("position") if len(i.payload["candidates"]) >= 2]
    every = sorted(rankable, key=margin)
    out = io.StringIO()
    call_command("create_annotation_job", "active", "--kind", "relevance", "--campaign", "wow-a", "--least-certain", "3", stdout=out)

    chosen = list(Item.objects.filter(job__slug="active").order_by("position"))
    assert "added 3 item(s)" in out.getvalue()
    assert [i.payload["topic"] for i in chosen] == ["Island3", "Island7", "Island11"]
    assert {i.key for i in chosen} == {i.key for i in every[:3]} != {i.key for i in rankable[:3]}
    assert max(margin(i) for i in chosen) <= min(margin(i) for i in every[3:])
    assert Job.objects.get(slug="active").source["selection"] == "least certain by shipped-lexical"
    # Run again: the next least certain among those the job lacks.
    call_command("create_annotation_job", "active", "--kind", "relevance", "--campaign", "wow-a", "--least-certain", "2", stdout=out)
    assert {i.key for i in Item.objects.filter(job__slug="active")} == {i.key for i in every[:5]}


def test_it_is_refused_for_other_kinds_and_bad_numbers(ranker_dir: Path) -> None:
    make_campaign(slug="wow-a")
    for args in (["--kind", "dialog_acts", "--least-certain", "3"], ["--kind", "relevance", "--least-certain", "0"]):
        with pytest.raises(CommandError, match="--least-certain takes --kind relevance"):
            call_command("create_annotation_job", "job", "--campaign", "wow-a", *args, stdout=io.StringIO())
    assert not Job.objects.exists()
