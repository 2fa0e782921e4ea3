"""The partition tier: namespaced hosts; skipped loudly when it cannot run, unless required."""

import os

import pytest

from tests import netns
from tests.chaos import deployment

REQUIRE = os.environ.get('BERTH_REQUIRE_SERVICES') == '1'

# ``integration`` keeps the tier out of the parallel pass; ``make test`` runs
# it in a pass of its own (-m netns) after the chaos pass.
MARKS = [pytest.mark.integration, pytest.mark.netns, pytest.mark.timeout(900)]


@pytest.fixture
def partition_hosts():
    """Fail or skip (loudly) unless namespaces work and every server is installed."""
    reason = netns.unavailable_reason()
    missing = deployment.missing_binaries('etcd')
    if reason is None and missing:
        reason = 'servers not installed: %s; install the Debian packages (see .ci/run)' % (
            missing,)
    if reason:
        text = '!!! partition tier SKIPPED: %s !!!' % reason
        if REQUIRE:
            pytest.fail(text + ' [BERTH_REQUIRE_SERVICES=1]')
        pytest.skip(text)
    netns.remove_stale()
