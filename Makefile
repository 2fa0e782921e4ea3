# The two commands a newcomer needs (see README.md):
#   make run    install berth and start it on its embedded defaults
#   make test   install berth with its test dependencies and run every test
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
STAMP := $(VENV)/.installed
RUN_STAMP := $(VENV)/.installed-run
DOC_STAMP := $(VENV)/.installed-docs
# -W: a warning (a broken link or anchor, a page in no toctree) fails the build;
# -E: read every page each time, so a warning is never hidden by a cached one
SPHINX := $(VENV)/bin/sphinx-build -q -W --keep-going -E
PYTEST_ARGS ?=

.PHONY: run test lint test-quick test-unit test-functional test-integration test-types test-wheel \
	test-db-parity test-compat test-nova-report-client test-parity-compat install sample-config sample-policy clean \
	docs docs-html man releasenotes api-ref

# `make run` installs what the service needs (requirements.txt) and nothing of
# the test toolchain; `make test` adds test-requirements.txt on top.
$(RUN_STAMP): requirements.txt constraints.txt setup.cfg setup.py pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q -c constraints.txt -r requirements.txt
	$(PIP) install -q -c constraints.txt --no-deps -e .
	touch $(RUN_STAMP)

# the `openstack berth ...` plugin (client/, a distribution of its own) is
# installed here, not listed in test-requirements.txt: pbr reads that file into
# the package's extras, where an editable path is no requirement specifier
$(STAMP): $(RUN_STAMP) test-requirements.txt client/pyproject.toml
	$(PIP) install -q -c constraints.txt -r requirements.txt -r test-requirements.txt
	$(PIP) install -q -c constraints.txt -e ./client
	touch $(STAMP)

install: $(STAMP)

# `make run ARGS='--placement-port 9778 --baremetal-port 7385'`: berth serve's options
ARGS ?=
run: $(RUN_STAMP)
	$(VENV)/bin/berth serve $(ARGS)

# ruff first (a lint failure stops the run before any server starts), then
# mypy (test-types), then the wheel in an empty venv (a packaging error fails
# in about a minute), then the unit/functional tiers in parallel, then the
# functional tier on PostgreSQL and MariaDB with the compat tier and then the
# HA tier beside it (test-parity-compat; tests/ha: one node of a clustered
# RabbitMQ, etcd or PostgreSQL killed under load, about 8 minutes; it prints
# requests, 5xx and worst request, and asserts no bound on time), then the
# integration tier (real RabbitMQ/etcd/Redis/PostgreSQL and conductor
# processes) on its own, so its heartbeats and timeouts do not compete with
# other passes for CPU, then the short chaos run (tests/chaos, under 8
# minutes; it prints its table), then the partition cases on namespaced hosts
# (tests/partitions, about 5 minutes).
# Every pass must collect tests: "no tests collected" (pytest's exit 5) fails
# the run, so a pass whose marker or path stopped matching cannot pass empty.
test: $(STAMP)
	$(MAKE) lint
	$(MAKE) test-types
	$(MAKE) test-wheel
	$(MAKE) docs
	$(VENV)/bin/pytest -n auto -m "not integration" $(PYTEST_ARGS)
	$(MAKE) test-parity-compat
	$(MAKE) test-integration
	$(VENV)/bin/pytest -m chaos -s $(PYTEST_ARGS)
	$(VENV)/bin/pytest -m netns -s $(PYTEST_ARGS)

# One tier at a time (tox.ini's environments call these; PYTEST_ARGS goes to
# that tier only).  `make test` runs the same commands in its own order.
lint: $(STAMP)
	$(VENV)/bin/ruff check .

test-unit: $(STAMP)
	$(VENV)/bin/pytest -n auto tests/unit $(PYTEST_ARGS)

# The loop before a commit, under 3 minutes on 2 cores (not part of `make
# test`): ruff, mypy, the unit tier, then the functional tests the change
# touches since its merge-base with origin/main or main (changed, named after a
# changed module, or importing one; at most 6 files, the rest named), or a
# smoke subset when it touches none.  `$(PY) tests/quick.py --list` shows the
# pick; tests/quick.py says how it is made.
test-quick: $(STAMP)
	$(PY) tests/quick.py

# the embedded berth (SQLite) tier alone; test-db-parity runs it on the servers
test-functional: $(STAMP)
	$(VENV)/bin/pytest -n auto tests/functional $(PYTEST_ARGS)

# real RabbitMQ/etcd/Redis/PostgreSQL/Keystone and conductor processes, not
# the chaos, partition, HA and compat runs (their own targets and passes)
# Two workers, a test file's tests on one of them (--dist loadfile: a module's
# servers and conductor processes are its own): 80 tests in ~9 min instead of
# ~17 on 2 cores.  Each worker starts its own servers on free loopback ports.
test-integration: $(STAMP)
	$(VENV)/bin/pytest -n 2 --dist loadfile -m "integration and not chaos and not netns and not ha and not compat" $(PYTEST_ARGS)

# Static types: mypy over the packages setup.cfg's [mypy] section lists
# (conductor, objects, db, common, api, cli, bench, check_untyped_defs), which
# must stay at 0 errors.
test-types: $(STAMP)
	$(VENV)/bin/mypy

# The compatibility tier: the community's own suites (tests/compat), each in a
# pinned venv of its own, run unmodified against a real berth; each prints its
# counts and fails on a failure its expected-failures list does not name.
test-compat: $(STAMP)
	$(VENV)/bin/pytest -m compat -s $(PYTEST_ARGS)

# nova 34.0.0's report-client functional tests alone (make test-compat runs
# them too), unmodified, against fresh berths and against berths imported from
# a real Placement 16 (tests/compat/test_nova_report_client.py; 70-78 s on 2
# busy cores once its 408 MB venv is built, in ~80 s).
test-nova-report-client: $(STAMP)
	$(VENV)/bin/pytest -s tests/compat/test_nova_report_client.py $(PYTEST_ARGS)

# The wheel as an operator gets it: built from this checkout, installed with
# its declared requirements only into a fresh venv in a temporary directory,
# `berth --version`, then `berth serve` on free loopback ports until GET /
# answers, stopped with SIGTERM (tests/wheel_smoke.py).
test-wheel: $(STAMP)
	$(PY) tests/wheel_smoke.py

# The functional tier (API + in-process conductors) again on PostgreSQL and on
# MariaDB: same tests, same answers.  Each xdist worker starts its own server
# and leases a pool of migrated databases (tests/dbengines.py).
test-db-parity: $(STAMP)
	BERTH_TEST_DB=postgresql $(VENV)/bin/pytest -n auto tests/functional $(PYTEST_ARGS)
	BERTH_TEST_DB=mysql $(VENV)/bin/pytest -n auto tests/functional $(PYTEST_ARGS)

# The parity passes and, beside them, the compat tier and then the HA tier
# (make test runs this): the parity passes wait on their database servers,
# the compat suites on their berths and Keystone and the HA cases on their
# clusters' failovers more than any of them computes, so together they take
# about as long as the parity passes alone (CI, 2 cores: parity ~25 min,
# compat ~18 then HA ~8).  The second lane's output goes to a file, printed
# whole when both have ended (no interleaving); either failing fails the
# target.  HA runs even when compat failed, so one run shows both.
test-parity-compat: $(STAMP)
	@log=$$(mktemp -t berth-compat.XXXXXX); \
	{ $(MAKE) --no-print-directory test-compat; c=$$?; \
	  $(VENV)/bin/pytest -m ha -s $(PYTEST_ARGS); h=$$?; \
	  echo "==== make test-compat: exit $$c; pytest -m ha: exit $$h ===="; \
	  test $$c -eq 0 && test $$h -eq 0; } > $$log 2>&1 & compat=$$!; \
	$(MAKE) --no-print-directory test-db-parity; parity=$$?; \
	wait $$compat; rc=$$?; \
	echo "==== make test-compat, then pytest -m ha (ran beside test-db-parity): exit $$rc ===="; \
	cat $$log; rm -f $$log; \
	test $$parity -eq 0 && test $$rc -eq 0

# The documentation as OpenStack publishes it (doc/source, Markdown pages
# through myst-parser): HTML into doc/build/html, the five commands' man pages
# into doc/build/man, the release notes (reno, one section per git tag; no tag
# needed) into releasenotes/build/html.  Its tools (doc/requirements.txt) go
# into the venv on their own stamp, so `make run` and `make test`'s installs
# stay as they are.  reno needs the whole git history (in a shallow clone it
# fails with a traceback): releasenotes unshallows the clone first, or stops
# with a one-line reason when that fetch fails.
$(DOC_STAMP): doc/requirements.txt constraints.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q -c constraints.txt -r doc/requirements.txt
	touch $(DOC_STAMP)

docs: docs-html man releasenotes api-ref

docs-html: $(DOC_STAMP)
	$(SPHINX) -b html doc/source doc/build/html

man: $(DOC_STAMP)
	$(SPHINX) -b man doc/source doc/build/man

releasenotes: $(DOC_STAMP)
	@if test "$$(git rev-parse --is-shallow-repository)" = true; then \
		echo 'releasenotes: a shallow git clone, reno needs the whole history: git fetch --unshallow'; \
		git fetch -q --unshallow --tags; \
		if test "$$(git rev-parse --is-shallow-repository)" = true; then \
			echo 'releasenotes: still a shallow clone (git fetch --unshallow failed);' \
				'reno cannot render the notes without the history' >&2; exit 1; fi; fi
	$(SPHINX) -b html releasenotes/source releasenotes/build/html

# regenerate etc/berth/berth.conf.sample (doc/source/configuration.md is
# rendered by oslo_config.sphinxext when the docs are built),
# doc/source/api/placement-endpoints.md (tests fail when they are stale)
sample-config: $(STAMP)
	$(VENV)/bin/oslo-config-generator --config-file etc/berth/berth-config-generator.conf \
		--output-file etc/berth/berth.conf.sample
	$(PY) -m api.placement.reference doc/source/api/placement-endpoints.md
	$(PY) -m cli.api_ref.generate api-ref/source
	$(PY) -m cli.api_ref.samples api-ref/source/samples

# regenerate etc/berth/policy.yaml.sample: every policy rule of both APIs with
# its default (a test fails when it is stale)
sample-policy: $(STAMP)
	$(VENV)/bin/oslopolicy-sample-generator --config-file etc/berth/berth-policy-generator.conf \
		--output-file etc/berth/policy.yaml.sample

# the os-api-ref reference of both APIs and berth's extensions; its .inc
# files and parameters.yaml are generated from the route tables and its
# samples from a scenario run against an embedded berth by
# `make sample-config` (tests/unit/test_api_ref.py and
# tests/functional/test_api_ref_samples.py fail when they are stale),
# so this target only builds what is committed
api-ref: $(DOC_STAMP)
	$(SPHINX) -b html api-ref/source api-ref/build/html

clean:
	rm -rf $(VENV) berth-data .pytest_cache doc/build releasenotes/build api-ref/build
