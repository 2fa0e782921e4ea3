"""Runs nova's report-client functional tests, inside the nova suite venv.

Started as a script by the venv's own python (never imported by berth or by
pytest's process): ``nova_driver.py RESULTS.json`` loads
``nova.tests.functional.test_report_client``, runs it with unittest and
writes one entry per test (``{"name", "status", "detail"}``, the recorder of
``../osc_env/osc_driver.py``) to ``RESULTS.json``.  The module's
``PlacementFixture`` comes from the stand-in laid out on ``PYTHONPATH``
(``tests/compat/osc_harness.fixture_package``): a berth per test.
"""

import json
import os
import sys
import unittest

MODULE = 'nova.tests.functional.test_report_client'

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'osc_env'))
from osc_driver import Recorder  # noqa: E402


def main():
    out_path, names = sys.argv[1], sys.argv[2:]
    loader = unittest.defaultTestLoader
    if names:
        suite = loader.loadTestsFromNames(names)
    else:
        suite = loader.loadTestsFromName(MODULE)
    result = Recorder()
    suite.run(result)   # a module that cannot be imported is an error of its own
    with open(out_path, 'w') as f:
        json.dump(result.outcomes, f)


if __name__ == '__main__':
    main()
