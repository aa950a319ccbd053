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

# make run PORT=8080 HOST=0.0.0.0 (default 127.0.0.1:8000, or GOLFRACE_HOST / GOLFRACE_PORT)
run: install client
	$(BIN)/golfrace serve $(if $(HOST),--host $(HOST)) $(if $(PORT),--port $(PORT))

lint: install
	$(BIN)/ruff check server tests bench tools
	$(BIN)/ruff format --check server tests bench tools

typecheck: install client
	$(BIN)/mypy
	@if [ -f client_web/package.json ]; then cd client_web && npm run --silent typecheck; fi

# the suite on TEST_WORKERS pytest-xdist workers (its tests mostly wait on sockets, servers and browsers, so
# more workers than cores help); a group of tests that shares one deployment stays on one worker (loadgroup).
# TEST_WORKERS=0: in this process, one test after another.
TEST_WORKERS ?= 3
pytest: install client
	$(BIN)/pytest $(if $(filter 0,$(TEST_WORKERS)),,-n $(TEST_WORKERS) --dist loadgroup)

test: lint typecheck pytest

bench: install client
	$(BIN)/python bench/solver.py
	$(BIN)/python bench/server.py

clean:
	rm -rf $(VENV) client_web/node_modules client_web/dist .pytest_cache .mypy_cache .ruff_cache
