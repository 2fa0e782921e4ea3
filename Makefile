# The two commands a newcomer needs (see README.md):
#   make run    install berth and start it on its embedded defaults
#   make test   install berth with its test dependencies and run every test
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
STAMP := $(VENV)/.installed
RUN_STAMP := $(VENV)/.installed-run
PYTEST_ARGS ?=

.PHONY: run test lint test-unit test-functional test-integration test-types test-wheel \
	test-db-parity test-compat install sample-config sample-policy api-ref clean

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

run: $(RUN_STAMP)
	$(VENV)/bin/berth serve

# ruff first (a lint failure stops the run before any server starts), then
# mypy (test-types), then the
# wheel in an empty venv (a packaging error fails in about a minute), then
# three passes: the unit/functional tiers in parallel, then the integration tier
# (real RabbitMQ/etcd/Redis/PostgreSQL and conductor processes) on its own, so
# its heartbeats and timeouts do not compete with the parallel tiers for CPU,
# then the short chaos run (tests/chaos, under 8 minutes; it prints its table),
# then the partition cases on namespaced hosts (tests/partitions, about 5 minutes),
# then the HA tier (tests/ha: one node of a clustered RabbitMQ, etcd or PostgreSQL
# killed under load; under 10 minutes; it prints requests, 5xx and worst request).
# Every pass must collect tests: "no tests collected" (pytest's exit 5) fails
# the run, so a pass whose marker or path stopped matching cannot pass empty.
test: $(STAMP)
	$(MAKE) lint
	$(MAKE) test-types
	$(MAKE) test-wheel
	$(VENV)/bin/pytest -n auto -m "not integration" $(PYTEST_ARGS)
	$(MAKE) test-db-parity
	$(MAKE) test-integration
	$(MAKE) test-compat
	$(VENV)/bin/pytest -m chaos -s $(PYTEST_ARGS)
	$(VENV)/bin/pytest -m netns -s $(PYTEST_ARGS)
	$(VENV)/bin/pytest -m ha -s $(PYTEST_ARGS)

# One tier at a time (tox.ini's environments call these; PYTEST_ARGS goes to
# that tier only).  `make test` runs the same commands in its own order.
lint: $(STAMP)
	$(VENV)/bin/ruff check .

test-unit: $(STAMP)
	$(VENV)/bin/pytest -n auto tests/unit $(PYTEST_ARGS)

# the embedded berth (SQLite) tier alone; test-db-parity runs it on the servers
test-functional: $(STAMP)
	$(VENV)/bin/pytest -n auto tests/functional $(PYTEST_ARGS)

# real RabbitMQ/etcd/Redis/PostgreSQL/Keystone and conductor processes, not
# the chaos, partition, HA and compat runs (their own targets and passes)
test-integration: $(STAMP)
	$(VENV)/bin/pytest -m "integration and not chaos and not netns and not ha and not compat" $(PYTEST_ARGS)

# Static types: mypy over the packages setup.cfg's [mypy] section lists
# (conductor, objects, db, common), which must stay at 0 errors.
test-types: $(STAMP)
	$(VENV)/bin/mypy

# The compatibility tier: the community's own suites (tests/compat), each in a
# pinned venv of its own, run unmodified against a real berth; each prints its
# counts and fails on a failure its expected-failures list does not name.
test-compat: $(STAMP)
	$(VENV)/bin/pytest -m compat -s $(PYTEST_ARGS)

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

# regenerate etc/berth/berth.conf.sample, doc/configuration.md and
# doc/api/placement-endpoints.md (tests fail when they are stale)
sample-config: $(STAMP)
	$(VENV)/bin/oslo-config-generator --config-file etc/berth/berth-config-generator.conf \
		--output-file etc/berth/berth.conf.sample
	$(PY) -m common.conf.reference doc/configuration.md
	$(PY) -m api.placement.reference doc/api/placement-endpoints.md

# regenerate etc/berth/policy.yaml.sample: every policy rule of both APIs with
# its default (a test fails when it is stale)
sample-policy: $(STAMP)
	$(VENV)/bin/oslopolicy-sample-generator --config-file etc/berth/berth-policy-generator.conf \
		--output-file etc/berth/policy.yaml.sample

# regenerate api-ref/source's .inc files and parameters.yaml from the route
# tables (a test fails when they are stale), then build the os-api-ref HTML
APIREF_STAMP := $(VENV)/.installed-api-ref
$(APIREF_STAMP): $(RUN_STAMP) doc/requirements.txt
	$(PIP) install -q -c constraints.txt -r doc/requirements.txt
	touch $(APIREF_STAMP)

api-ref: $(APIREF_STAMP)
	$(PY) -m api.api_ref api-ref/source
	$(VENV)/bin/sphinx-build -W -b html api-ref/source api-ref/build/html

clean:
	rm -rf $(VENV) berth-data .pytest_cache
