from django.urls import path

from collect import views

app_name = "collect"
urlpatterns = [
    path("", views.home, name="home"),
    path("join/<slug:slug>/", views.join, name="join"),
    path("a/<int:assignment_id>/wait/", views.wait, name="wait"),
    path("room/<uuid:room_id>/", views.room, name="room"),
    path("room/<uuid:room_id>/done/", views.done, name="done"),
    path("research/curiosity/", views.curiosity_analysis, name="curiosity_analysis"),
]
