"""A full disk under SQLite is named as a full disk, and writes resume when space returns.

``berth serve`` keeps its SQLite file on a small tmpfs (mounted here: the
test needs root, else it is skipped; tests/unit/test_storage_full.py covers
the translation everywhere with SQLite's own size limit).  A filler file
takes the rest of the disk; writes then answer 507 ``berth.storage_full``
(never 503 "the database cannot be reached", never a 500); once the filler
is removed the same write succeeds.
"""

import os
import subprocess
import uuid

import pytest
import requests

from tests.functional.test_lifecycle import BIN, Command, _config

DISK_MB = 8
HEADERS = {'X-Auth-Token': 'admin', 'OpenStack-API-Version': 'placement 1.39'}


@pytest.fixture
def small_disk(tmp_path):
    disk = tmp_path / 'disk'
    disk.mkdir()
    if os.geteuid() != 0:
        pytest.skip('mounting a tmpfs needs root (the unit test covers SQLITE_FULL)')
    done = subprocess.run(['mount', '-t', 'tmpfs', '-o', 'size=%dm' % DISK_MB,
                           'tmpfs', str(disk)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip('cannot mount a tmpfs here: %s' % done.stderr.strip())
    try:
        yield disk
    finally:
        subprocess.run(['umount', '-l', str(disk)], check=False)


def _fill(path):
    """Write ``path`` until the disk is full."""
    chunk = b'\0' * 65536
    with open(path, 'wb', buffering=0) as f:
        try:
            while True:
                f.write(chunk)
        except OSError:
            pass
    with open(path, 'ab', buffering=0) as f:     # the last bytes of a partial block
        try:
            while True:
                f.write(b'\0' * 512)
        except OSError:
            pass


def _create(url):
    return requests.post(url + '/resource_providers', headers=HEADERS, timeout=30,
                         json={'name': 'full-%s' % uuid.uuid4().hex,
                               'uuid': str(uuid.uuid4())})


@pytest.mark.sqlite_only(reason='the SQLite file lives on the small disk')
def test_a_full_disk_is_a_507_and_writes_resume(tmp_path, small_disk):
    db = small_disk / 'berth.sqlite'
    cfg = _config(tmp_path, DEFAULT={'debug': 'false'},
                  database={'connection': 'sqlite:///%s' % db})
    subprocess.run([str(BIN / 'berth-manage'),
                    '--config-file', cfg, 'db', 'sync'], check=True, capture_output=True)
    cmd = Command(tmp_path, 'berth', 'serve', '--config-file', cfg,
                  '--data-dir', str(tmp_path / 'data'))
    try:
        cmd.wait_for('berth is running')
        port = int(cmd.output().split('Placement API: http://127.0.0.1:')[1].split()[0])
        url = 'http://127.0.0.1:%d' % port
        assert _create(url).status_code == 200
        filler = small_disk / 'filler'
        _fill(filler)
        answers = []
        for _ in range(300):        # the WAL's free pages are used up first
            resp = _create(url)
            answers.append(resp.status_code)
            if resp.status_code != 200:
                break
        assert resp.status_code == 507, (answers[-5:], resp.text)
        error = resp.json()['errors'][0]
        assert error['code'] == 'berth.storage_full'
        assert 'disk is full' in error['detail'], error
        assert set(answers) <= {200, 507}, answers
        print('first 507 after %d writes on a full disk' % (len(answers) - 1))
        os.unlink(filler)
        resp = _create(url)
        assert resp.status_code == 200, resp.text
    finally:
        cmd.kill()
