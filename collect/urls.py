from django.urls import include, path

from collect import entry_views, onboarding_views, registry, views

app_name = "collect"
urlpatterns = [
    path("", views.home, name="home"),
    path("join/<slug:slug>/", entry_views.join, name="join"),
    path("a/<int:assignment_id>/wait/", views.wait, name="wait"),
    path("a/<int:assignment_id>/onboarding/", onboarding_views.onboarding, name="onboarding"),
    path("a/<int:assignment_id>/done/", entry_views.finish, name="finish"),
    path("a/<int:assignment_id>/leave/", entry_views.leave, name="leave"),
    path("room/<uuid:room_id>/", views.room, name="room"),
    path("room/<uuid:room_id>/done/", views.done, name="done"),
]
# Each task type's own worker pages, at the root (its staff pages are research/urls.py's).
for task_type in registry.task_types():
    if task_type.worker_urls:
        urlpatterns.append(path("", include(task_type.part("worker_urls"))))
