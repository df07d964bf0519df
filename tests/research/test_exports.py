"""Exports from /research/: staff start one, get the command's bytes; everyone else is refused."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client

from tests.collect.test_export_wow import wow_room
from tests.factories import make_campaign

pytestmark = pytest.mark.django_db


@pytest.fixture
def var_dir(settings, tmp_path: Path) -> Path:
    settings.VAR_DIR = tmp_path / "var"
    settings.CELERY_TASK_ALWAYS_EAGER = True  # the export runs in the request (test_export_worker.py: on a worker)
    return settings.VAR_DIR


@pytest.fixture
def wow(var_dir):
    campaign = make_campaign(slug="ex-wow", protocol="wow")
    for n, topic in enumerate(["Blues", "Jazz", "Guitar", "Tea"]):
        wow_room(campaign, topic=topic, marker=f"room {n}")
    return campaign


def staff_client() -> Client:
    client = Client()
    client.force_login(User.objects.create_user("rita", password="x", is_staff=True))
    return client


def outsider_client() -> Client:
    client = Client()
    client.force_login(User.objects.create_user("olly", password="x"))
    return client


def command_files(tmp_path: Path, *args: str) -> dict[str, bytes]:
    out = tmp_path / "command"
    call_command("export_dataset", *args, "--out", str(out), stdout=io.StringIO())
    return {p.name: p.read_bytes() for p in sorted(out.iterdir()) if p.is_file()}


def test_it_exports_a_campaign_with_the_commands_bytes(wow, tmp_path: Path) -> None:
    client = staff_client()
    index = client.get("/research/")
    assert index.status_code == 200
    assert b'data-testid="export-campaign-ex-wow"' in index.content

    started = client.post("/research/exports/start/", {"kind": "campaign", "slug": "ex-wow"})
    assert started.status_code == 302
    page = client.get(started["Location"])
    assert page.status_code == 200
    assert b"manage.py export_dataset wow --campaign ex-wow --out DIR" in page.content
    run_id = started["Location"].rstrip("/").rsplit("/", 1)[1]
    status = client.get(f"/research/exports/{run_id}/status/").json()
    assert status["status"] == "done" and status["written"] == 4

    expected = command_files(tmp_path, "wow", "--campaign", "ex-wow")
    assert [f["name"] for f in status["files"]] == sorted(expected)
    for name, body in expected.items():
        response = client.get(f"/research/exports/{run_id}/files/{name}")
        assert response.status_code == 200
        assert b"".join(response.streaming_content) == body, name
    archive = client.get(f"/research/exports/{run_id}/files/ex-wow-wow.zip")
    with zipfile.ZipFile(io.BytesIO(b"".join(archive.streaming_content))) as zipped:
        assert {n: zipped.read(n) for n in zipped.namelist()} == expected


def test_it_refuses_everyone_but_staff(wow) -> None:
    started = staff_client().post("/research/exports/start/", {"kind": "campaign", "slug": "ex-wow"})
    run = started["Location"]
    file_url = f"{run}files/train.json"
    outsider = outsider_client()
    assert outsider.get("/research/").status_code == 403
    assert outsider.get("/research/exports/").status_code == 403
    assert outsider.post("/research/exports/start/", {"kind": "campaign", "slug": "ex-wow"}).status_code == 403
    assert outsider.get(run).status_code == 403
    assert outsider.get(f"{run}status/").status_code == 403
    assert outsider.get(file_url).status_code == 403
    anonymous = Client()
    for url in ("/research/", run, file_url):
        response = anonymous.get(url)
        assert response.status_code == 302 and response["Location"].startswith("/admin/login/")
    assert anonymous.post("/research/exports/start/", {"kind": "campaign", "slug": "ex-wow"}).status_code == 302
    assert staff_client_again().get(file_url).status_code == 200


def staff_client_again() -> Client:
    client = Client()
    client.force_login(User.objects.get(username="rita"))
    return client


def test_it_says_what_was_wrong_with_a_request(wow) -> None:
    client = staff_client()
    refused = client.post("/research/exports/start/", {"kind": "campaign", "slug": "nope"})
    assert refused.status_code == 400 and "There is no campaign “nope”".encode() in refused.content
    assert client.post("/research/exports/start/", {"kind": "table", "slug": "ex-wow"}).status_code == 400
    assert client.get("/research/exports/start/").status_code == 405
    run = client.post("/research/exports/start/", {"kind": "campaign", "slug": "ex-wow"})["Location"]
    assert client.get(f"{run}files/../run.json").status_code == 404
    assert client.get(f"{run}files/run.json").status_code == 404
    assert client.get("/research/exports/00000000-0000-0000-0000-000000000000/").status_code == 404


def test_a_duconv_evaluation_job_exports_its_report_as_the_command_prints_it(var_dir, tmp_path: Path) -> None:
    import json

    from collect.models import Campaign
    from tests.backup.every_kind import DUCONV_SESSIONS

    sessions = tmp_path / "dev.txt"
    sessions.write_text("".join(json.dumps(s, ensure_ascii=False) + "\n" for s in DUCONV_SESSIONS), encoding="utf-8")
    call_command("import_dataset", "duconv", str(sessions), stdout=io.StringIO())
    campaign = Campaign.objects.get(protocol="duconv")
    call_command("create_annotation_job", "ex-eval", "--kind", "duconv_eval", "--campaign", campaign.slug, stdout=io.StringIO())
    printed = io.StringIO()
    call_command("annotation_report", "ex-eval", "--json", stdout=printed)

    client = staff_client()
    assert b'data-testid="export-job-ex-eval"' in client.get("/research/").content
    run = client.post("/research/exports/start/", {"kind": "job", "slug": "ex-eval"})["Location"]
    status = client.get(f"{run}status/").json()
    assert status["status"] == "done" and [f["name"] for f in status["files"]] == ["ex-eval-report.json"]
    body = b"".join(client.get(f"{run}files/ex-eval-report.json").streaming_content)
    assert body == printed.getvalue().encode()


@pytest.mark.parametrize("dataset", ["wow", "duconv", "modelchat"])
def test_every_campaign_exporter_reports_its_progress(var_dir, dataset: str, tmp_path: Path) -> None:
    """Items are counted as they are written (what the export page shows while a worker runs)."""
    from collect.exporters import ExportOptions, export_dataset, export_progress

    if dataset == "wow":
        campaign = make_campaign(slug="ex-progress", protocol="wow")
        for n, topic in enumerate(["Blues", "Jazz", "Tea"]):
            wow_room(campaign, topic=topic, marker=f"room {n}")
    elif dataset == "duconv":
        import json

        from tests.backup.every_kind import DUCONV_SESSIONS

        sessions = tmp_path / "dev.txt"
        sessions.write_text("".join(json.dumps(s, ensure_ascii=False) + "\n" for s in DUCONV_SESSIONS), encoding="utf-8")
        call_command("import_dataset", "duconv", str(sessions), stdout=io.StringIO())
    else:
        from tests.evaluation.campaign import make_campaign as make_modelchat_campaign, populate

        populate(make_modelchat_campaign())
    ticks: list[int] = []
    token = export_progress.set(lambda: ticks.append(1))
    try:
        result = export_dataset(dataset, tmp_path / "out", ExportOptions())
    finally:
        export_progress.reset(token)
    rooms = result.total if dataset != "modelchat" else result.counts[next(iter(result.counts))]
    assert len(ticks) == rooms > 0


def test_a_model_chat_export_says_what_it_wrote_and_serves_jsonl_as_json_lines(var_dir) -> None:
    from collect.models import Campaign
    from tests.evaluation.campaign import make_campaign as make_modelchat_campaign, populate

    populate(make_modelchat_campaign())
    slug = Campaign.objects.get(protocol="model_chat").slug
    client = staff_client()
    run = client.post("/research/exports/start/", {"kind": "campaign", "slug": slug})["Location"]
    status = client.get(f"{run}status/").json()
    assert status["status"] == "done"
    page = client.get(run).content.decode()
    # The estimate counts rooms; the export writes a record per model conversation and more.
    assert f"{status['written']} item(s) written" in page and "of about" not in page
    jsonl = [f["name"] for f in status["files"] if f["name"].endswith(".jsonl")]
    assert jsonl
    response = client.get(f"{run}files/{jsonl[0]}")
    assert response["Content-Type"] == "application/jsonl"


def test_it_exports_a_campaign_for_hugging_face_as_the_command_does(wow, tmp_path: Path) -> None:
    client = staff_client()
    assert b'data-testid="export-campaign-ex-wow-hf"' in client.get("/research/").content
    started = client.post("/research/exports/start/", {"kind": "campaign", "slug": "ex-wow", "format": "hf"})
    assert started.status_code == 302
    run = started["Location"]
    assert b"manage.py export_dataset wow --format hf --campaign ex-wow --out DIR" in client.get(run).content
    status = client.get(f"{run}status/").json()
    assert status["status"] == "done" and status["written"] == 4

    out = tmp_path / "command-hf"
    call_command("export_dataset", "wow", "--format", "hf", "--campaign", "ex-wow", "--out", str(out), stdout=io.StringIO())
    expected = {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file() and not p.name.startswith(".")}
    assert [f["name"] for f in status["files"]] == sorted(expected)
    assert "README.md" in expected and "conformance.json" in expected and any(n.startswith("wow/train-") for n in expected)
    for name in expected:  # the Parquet files too: `datasets` writes the same rows to the same bytes
        assert b"".join(client.get(f"{run}files/{name}").streaming_content) == expected[name], name
    archive = client.get(f"{run}files/ex-wow-wow-hf.zip")
    with zipfile.ZipFile(io.BytesIO(b"".join(archive.streaming_content))) as zipped:
        assert sorted(zipped.namelist()) == sorted(expected)
        assert zipped.read("README.md") == expected["README.md"]


def test_the_hugging_face_export_is_refused_to_everyone_but_staff_and_to_datasets_without_one(wow) -> None:
    form = {"kind": "campaign", "slug": "ex-wow", "format": "hf"}
    outsider = outsider_client()
    assert outsider.post("/research/exports/start/", form).status_code == 403
    anonymous = Client().post("/research/exports/start/", form)
    assert anonymous.status_code == 302 and anonymous["Location"].startswith("/admin/login/")
    client = staff_client()
    assert client.post("/research/exports/start/", {**form, "format": "xml"}).status_code == 400
    from tests.annotate.conftest import make_job

    make_job("dialog_acts", slug="ex-job")  # Curiosity's dialog-act files have no Hugging Face export
    refused = client.post("/research/exports/start/", {"kind": "job", "slug": "ex-job", "format": "hf"})
    assert refused.status_code == 400 and "There is no job “ex-job” with a Hugging Face export." in refused.content.decode()
    assert b'data-testid="export-job-ex-job-hf"' not in client.get("/research/").content
    run = staff_client_again().post("/research/exports/start/", form)["Location"]
    assert outsider.get(f"{run}files/README.md").status_code == 403
    assert outsider.get(f"{run}status/").status_code == 403


def test_a_relevance_job_exports_for_hugging_face_as_the_command_does_for_staff_only(var_dir, tmp_path: Path) -> None:
    from collect.models import Worker
    from tests.annotate.conftest import make_job
    from tests.annotate.test_wowpp import vote

    job = make_job("relevance", items=1, overlap=2, slug="ex-rel")
    for name in ("alice", "bob"):
        vote(job, Worker.objects.create(external_id=name), [0])
    form = {"kind": "job", "slug": "ex-rel", "format": "hf"}
    assert outsider_client().post("/research/exports/start/", form).status_code == 403
    assert Client().post("/research/exports/start/", form)["Location"].startswith("/admin/login/")
    client = staff_client()
    assert b'data-testid="export-job-ex-rel-hf"' in client.get("/research/").content
    run = client.post("/research/exports/start/", form)["Location"]
    assert b"manage.py export_dataset wowpp --format hf --job ex-rel --out DIR" in client.get(run).content
    status = client.get(f"{run}status/").json()
    assert status["status"] == "done", status
    out = tmp_path / "command-hf"
    call_command("export_dataset", "wowpp", "--format", "hf", "--job", "ex-rel", "--out", str(out), stdout=io.StringIO())
    expected = {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file() and not p.name.startswith(".")}
    assert [f["name"] for f in status["files"]] == sorted(expected) and "README.md" in expected
    for name in expected:
        assert b"".join(client.get(f"{run}files/{name}").streaming_content) == expected[name], name
