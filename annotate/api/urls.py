from django.urls import path
from drf_spectacular.views import SpectacularAPIView

from annotate.api import views
from groundwork.api_access import ApiDocsPermission

app_name = "annotate-api"
endpoints = [
    path("jobs/", views.JobListApi.as_view(), name="jobs"),
    path("jobs/<slug:slug>/join/", views.JobJoinApi.as_view(), name="join"),
    path("jobs/<slug:slug>/next/", views.NextItemApi.as_view(), name="next"),
    path("items/<int:item_id>/answers/", views.AnswerApi.as_view(), name="answer"),
]
urlpatterns = [
    *endpoints,
    # OpenAPI 3 of the endpoints above only (the rest of Groundwork is not a REST API).
    path(
        "schema/",
        SpectacularAPIView.as_view(
            permission_classes=[ApiDocsPermission],
            urlconf="annotate.api.schema_urls",
            custom_settings={
                "TITLE": "Groundwork annotation API",
                "DESCRIPTION": "Join a job, reserve the next item, submit its answer. Errors: {code, detail} with a 4xx status.",
                "VERSION": "1",
            },
        ),
        name="schema",
    ),
]
