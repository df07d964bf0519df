"""The annotation API (for the screens and for external tools): join a job, list jobs, reserve the
next item, answer it. Thin views: an InputSerializer, one service call, an OutputSerializer.
Errors are {"code", "detail"} with a 4xx status, and nothing is stored."""

from __future__ import annotations

import re
from typing import Any

from django.urls import reverse
from django.utils import translation
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.authentication import SessionAuthentication
from rest_framework.exceptions import Throttled
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.api.auth import Annotator, IsAnnotator, IsAnnotatorOrStaff, WorkerSessionAuthentication, WorkerTokenAuthentication
from annotate.api.throttle import JoinRateThrottle, SharedRateThrottle
from annotate.identity import entry_check, worker_token
from annotate.models import Item, Job
from annotate.selectors.items import item_for_annotator
from annotate.selectors.progress import job_progress, job_progress_brief, worker_progress
from annotate.services import AnnotationError
from annotate.services.answers import MAX_TIME_SPENT_MS, answer_submit
from annotate.services.assignment import NextItem, assignment_next
from annotate.registry import annotation_kinds
from annotate.services.entries import API_BROWSER, job_entry_admit, job_entry_finish
from collect.lifecycle.identity import Door, EntryRefused, identity_parse
from collect.lifecycle.links import JOB_LINKS
from collect.models import Worker
from groundwork.languages import language_choose

ENDED_STATUS = {"screened_out": "disqualified"}
ERROR = inline_serializer("Error", {"code": serializers.CharField(), "detail": serializers.CharField()})


def error_response(code: str, detail: str, status_code: int = 400) -> Response:
    return Response({"code": code, "detail": detail}, status=status_code)


class StrictSerializer(serializers.Serializer):
    """Refuses keys it does not know: a misspelt field is an error, not an empty answer."""

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(self.initial_data) - set(self.fields))
        if unknown:
            raise serializers.ValidationError(f"unknown field(s): {', '.join(unknown)}")
        return attrs


def invalid(serializer: serializers.Serializer) -> Response:
    errors = serializer.errors
    field, messages = next(iter(errors.items()))
    where = "" if field == "non_field_errors" else f"{field}: "
    return Response({"code": "invalid", "detail": f"{where}{messages[0]}", "fields": errors}, status=400)


class AnnotationApi(APIView):
    schema = AutoSchema()
    authentication_classes = [WorkerTokenAuthentication, WorkerSessionAuthentication, SessionAuthentication]
    permission_classes = [IsAnnotator]
    throttle_classes = [SharedRateThrottle]

    def handle_exception(self, exc: Exception) -> Response:
        if isinstance(exc, AnnotationError):
            return error_response(exc.code, exc.message, exc.status)
        if isinstance(exc, Throttled):
            response = error_response("rate_limited", getattr(self, "rate_limit_message", str(exc.detail)), 429)
            if exc.wait is not None:
                response["Retry-After"] = str(int(exc.wait))
            return response
        response = super().handle_exception(exc)
        if isinstance(response.data, dict):
            response.data.setdefault("code", getattr(exc, "default_code", "error"))
        return response

    def job(self, slug: str) -> Job:
        job = Job.objects.filter(slug=slug).first()
        if job is None:
            raise AnnotationError("no_job", f"there is no annotation job {slug!r}", status=404)
        return job


class JobJoinApi(AnnotationApi):
    """A token for the session's own worker (the browser entered by the job's link; CSRF-checked),
    or, with no such session, for an in-house job's signed link (`worker` + `sig`): the same
    admission as the link in a browser (blocked workers, the first-use binding, the job's platform).
    Never for a bare id."""

    authentication_classes = [WorkerSessionAuthentication]
    permission_classes = [AllowAny]
    throttle_classes = [JoinRateThrottle]

    class InputSerializer(StrictSerializer):
        class Meta:
            ref_name = "JoinRequest"

        worker = serializers.CharField(required=False, help_text="in-house annotator id, from the signed link")
        sig = serializers.CharField(required=False, help_text="the signed link's signature")
        PROLIFIC_PID = serializers.CharField(required=False, help_text="refused: Prolific annotators open the job's link in a browser, whose session then gets the token")

    class OutputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "JoinResponse"

        token = serializers.CharField(help_text="send as Authorization: Bearer <token>")
        worker = serializers.CharField(help_text="your pseudonymous id")

    def post(self, request: Request, slug: str) -> Response:
        job = self.job(slug)
        if isinstance(request.user, Annotator):
            worker = request.user.worker
            entry_check(job=job, worker=worker)
        else:
            data = self.InputSerializer(data=request.data)
            if not data.is_valid():
                return invalid(data)
            worker = self._by_link(job, data.validated_data)
        return Response(self.OutputSerializer({"token": worker_token(worker), "worker": worker.pseudonym}).data)

    def _by_link(self, job: Job, params: dict[str, str]) -> Worker:
        if "worker" not in params:
            raise AnnotationError(
                "use_link", "Open the job's link in a browser first: its session gets the token (in-house jobs: send worker and sig).", status=403
            )
        try:
            identity = identity_parse(door=Door.of(job, kind=JOB_LINKS), params=params)
            worker, _ = job_entry_admit(job=job, identity=identity, browser=API_BROWSER, session_worker_id=None)
        except EntryRefused as refused:
            code = re.sub(r"[^a-z]+", "_", refused.title.lower()).strip("_")  # "Bad worker id" -> bad_worker_id
            raise AnnotationError(code, refused.message, status=refused.status) from refused
        return worker


class JobListApi(AnnotationApi):
    permission_classes = [IsAnnotatorOrStaff]

    class OutputSerializer(serializers.ModelSerializer):
        progress = serializers.SerializerMethodField()

        class Meta:
            model = Job
            fields = ["slug", "name", "kind", "instructions", "overlap", "is_active", "progress"]
            ref_name = "Job"

        def get_progress(self, job: Job) -> dict[str, Any]:
            return job_progress(job=job)

    def get(self, request: Request) -> Response:
        if request.user.is_staff:
            jobs = Job.objects.order_by("name")
        else:  # an annotator: the active jobs they entered by link
            jobs = Job.objects.filter(is_active=True, entries__worker=request.user.worker).order_by("name")
        return Response(self.OutputSerializer(jobs, many=True).data)


class NextItemApi(AnnotationApi):
    class OutputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "NextItem"

        status = serializers.ChoiceField(["assigned", "resumed", "done", "busy", "empty", "disqualified", "inactive"])
        finish_url = serializers.CharField(allow_null=True, help_text="done or disqualified with an outcome: the page with the annotator's code")
        item = serializers.JSONField(allow_null=True, help_text="the item as its kind's screen shows it (its `kind` says which)")
        expires_at = serializers.DateTimeField(allow_null=True)
        progress = serializers.JSONField()

    def post(self, request: Request, slug: str) -> Response:
        job, worker = self.job(slug), request.user.worker
        entry = entry_check(job=job, worker=worker)
        if entry.outcome:
            # Ended (done, screened out or returned): no more items, even if the job grows later.
            result = NextItem(None, ENDED_STATUS.get(entry.outcome, "done"))
        else:
            result = assignment_next(job=job, worker=worker)
            entry = job_entry_finish(entry=entry, status=result.status)
        assignment = result.assignment
        out = {
            "status": result.status,
            "finish_url": reverse("annotate:finish", args=[slug]) if entry.outcome and not assignment else None,
            "item": _item_in(job, assignment, request),
            "expires_at": assignment.expires_at if assignment else None,
            "progress": {**worker_progress(job=job, worker=worker), "job": job_progress_brief(job=job)},
        }
        return Response(self.OutputSerializer(out).data)


def _item_in(job: Job, assignment: Any, request: Request) -> dict[str, Any] | None:
    """The item as the annotator sees it, its wording (a pairwise question) in the language of the
    job's pages: the job's, or the browser's where the job allows it."""
    if not assignment:
        return None
    with translation.override(language_choose(target=job, request=request)):
        return item_for_annotator(assignment.item, job.kind, question=job.question)


def _answer_input() -> type[serializers.Serializer]:
    """The answer's fields: every kind's (annotate.registry), each declared once, and the time spent."""
    fields: dict[str, serializers.Field] = {}
    for kind in annotation_kinds():
        for name, field in kind.part("answer_fields").items():
            fields.setdefault(name, field)
    fields["time_spent_ms"] = serializers.IntegerField(required=False, min_value=0, max_value=MAX_TIME_SPENT_MS)
    meta = type("Meta", (), {"ref_name": "Answer"})
    return type("InputSerializer", (StrictSerializer,), {**fields, "Meta": meta, "__module__": __name__})


class AnswerApi(AnnotationApi):
    InputSerializer = _answer_input()

    class OutputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "AnswerReceipt"

        status = serializers.CharField()
        item = serializers.IntegerField()
        time_spent_ms = serializers.IntegerField()

    def post(self, request: Request, item_id: int) -> Response:
        data = self.InputSerializer(data=request.data)
        if not data.is_valid():
            return invalid(data)
        item = Item.objects.filter(pk=item_id).select_related("job").first()
        if item is not None:  # an unknown item: answer_submit's own 404
            entry_check(job=item.job, worker=request.user.worker)
        assignment = answer_submit(item_id=item_id, worker=request.user.worker, **data.validated_data)
        out = {"status": assignment.status, "item": item_id, "time_spent_ms": assignment.time_spent_ms}
        return Response(self.OutputSerializer(out).data, status=status.HTTP_201_CREATED)


# On the classes (each view has one method): with DRF's default schema class in settings, method
# decorators would build on DRF's AutoSchema instead of the views' drf-spectacular one.
extend_schema(request=JobJoinApi.InputSerializer, responses={200: JobJoinApi.OutputSerializer, 400: ERROR, 404: ERROR})(JobJoinApi)
extend_schema(responses={200: JobListApi.OutputSerializer(many=True)})(JobListApi)
extend_schema(request=None, responses={200: NextItemApi.OutputSerializer, 404: ERROR})(NextItemApi)
extend_schema(request=AnswerApi.InputSerializer, responses={201: AnswerApi.OutputSerializer, 400: ERROR, 403: ERROR, 404: ERROR, 409: ERROR})(AnswerApi)
