from django.urls import path

from collect.review import api

urlpatterns = [
    path("campaigns/<slug:slug>/assignments/", api.AssignmentsApi.as_view(), name="research-assignments"),
    path("campaigns/<slug:slug>/review/", api.ReviewApi.as_view(), name="research-review"),
    path("campaigns/<slug:slug>/dashboard/", api.DashboardApi.as_view(), name="research-dashboard"),
]
