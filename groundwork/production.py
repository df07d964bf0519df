"""Settings for GROUNDWORK_PRODUCTION=1: HTTPS behind a TLS-terminating proxy. `manage.py check
--deploy` is clean with these (tests/security/test_deploy_check.py runs it)."""

from __future__ import annotations

from groundwork.env import env_bool, env_int

# The proxy terminates TLS and says so in this header. It reaches Django only from a peer listed in
# GROUNDWORK_TRUSTED_PROXIES, reduced to the value that proxy set (groundwork/proxies.py).
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("GROUNDWORK_SSL_REDIRECT", True)
# Load balancers probe and Prometheus scrapes over plain HTTP, inside the private network.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$", r"^metrics$"]
SECURE_HSTS_SECONDS = env_int("GROUNDWORK_HSTS_SECONDS", 31_536_000, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("GROUNDWORK_HSTS_INCLUDE_SUBDOMAINS", True)
SECURE_HSTS_PRELOAD = env_bool("GROUNDWORK_HSTS_PRELOAD", True)
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
LANGUAGE_COOKIE_SECURE = True
# Every other cookie too (gw_browser, messages): groundwork/cookies.py.
COOKIES_SECURE = True
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
