from django.urls import path

from annotate import results_views, views

app_name = "annotate"
urlpatterns = [
    path("join/<slug:slug>/", views.join, name="join"),
    path("jobs/", views.jobs, name="jobs"),
    path("jobs/<slug:slug>/report/", views.report, name="report"),
    path("jobs/<slug:slug>/outcomes.csv", views.outcomes, name="outcomes"),
    path("results/<slug:slug>/", results_views.results, name="results"),
    path("<slug:slug>/", views.work, name="work"),
    path("<slug:slug>/done/", views.finish, name="finish"),
    path("<slug:slug>/leave/", views.leave, name="leave"),
]
