"""The pairwise kind's pages under /annotate/ (the annotate namespace): a model-chat campaign's results."""

from django.urls import path

from annotate.kinds.pairwise import views

urlpatterns = [
    path("results/<slug:slug>/", views.results, name="results"),
]
