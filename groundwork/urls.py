from django.contrib import admin
from django.urls import include, path

from groundwork import health, js_catalog, metrics_scrape, second_factor

urlpatterns = [
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("metrics", metrics_scrape.metrics_view, name="metrics"),
    path("jsi18n/<str:language>/", js_catalog.js_catalog, name="js_catalog"),
    path("admin/", admin.site.urls),
    path("staff/second-factor/", second_factor.second_factor, name="second_factor"),
    path("annotate/", include("annotate.urls")),
    path("api/annotate/", include("annotate.api.urls")),
    path("api/research/", include("research.api.urls")),
    path("research/", include("research.urls")),
    path("", include("collect.urls")),
]
