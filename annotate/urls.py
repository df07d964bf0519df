from django.urls import path

from annotate import views

app_name = "annotate"
urlpatterns = [
    path("join/<slug:slug>/", views.join, name="join"),
    path("jobs/", views.jobs, name="jobs"),
    path("jobs/<slug:slug>/report/", views.report, name="report"),
    path("<slug:slug>/", views.work, name="work"),
]
