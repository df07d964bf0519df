"""What the OpenAPI schema describes: the annotation endpoints under their real prefix."""

from django.urls import include, path

from annotate.api.urls import app_name, endpoints

urlpatterns = [path("api/annotate/", include((endpoints, app_name)))]
