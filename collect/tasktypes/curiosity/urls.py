"""Curiosity's staff pages, served under /research/curiosity/ (collect.registry's research_urls)."""

from django.urls import path

from collect.tasktypes.curiosity import views

research_urlpatterns = [
    path("", views.curiosity_analysis, name="curiosity_analysis"),
]
