from django.urls import include, path

from annotate import views
from annotate.registry import annotation_kinds

app_name = "annotate"
urlpatterns = [
    path("join/<slug:slug>/", views.join, name="join"),
    path("jobs/", views.jobs, name="jobs"),
    path("jobs/<slug:slug>/report/", views.report, name="report"),
    path("jobs/<slug:slug>/outcomes.csv", views.outcomes, name="outcomes"),
    # Each kind's own pages (annotate.registry), in this namespace, before a job's pages at <slug>/.
    *(path("", include(kind.part("urls"))) for kind in annotation_kinds() if kind.urls),
    path("<slug:slug>/", views.work, name="work"),
    path("<slug:slug>/done/", views.finish, name="finish"),
    path("<slug:slug>/leave/", views.leave, name="leave"),
]
