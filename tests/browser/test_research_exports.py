"""Exports from /research/ in a real browser: a researcher exports every dataset kind the site
holds (campaigns and annotation jobs) and downloads files byte-identical to the commands' output;
a signed-in user who is not staff gets 403 on the page, the start endpoint and the download."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
from django.utils.crypto import get_random_string
from playwright.sync_api import Browser, Page, expect

from annotate.kinds.dialog_acts.exporter import export_curiosity_acts
from annotate.models import Job
from collect.models import Campaign
from research.runs import export_run_create, export_run_execute
from research.targets import export_target_for_campaign
from tests.backup.every_kind import ACTS_JOB, site_fill

pytestmark = [pytest.mark.backends, pytest.mark.browser]
PASSWORD = "correct horse battery"


@pytest.fixture
def every_kind(settings, tmp_path: Path, wow_campaign) -> Path:
    # Before the server is forked (daphne_server): exports and fact dbs go under this var/.
    settings.VAR_DIR = tmp_path / "var"
    settings.CELERY_TASK_ALWAYS_EAGER = True  # exports run in the server process: no worker here
    site_fill(tmp_path / "site")
    duconv = Campaign.objects.get(protocol="duconv").slug
    call_command("create_annotation_job", "bk-eval", "--kind", "duconv_eval", "--campaign", duconv, stdout=io.StringIO())
    return tmp_path


def command_files(out: Path, kind: str, slug: str) -> dict[str, bytes]:
    """What the shell writes for this campaign or job."""
    if kind == "campaign":
        dataset = {"wow": "wow", "curiosity": "curiosity", "duconv": "duconv", "model_chat": "modelchat"}[Campaign.objects.get(slug=slug).protocol]
        args = [dataset, "--campaign", slug]
    else:
        job = Job.objects.get(slug=slug)
        if slug == ACTS_JOB:
            out.mkdir(parents=True)
            export_curiosity_acts(job=job, path=out / f"{slug}_curiosity_dialogs.json")
            return {p.name: p.read_bytes() for p in out.iterdir()}
        if job.kind == "duconv_eval":
            printed = io.StringIO()
            call_command("annotation_report", slug, "--json", stdout=printed)
            return {f"{slug}-report.json": printed.getvalue().encode()}
        if job.kind == "relevance":
            args = ["wowpp", "--job", slug]
        else:
            dataset = "curiosity" if job.kind == "dialog_acts" else "modelchat"
            args = [dataset, *[a for c in job.source["campaigns"] for a in ("--campaign", c)]]
    call_command("export_dataset", *args, "--out", str(out), stdout=io.StringIO())
    return {p.name: p.read_bytes() for p in sorted(out.iterdir()) if p.is_file()}


def log_in(page: Page, server: str) -> None:
    page.goto(f"{server}/research/")
    page.fill("#id_username", "rita")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    expect(page.get_by_test_id("campaigns")).to_be_visible()


def test_staff_export_every_dataset_with_the_commands_bytes(every_kind: Path, browser: Browser, daphne_server: str) -> None:
    User.objects.create_user("rita", password=PASSWORD, is_staff=True)
    targets = [("campaign", s) for s in ("bk-wow", "bk-curiosity", "eval-mc")]
    targets += [("campaign", Campaign.objects.get(protocol="duconv").slug)]
    targets += [("job", s) for s in ("bk-relevance", "bk-wowpp", "bk-acts", ACTS_JOB, "bk-pairs", "bk-eval")]
    page = browser.new_context(accept_downloads=True).new_page()
    log_in(page, daphne_server)
    for kind, slug in targets:
        expected = command_files(every_kind / "command" / slug, kind, slug)
        assert expected, (kind, slug)
        page.goto(f"{daphne_server}/research/")
        page.get_by_test_id(f"export-{kind}-{slug}").click()
        expect(page.get_by_test_id("export-status")).to_contain_text("done", timeout=60_000)
        links = page.get_by_test_id("export-files").locator("a")
        names = [links.nth(i).inner_text() for i in range(links.count())]
        assert names == sorted(expected), (slug, names)
        for i, name in enumerate(names):
            with page.expect_download() as download:
                links.nth(i).click()
            assert Path(download.value.path()).read_bytes() == expected[name], (slug, name)


def test_a_signed_in_non_staff_user_gets_403(every_kind: Path, browser: Browser, daphne_server: str) -> None:
    User.objects.create_user("rita", password=PASSWORD, is_staff=True)
    staff = Client()
    staff.force_login(User.objects.get(username="rita"))
    run = staff.post("/research/exports/start/", {"kind": "campaign", "slug": "bk-wow"})["Location"]
    outsider = Client()
    outsider.force_login(User.objects.create_user("olly", password=PASSWORD))
    csrf = get_random_string(32)  # a valid CSRF cookie, so that only the staff check can refuse the POST
    context = browser.new_context()
    context.add_cookies([
        {"name": django_settings.SESSION_COOKIE_NAME, "value": outsider.cookies[django_settings.SESSION_COOKIE_NAME].value, "url": daphne_server},
        {"name": django_settings.CSRF_COOKIE_NAME, "value": csrf, "url": daphne_server},
    ])
    page = context.new_page()
    assert page.goto(f"{daphne_server}/research/").status == 403
    expect(page.locator("body")).to_contain_text("Staff only")
    assert page.goto(f"{daphne_server}{run}").status == 403
    assert page.request.get(f"{daphne_server}{run}files/train.json").status == 403
    form = {"kind": "campaign", "slug": "bk-wow", "csrfmiddlewaretoken": csrf}
    started = page.request.post(f"{daphne_server}/research/exports/start/", form=form, headers={"Referer": f"{daphne_server}/research/"})
    assert started.status == 403 and "Staff only" in started.text(), started.text()[:300]


def test_the_export_page_follows_a_running_export_to_its_files(every_kind: Path, browser: Browser, daphne_server: str) -> None:
    """A worker's export (here: run by the test once the page is open) shows up on the page
    without a reload by hand: queued, then the files with their download links."""
    User.objects.create_user("rita", password=PASSWORD, is_staff=True)
    target = export_target_for_campaign(campaign=Campaign.objects.get(slug="bk-wow"))
    run_id = export_run_create(target=target, staff="rita")
    page = browser.new_context(accept_downloads=True).new_page()
    log_in(page, daphne_server)
    page.goto(f"{daphne_server}/research/exports/{run_id}/")
    expect(page.get_by_test_id("export-status")).to_contain_text("queued")
    expect(page.get_by_test_id("export-files")).to_be_hidden()
    export_run_execute(run_id=run_id, target=target)
    expect(page.get_by_test_id("export-status")).to_contain_text("done", timeout=30_000)
    expected = command_files(every_kind / "command", "campaign", "bk-wow")
    links = page.get_by_test_id("export-files").locator("a")
    expect(links).to_have_count(len(expected))
    with page.expect_download() as download:
        page.get_by_test_id("export-archive").click()
    with zipfile.ZipFile(download.value.path()) as archive:
        assert {name: archive.read(name) for name in archive.namelist()} == expected
