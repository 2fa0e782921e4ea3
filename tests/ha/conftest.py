"""The HA tier's marks; skipped loudly when a server is missing, unless BERTH_REQUIRE_SERVICES=1."""

import pytest

# ``integration`` keeps these tests out of the parallel "not integration" pass;
# ``ha`` keeps them out of the integration pass and selects them for their own.
MARKS = [pytest.mark.integration, pytest.mark.ha, pytest.mark.timeout(900)]
