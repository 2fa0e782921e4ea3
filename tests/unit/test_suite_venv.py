"""tests.services.install_venv, as the compat suites' venvs use it: all or nothing."""

import os
import time

import pytest

from tests import services
from tests.compat import suite_venv


def test_a_failing_step_leaves_no_venv_and_says_why(tmp_path):
    venv = str(tmp_path / 'v')
    os.makedirs(venv)
    with pytest.raises(suite_venv.SuiteUnavailable, match=r'(?s)failed \(3\).*no index here'):
        services.install_venv(venv, [['sh', '-c', 'echo no index here; exit 3']],
                              time.monotonic() + 60, suite_venv.SuiteUnavailable, 'x',
                              os.path.join(venv, 'stamp'))
    assert not os.path.exists(venv)


def test_the_stamp_is_written_after_every_step(tmp_path):
    venv = str(tmp_path / 'v')
    stamp = os.path.join(venv, '.berth-installed')
    services.install_venv(venv, [['mkdir', '-p', venv]], time.monotonic() + 60,
                          suite_venv.SuiteUnavailable, 'pins.txt', stamp)
    assert suite_venv._ready(venv) is False          # no bin/python: not a venv yet
    with open(stamp) as f:
        assert f.read() == 'pins.txt\n'
