"""What the review page, its API, the payment CSV and the decisions export read."""

from __future__ import annotations

import csv
import io
from typing import Any

from django.db.models import Prefetch, QuerySet

from collect.models import Assignment, Campaign, Decision, Message
from collect.models_authenticity import AuthenticityFlag, FlagKind
from collect.models_paid import ProviderStatus
from collect.review.checks import room_checks

PAID_DECISIONS = (Decision.APPROVED, Decision.SOFT_REJECTED)
DECISION_TEXT = {Decision.APPROVED: "approved", Decision.SOFT_REJECTED: "soft-rejected (paid, data excluded)", Decision.REJECTED: "rejected"}


def finished_assignments(*, campaign: Campaign) -> QuerySet[Assignment]:
    """The workers' finished assignments, newest first; a model's seat is not reviewed or paid."""
    return (
        Assignment.objects.humans()
        .filter(campaign=campaign)
        .exclude(outcome="")
        .select_related("worker", "room", "campaign")
        .prefetch_related(
            Prefetch("room__messages", queryset=Message.objects.order_by("seq")), "review_actions",
            Prefetch("authenticity_flags", queryset=AuthenticityFlag.objects.order_by("seq", "kind")),
        )
        .order_by("-ended_at", "-pk")
    )


def seconds_spent(assignment: Assignment) -> int | None:
    if assignment.ended_at is None:
        return None
    return int((assignment.ended_at - assignment.created).total_seconds())


def base_pay_cents(assignment: Assignment) -> int:
    pay = assignment.campaign.outcome_pay_cents if isinstance(assignment.campaign.outcome_pay_cents, dict) else {}
    value = pay.get(assignment.outcome, 0)
    return int(value) if isinstance(value, int) and value > 0 else 0


def owed_cents(assignment: Assignment) -> int:
    """Base pay for the outcome (unless rejected) plus bonuses."""
    base = 0 if assignment.decision == Decision.REJECTED else base_pay_cents(assignment)
    return base + assignment.bonus_cents


def review_row(assignment: Assignment) -> dict[str, Any]:
    checks = room_checks(assignment.room, role=assignment.role) if assignment.room_id else None
    return {
        "id": assignment.pk,
        "worker": assignment.worker.pseudonym,
        "platform": assignment.worker.platform,
        "platform_id": assignment.worker.external_id,
        "blocked": assignment.worker.blocked,
        "role": assignment.role,
        "room": str(assignment.room_id) if assignment.room_id else None,
        "outcome": assignment.outcome,
        "outcome_text": assignment.outcome.replace("_", " "),
        "completion_code": assignment.completion_code,
        "decision": assignment.decision,
        "decision_text": DECISION_TEXT.get(assignment.decision, assignment.decision),
        "decision_reason": assignment.decision_reason,
        "approved": assignment.decision in PAID_DECISIONS,
        "bonus_cents": assignment.bonus_cents,
        "owed_cents": owed_cents(assignment),
        "seconds": seconds_spent(assignment),
        "notes": assignment.notes,
        "checks": checks.flags if checks else [],
        # Evidence for the reviewer, never a decision (collect/authenticity/signals.py).
        "authenticity": [authenticity_flag_row(flag) for flag in assignment.authenticity_flags.all()],
        "turns": sum(1 for m in assignment.room.messages.all() if m.role == assignment.role) if assignment.room_id else 0,
        "dialogue": [
            {"seq": m.seq, "role": m.role, "text": m.text, "checked": checked_text(m.checked_sentence)} for m in assignment.room.messages.all()
        ] if assignment.room_id else [],
        "actions": [
            {"action": a.action, "amount_cents": a.amount_cents, "message": a.message, "staff": a.staff, "provider_status": a.provider_status}
            for a in assignment.review_actions.all()
        ],
    }


def authenticity_flag_row(flag: AuthenticityFlag) -> dict[str, Any]:
    """One flag as the review page and its CSV show it: the turn (None: the whole seat), the
    signal, its label and the values it saw."""
    return {
        "seq": flag.seq, "kind": flag.kind, "label": FlagKind(flag.kind).label if flag.kind in FlagKind.values else flag.kind,
        "evidence": flag.evidence,
        "evidence_text": ", ".join(f"{key}: {value}" for key, value in flag.evidence.items() if value not in (None, "", [])),
    }


def review_rows(*, campaign: Campaign, sort: str = "") -> list[dict[str, Any]]:
    """The review page's rows: newest first, or with `sort` "flags" the most flagged first."""
    rows = [review_row(a) for a in finished_assignments(campaign=campaign)]
    if sort == "flags":
        rows.sort(key=lambda row: len(row["authenticity"]), reverse=True)
    return rows


def checked_text(checked: object) -> str | None:
    """The wizard's checked sentence as the review page shows it; None where nothing was checked
    (an apprentice's message). WoW stores {key: sentence}, or the no_passages_used marker."""
    if not isinstance(checked, dict) or not checked:
        return None
    sentence = next(iter(checked.values()))
    return "" if sentence == "no_passages_used" or not isinstance(sentence, str) else sentence


def payments_csv(*, campaign: Campaign, kind: str) -> str:
    """For paying without API credentials: `approve` lists the platform ids to approve (one per
    line), `bonus` the `id,amount` lines Prolific's bulk bonus tool takes. Only decisions not
    already sent through a platform API are listed."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for assignment in finished_assignments(campaign=campaign):
        pending = [a for a in assignment.review_actions.all() if a.provider_status != ProviderStatus.SENT]
        if kind == "approve" and assignment.decision in PAID_DECISIONS and any(a.action in ("approve", "soft_reject") for a in pending):
            writer.writerow([assignment.worker.external_id])
        elif kind == "bonus":
            cents = sum(a.amount_cents for a in pending if a.action == "bonus")
            if cents:
                writer.writerow([assignment.worker.external_id, f"{cents / 100:.2f}"])
    return out.getvalue()


EXPORT_FIELDS = ["worker", "role", "room", "outcome", "approved", "decision", "bonus_cents", "seconds", "turns", "checks"]


def decisions_csv(*, campaign: Campaign) -> str:
    """The decisions export: pseudonymous worker ids only, never the platform's."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=EXPORT_FIELDS, lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    for assignment in finished_assignments(campaign=campaign):
        row = review_row(assignment)
        writer.writerow({**row, "approved": int(row["approved"]), "checks": "; ".join(row["checks"])})
    return out.getvalue()


AUTHENTICITY_FIELDS = ["worker", "role", "room", "seq", "compose_ms", "typing_ms", "typed_chars", "inserted_chars",
                       "pasted_knowledge_chars", "pasted_partner_chars", "pasted_outside_chars", "hidden_ms", "panel_ms",
                       "passages_opened", "client_status", "flags"]


def authenticity_csv(*, campaign: Campaign) -> str:
    """One row per human turn of the campaign's finished assignments, for analysis: the record's
    values (docs/authenticity.md) and the turn's flags. Pseudonymous worker ids only."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=AUTHENTICITY_FIELDS, lineterminator="\n")
    writer.writeheader()
    for assignment in finished_assignments(campaign=campaign):
        flags: dict[int | None, list[str]] = {}
        for flag in assignment.authenticity_flags.all():
            flags.setdefault(flag.seq, []).append(flag.kind)
        for message in assignment.room.messages.all() if assignment.room_id else []:
            if message.sender_id != assignment.pk:
                continue
            record = message.authenticity if isinstance(message.authenticity, dict) else {}
            client = record.get("client") or {}
            paste = client.get("paste", {})
            writer.writerow({
                "worker": assignment.worker.pseudonym, "role": assignment.role, "room": str(assignment.room_id), "seq": message.seq,
                **{key: client.get(key, "") for key in ("compose_ms", "typing_ms", "typed_chars", "inserted_chars", "hidden_ms", "panel_ms")},
                **{f"pasted_{source}_chars": paste.get(source, {}).get("chars", 0) if client else "" for source in ("knowledge", "partner", "outside")},
                "passages_opened": len(client.get("passages", [])) if client else "",
                "client_status": record.get("client_status", "absent"),
                "flags": " ".join(flags.get(message.seq, []) + flags.get(None, [])),
            })
    return out.getvalue()
