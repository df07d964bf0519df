"""HTTP and websocket entry point (daphne serves this)."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "groundwork.settings")
# Django must be set up before the routing imports consumers and models.
django_asgi_app = get_asgi_application()

from django.conf import settings  # noqa: E402

from groundwork import request_connections  # noqa: E402

request_connections.connect()

if settings.SERVE_STATIC:
    # The embedded mode has no proxy in front of daphne to serve /static/.
    from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler

    django_asgi_app = ASGIStaticFilesHandler(django_asgi_app)

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from collect.routing import websocket_urlpatterns  # noqa: E402
from groundwork.proxies import TrustedProxyMiddleware  # noqa: E402
from groundwork.socket_guard import ServiceLostGuard  # noqa: E402

# Outermost: every request and socket sees the client address a trusted proxy reported, and no
# forwarded header from anyone else (groundwork/proxies.py).
application = TrustedProxyMiddleware(
    ProtocolTypeRouter(
        {
            "http": django_asgi_app,
            # The guard: a database lost while AuthMiddleware reads the session closes with 4500.
            "websocket": AllowedHostsOriginValidator(ServiceLostGuard(AuthMiddlewareStack(URLRouter(websocket_urlpatterns)))),
        }
    )
)
