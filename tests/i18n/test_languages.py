"""A campaign's and a job's language: chosen in the admin (only where a complete catalog exists),
the worker pages rendered in it (lang, dir, texts), the browser's language only where allowed,
English for anything the catalog lacks, and staff pages left in English."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import translation
from django.utils.html import escape

from annotate.models import Job
from collect.models import Campaign, RoomStatus
from retrieval.models import KnowledgeSource
from tests.campaign_forms import campaign_form_data, personas_inline
from tests.catalogs import compiled_catalogs  # noqa: F401  (fixture)
from tests.collect.conftest import PairedRoom, campaign, paired  # noqa: F401  (fixtures)
from tests.collect.test_views import login

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("compiled_catalogs")]

ADD_URL = "/admin/collect/campaign/add/"


def campaign_form(source: KnowledgeSource, language: str) -> dict:
    return campaign_form_data(
        slug="zh-trial", name="Trial", protocol="wow", knowledge_source=source.pk, completion_code="ABCD1234",
        language=language, **personas_inline([]),
    )


@pytest.mark.parametrize(("language", "problem"), [("xx", "has no translation catalog"), ("ar", "is only a stub catalog"), ("", "This field is required")])
def test_the_admin_refuses_a_campaign_language_without_a_complete_catalog(
    admin_client: Client, knowledge: KnowledgeSource, language: str, problem: str
) -> None:
    response = admin_client.post(ADD_URL, campaign_form(knowledge, language))
    assert response.status_code == 200
    assert problem in response.content.decode()
    if language:
        assert escape("available: en, zh-hans") in response.content.decode()
    assert not Campaign.objects.filter(slug="zh-trial").exists()


def test_the_admin_saves_a_chinese_campaign(admin_client: Client, knowledge: KnowledgeSource) -> None:
    response = admin_client.post(ADD_URL, {**campaign_form(knowledge, "zh-hans"), "browser_language": "on"})
    assert response.status_code == 302, response.content.decode()[:2000]
    campaign = Campaign.objects.get(slug="zh-trial")
    assert (campaign.language, campaign.browser_language) == ("zh-hans", True)


def test_the_admin_refuses_a_job_language_without_a_catalog(admin_client: Client) -> None:
    page = admin_client.get("/admin/annotate/job/add/")
    assert 'name="language"' in page.content.decode()
    data = {"slug": "j1", "name": "J", "kind": "relevance", "overlap": 3, "reservation_seconds": 900, "threshold": 0.6,
            "gold_rate": 0, "qualification_min_score": 0.8, "review_min_gold_score": 0.7, "review_min_agreement": 0.5,
            "candidates": "{}", "plan": "{}", "max_judgments": 0, "outcome_codes": "{}", "platform": "inhouse",
            "max_items_per_worker": 0, "language": "xx"}
    response = admin_client.post("/admin/annotate/job/add/", data)
    assert response.status_code == 200 and "has no translation catalog" in response.content.decode()
    response = admin_client.post("/admin/annotate/job/add/", {**data, "language": "zh-hans"})
    assert response.status_code == 302, response.content.decode()[:2000]
    assert Job.objects.get(slug="j1").language == "zh-hans"


def test_a_chinese_campaign_renders_its_worker_pages_in_chinese(client: Client, paired: PairedRoom) -> None:
    Campaign.objects.filter(pk=paired.room.campaign_id).update(language="zh-hans")
    login(client, paired.wizard.worker)
    page = client.get(f"/room/{paired.room.pk}/")
    html = page.content.decode()
    assert page.status_code == 200 and page["Content-Language"] == "zh-hans"
    assert '<html lang="zh-hans" dir="ltr">' in html
    assert "你是向导" in html and "结束聊天" in html and "You are the Wizard" not in html
    assert '<script src="/jsi18n/zh-hans/"></script>' in html
    # A page the worker may not see says so in the campaign's language too.
    login(client, paired.outsider)
    refused = client.get(f"/room/{paired.room.pk}/")
    assert refused.status_code == 403 and "这不是你的聊天" in refused.content.decode()


def test_the_finish_page_gives_the_outcome_in_the_campaign_language(client: Client, paired: PairedRoom) -> None:
    Campaign.objects.filter(pk=paired.room.campaign_id).update(language="zh-hans")
    paired.room.status = RoomStatus.COMPLETE
    paired.room.save()
    login(client, paired.wizard.worker)
    html = client.get(f"/room/{paired.room.pk}/done/").content.decode()
    assert "对话已完成。感谢你的参与。" in html and "你的完成码" in html
    paired.wizard.assignment.refresh_from_db()
    assert paired.wizard.assignment.completion_code in html


@pytest.mark.parametrize(("allowed", "expected"), [(True, "zh-hans"), (False, "en")])
def test_the_browser_language_counts_only_where_the_campaign_allows_it(
    client: Client, paired: PairedRoom, allowed: bool, expected: str
) -> None:
    Campaign.objects.filter(pk=paired.room.campaign_id).update(language="en", browser_language=allowed)
    login(client, paired.wizard.worker)
    page = client.get(f"/room/{paired.room.pk}/", HTTP_ACCEPT_LANGUAGE="de-DE,de;q=0.9,zh-CN;q=0.8,en;q=0.5")
    assert f'<html lang="{expected}"' in page.content.decode()
    assert ("Accept-Language" in page.get("Vary", "")) is allowed
    # A browser asking only for languages with no catalog gets the campaign's (not English).
    Campaign.objects.filter(pk=paired.room.campaign_id).update(language="zh-hans")
    client.cookies["django_language"] = "en"  # a language cookie does not count: the campaign decides
    page = client.get(f"/room/{paired.room.pk}/", HTTP_ACCEPT_LANGUAGE="de-DE,de")
    assert '<html lang="zh-hans"' in page.content.decode()


def test_right_to_left_languages_set_dir(client: Client, paired: PairedRoom) -> None:
    Campaign.objects.filter(pk=paired.room.campaign_id).update(language="ar")  # a stub: set outside the admin
    login(client, paired.wizard.worker)
    html = client.get(f"/room/{paired.room.pk}/").content.decode()
    assert '<html lang="ar" dir="rtl">' in html
    assert "أنت الحكيم" in html
    assert "Wikipedia knowledge" in html  # not in the stub: English, never an empty label


def test_the_javascript_catalog_serves_the_language_asked_and_english_otherwise(client: Client) -> None:
    chinese = client.get("/jsi18n/zh-hans/")
    assert chinese.status_code == 200 and chinese["Content-Type"].startswith("text/javascript")
    assert "\\u6b63\\u5728\\u8fde\\u63a5\\u2026" in chinese.content.decode() or "正在连接…" in chinese.content.decode()
    unknown = client.get("/jsi18n/xx/")
    assert unknown.status_code == 200 and "django.gettext" in unknown.content.decode()
    assert "正在连接" not in unknown.content.decode() and "\\u6b63\\u5728" not in unknown.content.decode()


def test_a_string_missing_from_the_catalog_falls_back_to_english() -> None:
    with translation.override("zh-hans"):
        assert translation.gettext("Send") == "发送"
        assert translation.gettext("A sentence no catalog has.") == "A sentence no catalog has."


def test_staff_pages_stay_in_english(admin_client: Client, paired: PairedRoom) -> None:
    Campaign.objects.filter(pk=paired.room.campaign_id).update(language="zh-hans", browser_language=True)
    page = admin_client.get(f"/research/{paired.room.campaign.slug}/dashboard/", HTTP_ACCEPT_LANGUAGE="zh-CN")
    assert page.status_code == 200 and '<html lang="en-us"' in page.content.decode()


@pytest.mark.parametrize(("seconds", "english", "chinese"), [(300, "up to 5 minutes", "最多寻找 5 分钟"), (60, "up to 60 seconds", "最多寻找 60 秒")])
def test_the_waiting_page_says_how_long_it_looks_in_the_campaign_language(
    client: Client, campaign: Campaign, seconds: int, english: str, chinese: str
) -> None:
    Campaign.objects.filter(pk=campaign.pk).update(wait_timeout_seconds=seconds)
    waiting = client.get(f"/join/{campaign.slug}/?worker=dora")
    assert english in client.get(waiting.url).content.decode()
    Campaign.objects.filter(pk=campaign.pk).update(language="zh-hans")
    html = client.get(waiting.url).content.decode()
    assert chinese in html and "离开" not in html and "退出研究" in html


def test_a_join_refused_for_its_rate_says_so_in_the_campaign_language(settings, campaign: Campaign) -> None:
    from tests.security.test_rate_limits import AWAY, LONG, limits

    limits(settings, joins={"ip": (1, LONG)})
    Campaign.objects.filter(pk=campaign.pk).update(language="zh-hans")
    assert Client(REMOTE_ADDR=AWAY).get(f"/join/{campaign.slug}/", {"worker": "w1"}).status_code == 302
    refused = Client(REMOTE_ADDR=AWAY).get(f"/join/{campaign.slug}/", {"worker": "w2"})
    assert refused.status_code == 429
    html = refused.content.decode()
    assert "请求太多" in html and f"请等待 {refused['Retry-After']} 秒后再试" in html and "Too many" not in html
