"""Settings for GROUNDWORK_PRODUCTION=1: HTTPS behind a TLS-terminating proxy. `manage.py check
--deploy` is clean with these (tests/security/test_deploy_check.py runs it). The SSL redirect and
HSTS come from the environment, read in groundwork/settings.py after these."""

from __future__ import annotations

# The proxy terminates TLS and says so in this header. It reaches Django only from a peer listed in
# GROUNDWORK_TRUSTED_PROXIES, reduced to the value that proxy set (groundwork/proxies.py).
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# Load balancers probe and Prometheus scrapes over plain HTTP, inside the private network.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$", r"^metrics$"]
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
LANGUAGE_COOKIE_SECURE = True
# Every other cookie too (gw_browser, messages): groundwork/cookies.py.
COOKIES_SECURE = True
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
