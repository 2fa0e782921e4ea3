"""The chaos tier: skipped loudly when a server is missing, unless BERTH_REQUIRE_SERVICES=1."""

import os

import pytest

from tests.chaos import deployment

REQUIRE = os.environ.get('BERTH_REQUIRE_SERVICES') == '1'

# Test modules here carry ``pytestmark = MARKS``.  ``integration`` keeps the
# tier out of the parallel "not integration" pass; ``make test`` runs it in a
# pass of its own (-m chaos) after the integration pass.
MARKS = [pytest.mark.integration, pytest.mark.chaos, pytest.mark.timeout(1200)]


@pytest.fixture
def chaos_servers():
    """Fail or skip (loudly) unless every server of a deployment is installed."""
    missing = deployment.missing_binaries('etcd')
    if missing:
        reason = ('!!! chaos tier SKIPPED: servers not installed: %s; install the Debian '
                  'packages (see .ci/run) !!!' % missing)
        if REQUIRE:
            pytest.fail(reason + ' [BERTH_REQUIRE_SERVICES=1]')
        pytest.skip(reason)
