# Two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: run test install client lint typecheck pytest bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

client:
	@if [ -f client_web/package.json ]; then \
		cd client_web && { [ node_modules/.package-lock.json -nt package-lock.json ] || npm ci --no-audit --no-fund --loglevel=error; } && npm run --silent build; \
	fi

# make run PORT=8080 HOST=0.0.0.0 (default 127.0.0.1:8000, or GOLFRACE_HOST / GOLFRACE_PORT). The server
# secret (tokens, the daily's codes): $GOLFRACE_SECRET if set, else ./var/secret, made on the first start
# (32 random bytes, readable by its owner only; var/ is not in git).
SECRET_FILE ?= var/secret
run: install client
	@test -s $(SECRET_FILE) || { mkdir -p $(dir $(SECRET_FILE)) && umask 077 && \
		$(BIN)/python -c 'import secrets; print(secrets.token_hex(32))' > $(SECRET_FILE); }
	GOLFRACE_SECRET="$${GOLFRACE_SECRET:-$$(cat $(SECRET_FILE))}" \
		$(BIN)/golfrace serve $(if $(HOST),--host $(HOST)) $(if $(PORT),--port $(PORT))

lint: install
	$(BIN)/ruff check server tests bench tools
	$(BIN)/ruff format --check server tests bench tools
	$(BIN)/lint-imports

typecheck: install client
	$(BIN)/mypy
	@if [ -f client_web/package.json ]; then cd client_web && npm run --silent typecheck; fi

# the suite in two runs: the tests without a browser on TEST_WORKERS pytest-xdist workers (they mostly wait on
# sockets, servers and Redis, so more workers than cores help), then the browser tests on BROWSER_WORKERS (each
# drives a Chromium whose renderer wants a core of its own while it paints: a third one on two cores made every
# page 2-3x slower than alone, and no faster in all). A group of tests that shares one deployment stays on one
# worker (loadgroup). Both runs run; either failing fails the target. TEST_WORKERS=0: in this process, one
# test after another, all of it in one run.
TEST_WORKERS ?= 3
BROWSER_WORKERS ?= 2
pytest: install client
ifeq ($(TEST_WORKERS),0)
	$(BIN)/pytest
else
	@status=0; \
	$(BIN)/pytest -n $(TEST_WORKERS) --dist loadgroup --ignore=tests/browser || status=$$?; \
	$(BIN)/pytest -n $(BROWSER_WORKERS) --dist loadgroup tests/browser || status=$$?; \
	exit $$status
endif

test: lint typecheck pytest

bench: install client
	$(BIN)/python bench/solver.py
	$(BIN)/python bench/server.py

clean:
	rm -rf $(VENV) client_web/node_modules client_web/dist .pytest_cache .mypy_cache .ruff_cache
