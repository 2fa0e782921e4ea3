"""tests.services.build_once: a kept tool directory is built once, waits are bounded."""

import fcntl
import os

import pytest

from tests import services


class Unavailable(Exception):
    pass


def _ready(path):
    return os.path.exists(os.path.join(path, 'stamp'))


def test_built_once_then_reused(tmp_path):
    path = str(tmp_path / 'tools' / 'venv')
    builds = []

    def build(deadline):
        builds.append(deadline)
        os.makedirs(path)
        open(os.path.join(path, 'stamp'), 'w').close()

    got, spent = services.build_once(path, _ready, build, 5, Unavailable)
    assert got == path and spent >= 0 and len(builds) == 1
    assert services.build_once(path, _ready, build, 5, Unavailable) == (path, 0.0)
    assert len(builds) == 1


def test_a_build_held_by_another_process_is_waited_for_boundedly(tmp_path):
    path = str(tmp_path / 'venv')
    with open(path + '.lock', 'w') as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        # flock locks belong to the open file: a second open() does not share it
        with pytest.raises(Unavailable, match='another process building'):
            services.build_once(path, _ready, lambda deadline: None, 0.5, Unavailable)
