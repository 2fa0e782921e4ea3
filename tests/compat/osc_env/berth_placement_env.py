"""The Placement fixtures osc-placement's functional tests import, backed by a real berth.

osc-placement's ``tests/functional/base.py`` imports
``placement.tests.functional.fixtures.placement.PlacementFixture`` (an
in-process Placement behind wsgi-intercept, a fresh database per test) and
``...fixtures.capture.Logging``.  The compat tier runs those tests in the
osc-placement venv without openstack-placement: ``placement/…`` modules
re-exporting the two classes below are laid out on ``PYTHONPATH``
(``tests/compat/osc_harness.py``).

Runs inside the suite venv: standard library and ``fixtures`` only.
``PlacementFixture`` asks the harness (``BERTH_OSC_CONTROL``, a loopback
URL) for a fresh berth per test and gives it back at cleanup; its
``endpoint`` and ``token`` are what the base module passes to the
``openstack`` CLI (``--os-endpoint``, ``--os-token``).
"""

import json
import logging
import os
import urllib.request

import fixtures

CONTROL_TIMEOUT = 120


def _control(method, path):
    req = urllib.request.Request(os.environ['BERTH_OSC_CONTROL'] + path, method=method,
                                 data=b'' if method == 'POST' else None)
    with urllib.request.urlopen(req, timeout=CONTROL_TIMEOUT) as resp:
        body = resp.read()
    return json.loads(body) if body else None


class PlacementFixture(fixtures.Fixture):
    """A fresh berth (noauth2, Placement's legacy policy defaults) for one test."""

    def __init__(self, token='admin', conf_fixture=None, db=True, use_intercept=True,
                 register_opts=True):
        super().__init__()
        self.token = token
        self.endpoint = None

    def _setUp(self):
        berth = _control('POST', '/berths')
        self.endpoint = berth['endpoint']
        self.addCleanup(_control, 'DELETE', '/berths/%s' % berth['id'])


class Logging(fixtures.Fixture):
    """Log records of the test kept in memory (shown by testtools on failure)."""

    def _setUp(self):
        self.logger = self.useFixture(fixtures.FakeLogger(level=logging.INFO))
