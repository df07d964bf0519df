"""Everything under /research/ (groundwork/urls.py mounts it there): the index, each campaign's
pages, the ranker, the exports, and each task type's own staff pages under /research/<task type>/
(collect.registry's `research_urls`). The review API is research/api/urls.py."""

from django.urls import include, path

from collect import registry
from research.views import dashboard, exports, index, links, ranker, review

app_name = "research"
export_urlpatterns = [
    path("", exports.exports, name="exports"),
    path("start/", exports.export_start, name="export_start"),
    path("<uuid:run_id>/", exports.export_page, name="export"),
    path("<uuid:run_id>/status/", exports.export_status, name="export_status"),
    path("<uuid:run_id>/files/<path:name>", exports.export_download, name="export_file"),
]
urlpatterns = [
    path("", index.research_index, name="index"),
    path("ranker/", ranker.ranker_page, name="ranker"),
    path("exports/", include(export_urlpatterns)),
    path("<slug:slug>/review/", review.review, name="review"),
    path("<slug:slug>/csv/<str:kind>/", review.payments, name="payments"),
    path("<slug:slug>/links/", links.links, name="links"),
    path("<slug:slug>/dashboard/", dashboard.dashboard, name="dashboard"),
]
# Ahead of the campaigns' pages, so that a task type's page is never read as a campaign's.
for task_type in registry.task_types():
    if task_type.research_urls:
        urlpatterns.insert(0, path(f"{task_type.name}/", include(task_type.part("research_urls"))))
