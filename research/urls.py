from django.urls import path

from research import views

app_name = "research"
urlpatterns = [
    path("", views.exports, name="exports"),
    path("start/", views.export_start, name="export_start"),
    path("<uuid:run_id>/", views.export_page, name="export"),
    path("<uuid:run_id>/status/", views.export_status, name="export_status"),
    path("<uuid:run_id>/files/<path:name>", views.export_download, name="export_file"),
]
