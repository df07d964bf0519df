"""The admin app with Groundwork's admin site (groundwork/admin_site.py). Apart from that module
because app configs load before the models the site's login form needs."""

from django.contrib.admin.apps import AdminConfig


class GroundworkAdminConfig(AdminConfig):
    default_site = "groundwork.admin_site.GroundworkAdminSite"

    def ready(self) -> None:
        super().ready()
        from groundwork import lockouts  # noqa: F401 - connects the lockout log line
