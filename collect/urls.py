from django.urls import path

from collect import entry_views, onboarding_views, research_views, views
from collect.modelchat import views as modelchat_views
from retrieval.research_views import ranker_page

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
    path("join/<slug:slug>/onboarding/", modelchat_views.onboarding, name="modelchat_onboarding"),
    path("research/curiosity/", views.curiosity_analysis, name="curiosity_analysis"),
    path("research/", research_views.research_index, name="research"),
    path("research/ranker/", ranker_page, name="ranker"),
    path("research/<slug:slug>/review/", research_views.review, name="review"),
    path("research/<slug:slug>/csv/<str:kind>/", research_views.payments, name="payments"),
    path("research/<slug:slug>/links/", research_views.links, name="links"),
    path("research/<slug:slug>/dashboard/", research_views.dashboard, name="dashboard"),
]
