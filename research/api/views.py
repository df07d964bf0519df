"""The review API (/api/research/, staff only): the same listing and actions as the review page."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from rest_framework import serializers, status
from rest_framework.permissions import IsAdminUser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from collect.models import Campaign
from collect.review.selectors import finished_assignments, review_row
from collect.review.services import ACTIONS, MAX_TEXT, ReviewError, ReviewRequest, review_apply
from collect.review.stats import campaign_stats


class AssignmentsApi(APIView):
    permission_classes = [IsAdminUser]

    def get(self, request: Request, slug: str) -> Response:
        campaign = get_object_or_404(Campaign, slug=slug)
        return Response({"campaign": campaign.slug, "assignments": [review_row(a) for a in finished_assignments(campaign=campaign)]})


class ReviewApi(APIView):
    """POST {"assignments": [id, ...], "action": "approve", "amount_cents": 150, "message": "..."}"""

    permission_classes = [IsAdminUser]

    class InputSerializer(serializers.Serializer):
        assignments = serializers.ListField(child=serializers.IntegerField(min_value=1), min_length=1, max_length=1000)
        action = serializers.ChoiceField(choices=ACTIONS)
        amount_cents = serializers.IntegerField(required=False, default=0)
        message = serializers.CharField(required=False, default="", allow_blank=True, max_length=MAX_TEXT)

    def post(self, request: Request, slug: str) -> Response:
        campaign = get_object_or_404(Campaign, slug=slug)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            actions = review_apply(
                campaign=campaign,
                assignment_ids=data.validated_data["assignments"],
                request=ReviewRequest(
                    action=data.validated_data["action"],
                    amount_cents=data.validated_data["amount_cents"],
                    message=data.validated_data["message"],
                ),
                staff=request.user.get_username(),
            )
        except ReviewError as error:
            return Response({"code": error.code, "message": error.message}, status=status.HTTP_400_BAD_REQUEST)
        actions = [type(a).objects.get(pk=a.pk) for a in actions]  # with the platform's answer
        return Response(
            {"done": [{"assignment": a.assignment_id, "action": a.action, "provider_status": a.provider_status, "detail": a.provider_detail} for a in actions]}
        )


class DashboardApi(APIView):
    permission_classes = [IsAdminUser]

    def get(self, request: Request, slug: str) -> Response:
        return Response(campaign_stats(campaign=get_object_or_404(Campaign, slug=slug)))
