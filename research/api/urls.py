from django.urls import path

from research.api import views

app_name = "research-api"
urlpatterns = [
    path("campaigns/<slug:slug>/assignments/", views.AssignmentsApi.as_view(), name="assignments"),
    path("campaigns/<slug:slug>/review/", views.ReviewApi.as_view(), name="review"),
    path("campaigns/<slug:slug>/dashboard/", views.DashboardApi.as_view(), name="dashboard"),
]
