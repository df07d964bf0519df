from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("annotate/", include("annotate.urls")),
    path("api/annotate/", include("annotate.api.urls")),
    path("", include("collect.urls")),
]
