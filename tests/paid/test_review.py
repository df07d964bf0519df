"""Review and pay: decisions through the page and the API, all or nothing, refused cleanly."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from collect.models import Assignment, Decision, Outcome, Worker
from collect.models_paid import ReviewAction
from collect.review.selectors import decisions_csv, payments_csv, review_row
from tests.factories import add_message, make_campaign, make_room, make_worker

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff() -> Client:
    client = Client()
    client.force_login(User.objects.create_user("rita", password="x", is_staff=True, is_superuser=True))
    return client


@pytest.fixture
def finished():
    """A complete room (alice wizard, bob apprentice) and an unfinished one (carol)."""
    campaign = make_campaign(outcome_pay_cents={"completed": 300, "partner_left": 100})
    alice, bob = make_worker(external_id="alice-prolific"), make_worker(external_id="bob-prolific")
    room = make_room(campaign, wizard=alice, apprentice=bob, status="complete")
    add_message(room, "wizard", "Science fiction is a genre of speculative fiction.", checked_sentence={"chosen_Science_fiction_0": "Science fiction is a genre of speculative fiction."})
    add_message(room, "apprentice", "ok")
    Assignment.objects.filter(room=room).update(outcome=Outcome.COMPLETED, status="finished")
    live = make_room(campaign, wizard=make_worker(external_id="carol"))
    seats = {a.role: a for a in Assignment.objects.filter(room=room)}
    return campaign, seats["wizard"], seats["apprentice"], Assignment.objects.filter(room=live).first()


def api(client: Client, campaign, **body):
    return client.post(f"/api/research/campaigns/{campaign.slug}/review/", body, content_type="application/json")


def test_bulk_approve_then_bonus_through_the_api(staff: Client, finished) -> None:
    campaign, wizard, apprentice, _ = finished
    reply = api(staff, campaign, assignments=[wizard.pk, apprentice.pk], action="approve", message="Thanks!")
    assert reply.status_code == 200 and [d["provider_status"] for d in reply.json()["done"]] == ["recorded", "recorded"]
    reply = api(staff, campaign, assignments=[wizard.pk], action="bonus", amount_cents=150, message="Great knowledge use")
    assert reply.status_code == 200
    wizard.refresh_from_db()
    assert (wizard.decision, wizard.bonus_cents) == (Decision.APPROVED, 150)
    assert sorted(payments_csv(campaign=campaign, kind="approve").splitlines()) == ["alice-prolific", "bob-prolific"]
    assert payments_csv(campaign=campaign, kind="bonus") == "alice-prolific,1.50\n"
    listing = staff.get(f"/api/research/campaigns/{campaign.slug}/assignments/").json()["assignments"]
    row = next(r for r in listing if r["id"] == wizard.pk)
    assert row["approved"] and row["owed_cents"] == 300 + 150


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"action": "bonus", "amount_cents": 100}, "not_approved"),
        ({"action": "reject", "message": "  "}, "reason_required"),
        ({"action": "note", "message": ""}, "empty_note"),
    ],
)
def test_refused_actions_change_nothing(staff: Client, finished, body, code) -> None:
    campaign, wizard, apprentice, _ = finished
    reply = api(staff, campaign, assignments=[wizard.pk, apprentice.pk], **body)
    assert reply.status_code == 400 and reply.json()["code"] == code
    assert not ReviewAction.objects.exists()
    assert set(Assignment.objects.values_list("decision", "bonus_cents")) == {("", 0)}


def test_a_negative_bonus_is_refused(staff: Client, finished) -> None:
    campaign, wizard, *_ = finished
    api(staff, campaign, assignments=[wizard.pk], action="approve")
    for amount in (-100, 0):
        reply = api(staff, campaign, assignments=[wizard.pk], action="bonus", amount_cents=amount)
        assert reply.status_code == 400 and reply.json()["code"] == "bad_amount"
    assert Assignment.objects.get(pk=wizard.pk).bonus_cents == 0


def test_a_bulk_action_with_one_unfinished_assignment_changes_nothing(staff: Client, finished) -> None:
    campaign, wizard, _, live = finished
    reply = api(staff, campaign, assignments=[wizard.pk, live.pk], action="approve")
    assert reply.status_code == 400 and reply.json()["code"] == "not_finished"
    assert not Assignment.objects.exclude(decision="").exists()


def test_a_decision_is_final(staff: Client, finished) -> None:
    campaign, wizard, *_ = finished
    api(staff, campaign, assignments=[wizard.pk], action="reject", message="Did not use the knowledge")
    reply = api(staff, campaign, assignments=[wizard.pk], action="approve")
    assert reply.status_code == 400 and reply.json()["code"] == "already_decided"
    assert Assignment.objects.get(pk=wizard.pk).decision == Decision.REJECTED


def test_an_assignment_of_another_campaign_is_not_found(staff: Client, finished) -> None:
    campaign, wizard, *_ = finished
    other = make_campaign()
    reply = api(staff, other, assignments=[wizard.pk], action="approve")
    assert reply.status_code == 400 and reply.json()["code"] == "not_found"


def test_bad_input_is_a_400_with_a_clear_text(staff: Client, finished) -> None:
    campaign, wizard, *_ = finished
    assert api(staff, campaign, assignments=[], action="approve").status_code == 400
    reply = api(staff, campaign, assignments=[wizard.pk], action="pay_double")
    assert reply.status_code == 400 and "action" in reply.json()


def test_non_staff_cannot_review(finished) -> None:
    campaign, wizard, *_ = finished
    worker_client = Client()
    worker_client.force_login(User.objects.create_user("walter", password="x"))
    assert api(worker_client, campaign, assignments=[wizard.pk], action="approve").status_code == 403
    assert api(Client(), campaign, assignments=[wizard.pk], action="approve").status_code == 403
    assert worker_client.post(f"/research/{campaign.slug}/review/", {"assignment": [wizard.pk], "action": "approve"}).status_code == 302
    assert worker_client.get(f"/research/{campaign.slug}/csv/approve/").status_code == 302  # to the login page
    assert not Assignment.objects.exclude(decision="").exists()


def test_block_from_the_review_page_stops_the_next_join(staff: Client, finished) -> None:
    campaign, wizard, *_ = finished
    response = staff.post(f"/research/{campaign.slug}/review/", {"assignment": [wizard.pk], "action": "block", "message": "spam"})
    assert response.status_code == 302
    assert Worker.objects.get(pk=wizard.worker_id).blocked
    joined = Client().get(f"/join/{make_campaign().slug}/?worker={wizard.worker.external_id}")
    assert joined.status_code == 403


def test_the_review_page_shows_checks_and_refuses_bad_amounts(staff: Client, finished) -> None:
    campaign, wizard, apprentice, _ = finished
    page = staff.get(f"/research/{campaign.slug}/review/").content.decode()
    # The wizard pasted the checked sentence; the apprentice wrote a one-word message.
    assert "1 message(s) pasted from the knowledge" in page and "1 too-short message(s)" in page
    assert wizard.worker.pseudonym in page
    response = staff.post(f"/research/{campaign.slug}/review/", {"assignment": [wizard.pk], "action": "bonus", "amount": "lots"})
    assert response.status_code == 400 and b"must be a number" in response.content


def test_the_decisions_export_carries_pseudonyms_and_the_approved_flag(staff: Client, finished) -> None:
    campaign, wizard, apprentice, _ = finished
    api(staff, campaign, assignments=[wizard.pk], action="soft_reject", message="off topic")
    text = decisions_csv(campaign=campaign)
    assert "alice-prolific" not in text and wizard.worker.pseudonym in text
    rows = {line.split(",")[0]: line.split(",") for line in text.splitlines()[1:]}
    assert rows[wizard.worker.pseudonym][4] == "1" and rows[apprentice.worker.pseudonym][4] == "0"
    assert staff.get(f"/research/{campaign.slug}/csv/decisions/").content.decode() == text


def test_research_pages_link_to_each_other(staff: Client, finished) -> None:
    campaign, *_ = finished
    index = staff.get("/research/").content.decode()
    assert f"/research/{campaign.slug}/dashboard/" in index and "/annotate/jobs/" in index
    assert "/research/" in staff.get("/annotate/jobs/").content.decode()
    admin = staff.get(f"/admin/collect/campaign/{campaign.pk}/change/")
    assert admin.status_code == 200 and f"/research/{campaign.slug}/review/" in admin.content.decode()
    dashboard = staff.get(f"/research/{campaign.slug}/dashboard/")
    assert dashboard.status_code == 200 and b'data-testid="rooms-complete">1<' in dashboard.content
    fragment = staff.get(f"/research/{campaign.slug}/dashboard/?fragment=1").content.decode()
    assert "<html" not in fragment and 'data-testid="outcome-completed">2<' in fragment


def test_research_index_links_evaluation_results_and_each_jobs_report(staff: Client, finished) -> None:
    from annotate.models import Job
    from tests.evaluation.campaign import make_campaign as make_evaluation

    campaign, *_ = finished
    evaluation = make_evaluation()
    jobs = [Job.objects.create(slug=slug, name=slug, kind=kind, overlap=1) for slug, kind in (("rel", "relevance"), ("acts", "dialog_acts"))]
    index = staff.get("/research/").content.decode()
    assert f"/annotate/results/{evaluation.slug}/" in index
    assert f"/annotate/results/{campaign.slug}/" not in index  # a WoW campaign has no evaluation results
    for job in jobs:
        assert f"/annotate/jobs/{job.slug}/report/" in index
    for url in (f"/annotate/results/{evaluation.slug}/", *(f"/annotate/jobs/{job.slug}/report/" for job in jobs)):
        assert staff.get(url).status_code == 200, url


def test_signed_links_page_makes_links_and_refuses_bad_ids(staff: Client, finished) -> None:
    campaign, *_ = finished
    made = staff.post(f"/research/{campaign.slug}/links/", {"workers": "w1 w2"})
    assert made.status_code == 200 and made.content.count(b"&amp;sig=") == 2
    bad = staff.post(f"/research/{campaign.slug}/links/", {"workers": "ok <script>"})
    assert bad.status_code == 400 and b"Not valid worker ids" in bad.content


def test_soft_rejected_work_is_left_out_of_the_dataset_export(staff: Client, finished, tmp_path) -> None:
    import json

    from collect.exporters import ExportOptions, export_dataset

    campaign, wizard, *_ = finished
    other = make_room(campaign, status="complete")
    add_message(other, "wizard", "Hello there.", checked_sentence={"no_passages_used": "no_passages_used"})
    Assignment.objects.filter(room=other).update(outcome=Outcome.COMPLETED, status="finished")

    def exported() -> int:
        export_dataset("wow", tmp_path, ExportOptions(holdout_topics=0, valid=0, test=0))
        return len(json.loads((tmp_path / "train.json").read_text()))

    assert exported() == 2
    api(staff, campaign, assignments=[wizard.pk], action="soft_reject", message="off topic")
    assert exported() == 1
    page = staff.get(f"/research/{campaign.slug}/review/").content.decode()
    shown = page.split(f'data-testid="decision-{wizard.pk}">', 1)[1].split("</td>", 1)[0]
    assert shown == "soft-rejected (paid, data excluded)<br><small>off topic</small>"


def test_the_apprentice_is_not_flagged_for_what_the_wizard_pasted(finished) -> None:
    _, wizard, apprentice, _ = finished
    assert "1 message(s) pasted from the knowledge" in review_row(wizard)["checks"]
    assert review_row(apprentice)["checks"] == ["1 too-short message(s)"]
