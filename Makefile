# Nexus — build scaffolding.
#
#   make setup      install/verify toolchain + Composer deps (idempotent)
#   make test       style check, static analysis, all PHPUnit suites (what CI runs)
#   make run        run the demo server on 127.0.0.1:8080 (php bin/nexus serve)
#   make demo       run the actor demo (php bin/nexus demo)
#   make style-fix  rewrite code to the project style
#   make analyse    PHPStan only
#   make unit       PHPUnit only (all suites)

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

PHP      ?= php
COMPOSER ?= composer

# Debian package that provides each PHP extension we need on Debian 12 (PHP 8.2).
#   runtime: pcntl is compiled into php8.2-cli; posix and sockets ship in php8.2-common.
#   dev tools (PHPUnit, PHP-CS-Fixer, Composer) additionally need dom/xml/xmlwriter/mbstring/tokenizer/ctype.
PHP_EXT_PACKAGES := pcntl:php8.2-cli posix:php8.2-common sockets:php8.2-common \
                    dom:php8.2-xml xml:php8.2-xml xmlwriter:php8.2-xml simplexml:php8.2-xml \
                    mbstring:php8.2-mbstring tokenizer:php8.2-common ctype:php8.2-common \
                    pgsql:php8.2-pgsql pdo_pgsql:php8.2-pgsql igbinary:php8.2-igbinary curl:php8.2-curl \
                    pdo_sqlite:php8.2-sqlite3

STAMP := vendor/.installed

export COMPOSER_ALLOW_SUPERUSER := 1
export DEBIAN_FRONTEND := noninteractive

.PHONY: help setup test run demo style-fix analyse unit

help:
	@echo "Targets:"
	@echo "  setup      check PHP >= 8.2, composer, PHP extensions; composer install when composer.json changed"
	@echo "  test       ==> style (php-cs-fixer check), ==> static analysis (phpstan), ==> tests (phpunit)"
	@echo "  run        the demo server on 127.0.0.1:8080 (php bin/nexus serve)"
	@echo "  demo       the actor demo (php bin/nexus demo), exits by itself"
	@echo "  bench      actor benchmarks (JIT and no JIT) into docs/performance.md"
	@echo "  bench-http wrk against nexus serve, Workerman (../shared/peers, if there), a bare loop and nginx+php-fpm (installs wrk/nginx/php-fpm)"
	@echo "  bench-workers  the worker pool: cross-worker messaging, world benchmark, HTTP 2 vs 1 workers (QUICK=1)"
	@echo "  bench-cluster  nodes over TCP loopback with a real etcd: cross-node tell/ask, world on 2 nodes vs 1 (QUICK=1; TLS=1: tell/ask over plain TCP vs TLS)"
	@echo "  chaos      the fault campaign: 2 workers under load, workers killed, reloads, slow clients, PostgreSQL/Redis restarts (SHORT=1: 20 s)"
	@echo "  bench-http-client  the HTTP client against curl_multi and Guzzle on nginx (installs nginx/php8.2-curl)"
	@echo "  bench-persistence  durable actors on SQLite and PostgreSQL against plain SQL, and over HTTP (QUICK=1)"
	@echo "  bench-ws   WebSocket echo, broadcast and idle connections, side by side with Workerman (QUICK=1)"
	@echo "  style-fix  php-cs-fixer fix (rewrites files)"
	@echo "  analyse    phpstan only"
	@echo "  unit       phpunit only (all suites)"

setup:
	@echo "==> setup: checking PHP, Composer, PHP extensions and Composer dependencies"
	@apt_updated=0; \
	apt_install() { \
	  if [ "$$(id -u)" -ne 0 ]; then \
	    echo "FAILED: setup — missing Debian package(s): $$*; not root, install them with: sudo apt-get install -y $$*" >&2; exit 1; \
	  fi; \
	  if [ "$$apt_updated" -eq 0 ]; then \
	    echo "setup: apt-get update"; \
	    apt-get update -qq || { echo "FAILED: setup — apt-get update" >&2; exit 1; }; \
	    apt_updated=1; \
	  fi; \
	  echo "setup: apt-get install -y $$*"; \
	  apt-get install -y -qq "$$@" || { echo "FAILED: setup — apt-get install -y $$*" >&2; exit 1; }; \
	}; \
	missing=(); \
	command -v $(PHP) >/dev/null 2>&1 || missing+=(php8.2-cli); \
	command -v $(COMPOSER) >/dev/null 2>&1 || missing+=(composer); \
	if [ "$${#missing[@]}" -gt 0 ]; then apt_install "$${missing[@]}"; fi; \
	command -v $(PHP) >/dev/null 2>&1 || { echo "FAILED: setup — '$(PHP)' not found on PATH" >&2; exit 1; }; \
	command -v $(COMPOSER) >/dev/null 2>&1 || { echo "FAILED: setup — '$(COMPOSER)' not found on PATH" >&2; exit 1; }; \
	$(PHP) -r 'exit(PHP_VERSION_ID >= 80200 ? 0 : 1);' \
	  || { echo "FAILED: setup — PHP >= 8.2 required, found $$($(PHP) -r 'echo PHP_VERSION;')" >&2; exit 1; }; \
	echo "setup: php $$($(PHP) -r 'echo PHP_VERSION;'), $$($(COMPOSER) --version 2>/dev/null | head -n1)"; \
	loaded="$$($(PHP) -m | tr 'A-Z' 'a-z')"; \
	missing=(); \
	for pair in $(PHP_EXT_PACKAGES); do \
	  ext="$${pair%%:*}"; pkg="$${pair#*:}"; \
	  if ! grep -qx "$$ext" <<<"$$loaded"; then \
	    echo "setup: PHP extension '$$ext' not loaded (Debian package $$pkg)"; \
	    case " $${missing[*]-} " in *" $$pkg "*) ;; *) missing+=("$$pkg");; esac; \
	  fi; \
	done; \
	if [ "$${#missing[@]}" -gt 0 ]; then \
	  apt_install "$${missing[@]}"; \
	  loaded="$$($(PHP) -m | tr 'A-Z' 'a-z')"; \
	  for pair in $(PHP_EXT_PACKAGES); do \
	    ext="$${pair%%:*}"; \
	    grep -qx "$$ext" <<<"$$loaded" \
	      || { echo "FAILED: setup — PHP extension '$$ext' still not loaded after install (is it disabled? try: phpenmod $$ext)" >&2; exit 1; }; \
	  done; \
	fi; \
	echo "setup: PHP extensions ok (pcntl posix sockets pgsql igbinary + dev-tool extensions)"; \
	missing=(); \
	command -v redis-server >/dev/null 2>&1 || missing+=(redis-server); \
	command -v etcd >/dev/null 2>&1 || missing+=(etcd-server); \
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql); \
	PATH="$$PATH:/usr/sbin:/sbin" command -v nginx >/dev/null 2>&1 || missing+=(nginx); \
	PATH="$$PATH:/usr/sbin:/sbin" command -v php-fpm8.2 >/dev/null 2>&1 || missing+=(php8.2-fpm); \
	command -v promtool >/dev/null 2>&1 || missing+=(prometheus); \
	command -v chromium >/dev/null 2>&1 || missing+=(chromium); \
	if [ "$${#missing[@]}" -gt 0 ]; then apt_install "$${missing[@]}"; fi; \
	echo "setup: servers the tests start themselves ok (redis-server, etcd $$(etcd --version 2>/dev/null | head -n1 | awk '{print $$3}'), postgresql $$(ls -d /usr/lib/postgresql/*/ | xargs -n1 basename | tail -n1), nginx, php-fpm8.2)"; \
	echo "setup: observability test tools ok (promtool from prometheus, headless chromium)"; \
	if [ ! -f vendor/autoload.php ] || [ ! -f $(STAMP) ] || [ composer.json -nt $(STAMP) ]; then \
	  echo "setup: composer install (vendor/ missing or composer.json newer than $(STAMP))"; \
	  rm -f $(STAMP); \
	  $(COMPOSER) install --no-interaction --no-progress \
	    || { echo "FAILED: setup — composer install" >&2; exit 1; }; \
	  touch $(STAMP); \
	else \
	  echo "setup: composer dependencies up to date (skipping composer install)"; \
	fi; \
	mkdir -p var
	@echo "setup: ok"

test: setup
	@echo "==> style (php-cs-fixer check)"
	@vendor/bin/php-cs-fixer check --diff \
	  || { echo "FAILED: style (php-cs-fixer) — run 'make style-fix' to fix" >&2; exit 1; }
	@echo "==> static analysis (phpstan)"
	@vendor/bin/phpstan analyse --no-progress --memory-limit=1G \
	  || { echo "FAILED: static analysis (phpstan)" >&2; exit 1; }
	@echo "==> tests (phpunit)"
	@vendor/bin/phpunit \
	  || { echo "FAILED: tests (phpunit)" >&2; exit 1; }
	@echo "test: ok (style, static analysis, tests)"

run: setup
	@echo "==> run: the demo server on http://127.0.0.1:8080 (php bin/nexus serve; Ctrl+C stops it)"
	@[ -f bin/nexus ] || { echo "FAILED: run — bin/nexus does not exist" >&2; exit 1; }
	@$(PHP) bin/nexus serve --host=127.0.0.1 --port=8080 \
	  || { echo "FAILED: run (php bin/nexus serve)" >&2; exit 1; }

demo: setup
	@echo "==> demo: php bin/nexus demo (supervision and ask, exits by itself)"
	@$(PHP) bin/nexus demo \
	  || { echo "FAILED: demo (php bin/nexus demo)" >&2; exit 1; }

style-fix: setup
	@echo "==> style-fix (php-cs-fixer fix: rewrites files in place)"
	@vendor/bin/php-cs-fixer fix \
	  || { echo "FAILED: style-fix (php-cs-fixer fix)" >&2; exit 1; }

analyse: setup
	@echo "==> static analysis (phpstan)"
	@vendor/bin/phpstan analyse --no-progress --memory-limit=1G \
	  || { echo "FAILED: static analysis (phpstan)" >&2; exit 1; }

unit: setup
	@echo "==> tests (phpunit, all suites)"
	@vendor/bin/phpunit \
	  || { echo "FAILED: tests (phpunit)" >&2; exit 1; }

# ---- benchmarks (bench/, results in docs/performance.md) ------------------------------------------

.PHONY: bench bench-smoke bench-hotpath

bench: setup
	@mkdir -p bench/results
	@echo "==> bench: actor suite with the tracing JIT (progress on stderr)"
	@$(PHP) -d opcache.enable_cli=1 -d opcache.jit=tracing -d opcache.jit_buffer_size=64M bench/run.php --json=bench/results/actor-jit.json \
	  || { echo "FAILED: bench (tracing JIT)" >&2; exit 1; }
	@echo "==> bench: actor suite without the JIT (OPcache on, opcache.jit=off)"
	@$(PHP) -d opcache.enable_cli=1 -d opcache.jit=off bench/run.php --json=bench/results/actor-nojit.json \
	  || { echo "FAILED: bench (no JIT)" >&2; exit 1; }
	@echo "==> bench: hot-path breakdown (tracing JIT)"
	@$(PHP) -d opcache.enable_cli=1 -d opcache.jit=tracing -d opcache.jit_buffer_size=64M bench/hotpath.php | tee bench/results/hotpath-jit.txt \
	  || { echo "FAILED: bench (hot path)" >&2; exit 1; }
	@echo "==> bench: report (docs/performance.md, docs/img/actor-bench.svg)"
	@$(PHP) bench/report.php \
	  --jit-command='php -d opcache.enable_cli=1 -d opcache.jit=tracing -d opcache.jit_buffer_size=64M bench/run.php --json=bench/results/actor-jit.json' \
	  --nojit-command='php -d opcache.enable_cli=1 -d opcache.jit=off bench/run.php --json=bench/results/actor-nojit.json' \
	  || { echo "FAILED: bench (report)" >&2; exit 1; }

bench-smoke: setup
	@echo "==> bench-smoke: every case at tiny counts, 1 warm-up + 5 runs"
	@$(PHP) bench/run.php --smoke \
	  || { echo "FAILED: bench-smoke" >&2; exit 1; }

bench-hotpath: setup
	@echo "==> bench-hotpath: cost of each stage of a message (tracing JIT)"
	@$(PHP) -d opcache.enable_cli=1 -d opcache.jit=tracing -d opcache.jit_buffer_size=64M bench/hotpath.php \
	  || { echo "FAILED: bench-hotpath" >&2; exit 1; }

# ---- worker pool benchmarks (bench/workers/, results in docs/performance.md) ------------------------

.PHONY: bench-workers bench-mesh

# QUICK=1: smaller counts and 3 s wrk runs.
bench-workers: setup
	$(call http_bench_tools,wrk:wrk)
	@mkdir -p bench/results
	@echo "==> bench-workers: cross-worker messaging, the world benchmark (1 and 2 workers), HTTP with 1 and 2 workers (progress on stderr)"
	@$(PHP) -d opcache.enable_cli=1 -d opcache.jit=tracing -d opcache.jit_buffer_size=64M bench/workers/run.php $(if $(QUICK),--quick,) \
	  || { echo "FAILED: bench-workers" >&2; exit 1; }

# The mesh micro cases: CPU time per message crossing between two workers in one process.
bench-mesh: setup
	@echo "==> bench-mesh: what a message crossing between workers costs (tracing JIT)"
	@$(PHP) -d opcache.enable_cli=1 -d opcache.jit=tracing -d opcache.jit_buffer_size=64M bench/workers/mesh.php \
	  || { echo "FAILED: bench-mesh" >&2; exit 1; }

# ---- cluster benchmark (bench/cluster/, results in docs/performance.md and docs/cluster.md) ---------

.PHONY: bench-cluster

# QUICK=1: smaller counts, one world run per case. etcd comes with `setup` (etcd-server).
bench-cluster: setup
	@mkdir -p bench/results
	@echo "==> bench-cluster: nodes on TCP loopback, a real etcd: cross-node tell and ask, the world benchmark on 2 nodes vs 1 (progress on stderr)"
	@$(PHP) -d opcache.enable_cli=1 -d opcache.jit=tracing -d opcache.jit_buffer_size=64M bench/cluster/run.php $(if $(QUICK),--quick,) $(if $(TLS),--tls,) \
	  || { echo "FAILED: bench-cluster" >&2; exit 1; }

# ---- HTTP benchmarks (bench/http/, results in docs/performance.md) ---------------------------------

.PHONY: bench-http bench-http-smoke

# Debian packages providing the tools bench/http/run.php drives (command:package).
HTTP_BENCH_TOOLS := wrk:wrk nginx:nginx php-fpm8.2:php8.2-fpm

# Installs the missing tools of $(1) (command:package pairs) with apt-get when root; otherwise says how.
define http_bench_tools
	@missing=(); \
	for pair in $(1); do \
	  cmd="$${pair%%:*}"; pkg="$${pair#*:}"; \
	  PATH="$$PATH:/usr/sbin:/sbin" command -v "$$cmd" >/dev/null 2>&1 || missing+=("$$pkg"); \
	done; \
	if [ "$${#missing[@]}" -gt 0 ]; then \
	  if [ "$$(id -u)" -ne 0 ]; then \
	    echo "FAILED: bench-http — missing Debian package(s): $${missing[*]}; not root, install them with: sudo apt-get install -y $${missing[*]}" >&2; exit 1; \
	  fi; \
	  echo "bench-http: apt-get update"; \
	  apt-get update -qq || { echo "FAILED: bench-http — apt-get update" >&2; exit 1; }; \
	  echo "bench-http: apt-get install -y $${missing[*]}"; \
	  apt-get install -y -qq "$${missing[@]}" || { echo "FAILED: bench-http — apt-get install -y $${missing[*]}" >&2; exit 1; }; \
	fi
endef

bench-http: setup
	$(call http_bench_tools,$(HTTP_BENCH_TOOLS))
	@mkdir -p bench/results
	@echo "==> bench-http: wrk against nexus serve, Workerman (../shared/peers; skipped with a note when missing), the bare loop and nginx + php-fpm (100 and 1,000 connections; progress on stderr)"
	@$(PHP) bench/http/run.php \
	  || { echo "FAILED: bench-http" >&2; exit 1; }

bench-http-smoke: setup
	$(call http_bench_tools,wrk:wrk)
	@mkdir -p bench/results
	@echo "==> bench-http-smoke: 1 s wrk runs, 100 connections, nexus serve + the bare loop (no report)"
	@$(PHP) bench/http/run.php --smoke \
	  || { echo "FAILED: bench-http-smoke" >&2; exit 1; }

# ---- database-bound benchmark (bench/db/, results in docs/performance.md) -------------------------

.PHONY: bench-db bench-db-smoke

# Debian packages providing what bench/db/run.php drives (command:package); PostgreSQL is checked by `setup`.
DB_BENCH_TOOLS := nginx:nginx php-fpm8.2:php8.2-fpm

# make bench-db QUICK=1: about a minute (1 and 2 workers, short steps, a coarse rate search).
DB_BENCH_FLAGS := $(if $(filter 1 yes true,$(QUICK)),--quick,)

bench-db: setup
	$(call http_bench_tools,$(DB_BENCH_TOOLS))
	@mkdir -p bench/results
	@echo "==> bench-db: nexus (async PostgreSQL) vs nginx + php-fpm (PDO), loopback and a 1 ms proxy, open-model load $(DB_BENCH_FLAGS) (progress on stderr)"
	@$(PHP) bench/db/run.php $(DB_BENCH_FLAGS) \
	  || { echo "FAILED: bench-db" >&2; exit 1; }

bench-db-smoke: setup
	$(call http_bench_tools,$(DB_BENCH_TOOLS))
	@mkdir -p bench/results
	@echo "==> bench-db-smoke: a few seconds, 1 worker, no report"
	@$(PHP) bench/db/run.php --smoke \
	  || { echo "FAILED: bench-db-smoke" >&2; exit 1; }

# ---- fault campaign (bench/chaos/, results in docs/reliability.md) --------------------------------

.PHONY: chaos

# SHORT=1: every fault once in 20 s, no report (what CI runs through tests/Integration/Chaos).
chaos: setup
	@mkdir -p bench/results
	@echo "==> chaos: the fault campaign against nexus serve --workers=2 (progress on stderr)"
	@$(PHP) bench/chaos/run.php $(if $(filter 1 yes true,$(SHORT)),--short,) \
	  || { echo "FAILED: chaos (see the table above: acknowledged operations lost, or the campaign could not run)" >&2; exit 1; }

# ---- HTTP client benchmark (bench/http-client/, results in docs/performance.md) ---------------------

.PHONY: bench-http-client bench-http-client-smoke

bench-http-client: setup
	$(call http_bench_tools,nginx:nginx)
	@$(PHP) -r 'exit(function_exists("curl_multi_init") ? 0 : 1);' || { [ "$$(id -u)" -eq 0 ] && apt-get update -qq && apt-get install -y -qq php8.2-curl; } \
	  || { echo "FAILED: bench-http-client — ext-curl missing: apt-get install -y php8.2-curl" >&2; exit 1; }
	@mkdir -p bench/results
	@echo "==> bench-http-client: Nexus HttpClient vs curl_multi vs Guzzle against nginx (static file, 64 in flight, and one warm connection; progress on stderr)"
	@$(PHP) bench/http-client/run.php \
	  || { echo "FAILED: bench-http-client" >&2; exit 1; }

bench-http-client-smoke: setup
	$(call http_bench_tools,nginx:nginx)
	@mkdir -p bench/results
	@echo "==> bench-http-client-smoke: 1 s runs, one round, no report"
	@$(PHP) bench/http-client/run.php --smoke \
	  || { echo "FAILED: bench-http-client-smoke" >&2; exit 1; }

# ---- persistence benchmark (bench/persistence/, results in docs/performance.md) -------------------

.PHONY: bench-persistence

# QUICK=1: smaller counts, 2 runs per case, HTTP with 2 workers only.
bench-persistence: setup
	$(call http_bench_tools,wrk:wrk)
	@mkdir -p bench/results
	@echo "==> bench-persistence: SQLite and PostgreSQL against plain SQL, recovery, HTTP counters (progress on stderr)"
	@$(PHP) bench/persistence/run.php $(if $(QUICK),--quick,) \
	  || { echo "FAILED: bench-persistence" >&2; exit 1; }

# ---- WebSocket benchmark (bench/ws/, results in docs/performance.md) -------------------------------

.PHONY: bench-ws

# QUICK=1: 2 rounds of 2 s, 300 idle connections (2,000 on one worker), no report. Workerman comes from ../shared/peers.
bench-ws: setup
	@mkdir -p bench/results
	@echo "==> bench-ws: echo (100 connections), broadcast (1,000 clients, 2 workers) and idle connections, Nexus and Workerman side by side (progress on stderr)"
	@$(PHP) bench/ws/run.php $(if $(filter 1 yes true,$(QUICK)),--quick,) \
	  || { echo "FAILED: bench-ws" >&2; exit 1; }
