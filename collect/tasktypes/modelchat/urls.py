"""Model chat's own worker page, served at the site's root in the `collect` namespace (registry)."""

from django.urls import path

from collect.tasktypes.modelchat import views

urlpatterns = [
    path("join/<slug:slug>/onboarding/", views.onboarding, name="modelchat_onboarding"),
]
