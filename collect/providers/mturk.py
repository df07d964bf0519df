"""MTurk's requester API: JSON 1.1 over HTTPS, each call signed with AWS Signature Version 4
(service `mturk-requester`). The assignment id and HIT id are those MTurk passed to the HIT's
ExternalQuestion (stored as session_id and study_id)."""

from __future__ import annotations

import hashlib
import hmac
import json
from datetime import datetime, timezone
from typing import Any
from urllib.parse import urlsplit

from collect.models import Assignment
from collect.providers.base import ProviderError, post_json

SERVICE = "mturk-requester"
TARGET = "MTurkRequesterServiceV20170117"


def _hmac(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


def sigv4_headers(*, endpoint: str, region: str, access_key: str, secret_key: str, target: str, body: bytes, now: datetime) -> dict[str, str]:
    """The headers of a SigV4-signed POST of `body` to `endpoint`'s root path."""
    host = urlsplit(endpoint).netloc
    stamp, day = now.strftime("%Y%m%dT%H%M%SZ"), now.strftime("%Y%m%d")
    headers = {"content-type": "application/x-amz-json-1.1", "host": host, "x-amz-date": stamp, "x-amz-target": target}
    signed = ";".join(sorted(headers))
    canonical = "\n".join(
        ["POST", "/", "", *(f"{k}:{headers[k]}" for k in sorted(headers)), "", signed, hashlib.sha256(body).hexdigest()]
    )
    scope = f"{day}/{region}/{SERVICE}/aws4_request"
    to_sign = "\n".join(["AWS4-HMAC-SHA256", stamp, scope, hashlib.sha256(canonical.encode()).hexdigest()])
    key = _hmac(_hmac(_hmac(_hmac(f"AWS4{secret_key}".encode(), day), region), SERVICE), "aws4_request")
    signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    auth = f"AWS4-HMAC-SHA256 Credential={access_key}/{scope}, SignedHeaders={signed}, Signature={signature}"
    return {"Content-Type": headers["content-type"], "X-Amz-Date": stamp, "X-Amz-Target": target, "Authorization": auth}


class MTurkProvider:
    def __init__(self, *, endpoint: str, region: str, access_key: str, secret_key: str) -> None:
        self.endpoint, self.region, self.access_key, self.secret_key = endpoint.rstrip("/"), region, access_key, secret_key

    def _call(self, operation: str, body: dict[str, Any]) -> Any:
        data = json.dumps(body).encode()
        headers = sigv4_headers(
            endpoint=self.endpoint, region=self.region, access_key=self.access_key, secret_key=self.secret_key,
            target=f"{TARGET}.{operation}", body=data, now=datetime.now(timezone.utc),
        )
        return post_json(f"{self.endpoint}/", body, headers)

    def _assignment(self, assignment: Assignment) -> str:
        if not assignment.session_id:
            raise ProviderError("no MTurk assignmentId was recorded for this assignment")
        return assignment.session_id

    def approve(self, assignment: Assignment, message: str) -> str:
        self._call("ApproveAssignment", {"AssignmentId": self._assignment(assignment), "RequesterFeedback": message or "Thank you."})
        return "assignment approved"

    def reject(self, assignment: Assignment, reason: str) -> str:
        self._call("RejectAssignment", {"AssignmentId": self._assignment(assignment), "RequesterFeedback": reason})
        return "assignment rejected"

    def bonus(self, assignment: Assignment, cents: int, message: str, token: str) -> str:
        body = {
            "WorkerId": assignment.worker.external_id,
            "AssignmentId": self._assignment(assignment),
            "BonusAmount": f"{cents / 100:.2f}",
            "Reason": message,
            # One per review action: a retried call never pays twice.
            "UniqueRequestToken": token[:64],
        }
        self._call("SendBonus", body)
        return "bonus sent"

    def block(self, assignment: Assignment, reason: str) -> str:
        self._call("CreateWorkerBlock", {"WorkerId": assignment.worker.external_id, "Reason": reason or "Blocked by the requester."})
        return "worker blocked"
