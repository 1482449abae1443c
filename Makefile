# tavola: every command a developer, an operator or CI needs. `make` alone lists them: each
# target's `## ` comment is its line in `make help`.
SHELL := /bin/bash
.DEFAULT_GOAL := help
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
PROTOS := $(shell find proto -name '*.proto')
SDK := sdk/python
SDK_STAMP := $(SDK)/tavola/.stamp

.PHONY: help setup proto lint test test-long demo run play bench clean deploy-files

help: ## list the targets, each with what it does
	@grep -hE '^[a-z][a-z-]*:.*## ' $(MAKEFILE_LIST) | sed -E 's/^([a-z-]+):.*## /\1\t/' | awk -F'\t' '{ printf "  make %-14s %s\n", $$1, $$2 }'

# Installs at the versions pinned in constraints.txt, so every machine and CI get the same.
$(STAMP): pyproject.toml constraints.txt
	@command -v $(PYTHON) >/dev/null || { echo "python 3.11 is required ($(PYTHON) not found)"; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c constraints.txt -e '.[dev,openspiel]'
	touch $(STAMP)

# Pins what the environment holds now (after changing pyproject.toml's dependencies).
.PHONY: constraints
constraints: $(STAMP) ## pin what .venv holds now into constraints.txt
	{ sed -n '1,3p' constraints.txt; $(PY) -m pip freeze --exclude-editable | grep -viE '^(tavola|-e )'; } > constraints.txt.tmp
	mv constraints.txt.tmp constraints.txt

setup: $(STAMP) gen/.stamp $(SDK_STAMP) ## create .venv, install the pinned packages, generate gen/

# The one code-generation path (common/generated.py, which the image's build runs too):
# Python messages, gRPC stubs and type stubs into gen/, and the Connect services
# (*_connect.py: the browser protocol's routes and a Python client); a digest of proto/ in
# gen/proto.sha256, which every process compares with proto/ as it starts: after a .proto
# change without make proto, they say so.
gen/.stamp: $(PROTOS) $(STAMP) common/generated.py
	rm -rf gen.tmp
	$(PY) -m common.generated gen.tmp
	rm -rf gen && mv gen.tmp gen
	$(PY) -m pip install --quiet --no-deps -e .
	touch gen/.stamp

# The bot SDK's copy of the public API's messages and stubs (sdk/python/tavola, not
# committed), by the same generation path.
$(SDK_STAMP): $(PROTOS) $(STAMP) common/generated.py
	rm -rf $(SDK)/tavola.tmp
	$(PY) -m common.generated --sdk $(SDK)/tavola.tmp
	rm -rf $(SDK)/tavola && mv $(SDK)/tavola.tmp/tavola $(SDK)/tavola && rm -rf $(SDK)/tavola.tmp
	touch $@

proto: gen/.stamp web-proto $(SDK_STAMP) ## regenerate the gRPC code in gen/ and the SDK, and the web client's types, from proto/

# The web client (clients/web): npm packages from its package-lock.json, TypeScript types
# from proto/ (protoc-gen-es through buf, into src/gen, not committed) and the bundle
# built by Vite into dist/, which the gateway's web port serves. Without node and npm it
# says so and builds nothing (the browser tests then skip).
WEB := clients/web
WEB_SOURCES := $(shell find $(WEB)/src -name '*.ts' -not -path '*/gen/*' 2>/dev/null) $(WEB)/src/style.css $(WEB)/index.html
HAVE_NPM := $(shell command -v npm >/dev/null && command -v node >/dev/null && echo yes)
.PHONY: web web-proto browser

ifeq ($(HAVE_NPM),yes)
$(WEB)/node_modules/.installed: $(WEB)/package-lock.json
	cd $(WEB) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(WEB)/src/gen/.stamp: $(PROTOS) $(WEB)/buf.gen.yaml $(WEB)/node_modules/.installed $(STAMP)
	rm -rf $(WEB)/src/gen
	cd $(WEB) && ../../$(VENV)/bin/buf generate ../../proto --template buf.gen.yaml --exclude-path ../../proto/tavola/store
	touch $@

$(WEB)/dist/index.html: $(WEB)/src/gen/.stamp $(WEB_SOURCES) $(WEB)/vite.config.ts $(WEB)/tsconfig.json
	cd $(WEB) && npx tsc --noEmit && npx vite build --logLevel warn

web-proto: $(WEB)/src/gen/.stamp ## the web client's TypeScript types from proto/ (part of make proto)
web: $(WEB)/dist/index.html ## build the web client (clients/web/dist, served on the gateway's web port)
else
web-proto web:
	@echo "node and npm are not installed: the web client ($(WEB)) is not built"
endif

# Headless Chromium for the browser tests (tests/web): Debian's package, installed when
# missing and apt-get may run; otherwise the tests say why they skip.
browser: ## install Debian's chromium for the browser tests when missing
	@if [ -x /usr/bin/chromium ]; then :; \
	elif command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
		echo "installing Debian's chromium for the browser tests"; \
		(apt-get install -y -q chromium >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get install -y -q chromium >/dev/null; }) \
			|| echo "chromium could not be installed: the browser tests will skip"; \
	else echo "no /usr/bin/chromium and no apt-get as root: the browser tests will skip"; fi

# The boards' screenshots that docs/players.md shows (docs/images/<game>-<moment>-<width>.png),
# made by the browser tests, which write into docs/ only when TAVOLA_DOCS_SCREENSHOTS is set.
.PHONY: docs-screenshots
docs-screenshots: setup web browser ## the boards' screenshots in docs/images, taken by the browser tests
	TAVOLA_DOCS_SCREENSHOTS=1 $(PY) -m pytest tests/web/test_boards.py -k drawn -n 0 -q

# Every source directory is type-checked (config in pyproject.toml), with zero errors.
MYPY_PATHS ?= bench bots clients common deploy gateway services

lint: setup ## buf lint, ruff check, ruff format --check, mypy
	cd proto && ../$(VENV)/bin/buf lint
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy $(MYPY_PATHS)
	MYPYPATH=$(SDK) $(VENV)/bin/mypy $(SDK)/tavola_bot_sdk

# The suite: engine rules and property tests, and integration tests against a real
# Redis, real gRPC servers on free ports and a real Celery worker, on two processes
# (pyproject.toml's addopts: one runs the integration tests in order, both the rest).
# Tests marked slow (strength matches, many more playouts, minute-long outages) run only
# in test-long, to keep test short.
test: setup web browser bench-peer ## set up and run the suite (all but the tests marked slow)
	$(PY) -m pytest

test-long: setup web browser bench-peer ## the whole suite, the tests marked slow included
	$(PY) -m pytest --long

# The deploy files that name games or bots (compose, Prometheus, Kubernetes games.yaml,
# KEDA), written from the registries for the games and bots this project ships.
deploy-files: setup ## write the deploy files that name games or bots from the registries
	$(PY) -m deploy.generate --distribution tavola

# TABLES=n: tables per game (default 21).
demo: setup ## set up, start the platform, play bot tables of every game (TABLES=n), stop
	$(PY) -m deploy.demo $(if $(TABLES),--tables $(TABLES))

# GATEWAYS=n and RULES_REPLICAS=n start several of each behind one balanced address.
run: setup web ## the platform in the foreground, gateway on 127.0.0.1:50051 (GATEWAYS=n RULES_REPLICAS=n)
	GATEWAYS=$(or $(GATEWAYS),1) RULES_REPLICAS=$(or $(RULES_REPLICAS),1) $(PY) -m deploy.run

# A game in the terminal against bots, through the gateway at TAVOLA_GATEWAY (or
# 127.0.0.1:TAVOLA_PORT, as make run), or a private platform started for it when none
# answers. JOIN=, SPECTATE= or REJOIN= a table id; PLAY_ARGS for more (--help lists them).
# The other seats are the search bot with the defaults tuned for each game (the plain name
# follows them; BOTS=ismcts:budget_ms=50 for a quicker one, BOTS=random for the weakest).
GAME ?= borgia
PLAYERS ?= 3
BOTS ?= ismcts
play: setup ## play in the terminal against bots (GAME= PLAYERS= BOTS= JOIN= SPECTATE= REJOIN=)
	$(PY) -m clients.terminal --start-stack --game $(GAME) --players $(PLAYERS) --bots '$(BOTS)' \
		$(if $(JOIN),--join $(JOIN)) $(if $(SPECTATE),--spectate $(SPECTATE)) $(if $(REJOIN),--rejoin $(REJOIN)) \
		$(PLAY_ARGS)

# Every figure beside a reference measured in the same run, 3 runs, each ratio's median and
# range (docs/benchmarks.md); JSON with BENCH_ARGS=--json, a background load with
# BENCH_ARGS=--contention. bench-quick runs every part small, once.
bench: setup bench-peer ## every benchmark figure beside its reference, 3 runs (BENCH_ARGS=--json, --contention)
	$(PY) -m bench --runs 3 $(BENCH_ARGS)
	$(PY) -m bench.presence

.PHONY: bench-quick bench-peer
bench-quick: setup bench-peer ## every benchmark part, small, once
	$(PY) -m bench --quick --runs 1 $(BENCH_ARGS)
	$(PY) -m bench.presence --seconds 3 --players 50 --streaming 2000

# The bench's peer, boardgame.io (bench/peer.py): its npm packages from its own
# package-lock.json, installed for the bench only (make setup and make test never do).
# Without node and npm the bench says so and runs without it.
PEER := bench/peers/boardgameio
ifeq ($(HAVE_NPM),yes)
$(PEER)/node_modules/.installed: $(PEER)/package-lock.json
	cd $(PEER) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

bench-peer: $(PEER)/node_modules/.installed ## install the bench's peer (boardgame.io, npm ci in bench/peers/boardgameio)
else
bench-peer:
	@echo "node and npm are not installed: the bench runs without its peer (boardgame.io)"
endif

# A short tournament per game, 2 players: ISMCTS (50 ms a decision), the game's heuristic
# bot and random, each pair in turn (python -m bots.lab.arena --help for more).
ARENA_GAMES ?= 30
.PHONY: arena
arena: setup ## a short bot tournament per game (ARENA_GAMES=n)
	$(PY) -m bots.lab.arena --game borgia --players 2 --bots ismcts:budget_ms=50,borgia-heuristic,random --games $(ARENA_GAMES)
	$(PY) -m bots.lab.arena --game mortadella --players 2 --bots ismcts:budget_ms=50,mortadella-heuristic,random --games $(ARENA_GAMES)
	$(PY) -m bots.lab.arena --game pecunia --players 2 --bots ismcts:budget_ms=50,pecunia-heuristic,random --games $(ARENA_GAMES)

clean: ## remove .venv, gen/ and the caches
	rm -rf gen gen.tmp $(VENV) .pytest_cache .ruff_cache .hypothesis
