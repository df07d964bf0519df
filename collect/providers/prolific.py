"""Prolific's researcher API (https://docs.prolific.com): submissions are approved or rejected by a
transition, bonuses are set up for a study and then paid, participants are blocked by id. The
submission id is the SESSION_ID Prolific appends to the study link."""

from __future__ import annotations

from typing import Any

from collect.models import Assignment
from collect.providers.base import ProviderError, post_json


class ProlificProvider:
    def __init__(self, *, base_url: str, token: str) -> None:
        self.base_url = base_url.rstrip("/")
        self.headers = {"Authorization": f"Token {token}"}

    def _post(self, path: str, body: dict[str, Any]) -> Any:
        return post_json(f"{self.base_url}{path}", body, self.headers)

    def _submission(self, assignment: Assignment) -> str:
        if not assignment.session_id:
            raise ProviderError("no Prolific submission id (SESSION_ID) was recorded for this assignment")
        return assignment.session_id

    def approve(self, assignment: Assignment, message: str) -> str:
        reply = self._post(f"/api/v1/submissions/{self._submission(assignment)}/transition/", {"action": "APPROVE"})
        return f"submission {reply.get('status', 'approved') if isinstance(reply, dict) else 'approved'}"

    def reject(self, assignment: Assignment, reason: str) -> str:
        body = {"action": "REJECT", "message": reason, "rejection_category": "LOW_EFFORT"}
        self._post(f"/api/v1/submissions/{self._submission(assignment)}/transition/", body)
        return "submission rejected"

    def bonus(self, assignment: Assignment, cents: int, message: str, token: str) -> str:
        if not assignment.study_id:
            raise ProviderError("no Prolific study id (STUDY_ID) was recorded for this assignment")
        csv = f"{assignment.worker.external_id},{cents / 100:.2f}"
        setup = self._post("/api/v1/submissions/bonus-payments/", {"study_id": assignment.study_id, "csv_bonuses": csv})
        bonus_id = setup.get("id") if isinstance(setup, dict) else None
        if not bonus_id:
            raise ProviderError(f"Prolific set up no bonus payment: {setup!r}"[:300])
        self._post(f"/api/v1/bulk-bonus-payments/{bonus_id}/pay/", {})
        return f"bonus {bonus_id} paid"

    def block(self, assignment: Assignment, reason: str) -> str:
        self._post("/api/v1/researchers/participants/block/", {"participant_id": assignment.worker.external_id, "reason": reason})
        return "participant blocked"
