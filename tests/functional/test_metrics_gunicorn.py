"""/metrics under gunicorn with two workers: any worker reports the counts of both."""

import concurrent.futures
import glob
import os
import pathlib
import subprocess
import sys
import time

import pytest
import requests

from tests import fixtures, services
from tests.functional import metrics_helpers as mh

ROOT = pathlib.Path(__file__).resolve().parents[2]
GUNICORN = os.path.join(os.path.dirname(sys.executable), 'gunicorn')
ROUTE = dict(api='placement', method='GET', route='/resource_providers', status='200')


@pytest.fixture
def gunicorn(tmp_path, tmp_path_factory):
    if not os.access(GUNICORN, os.X_OK):
        services.unavailable('gunicorn is not installed in this virtualenv')
    state = tmp_path / 'state'
    fixtures.migrated_sqlite(tmp_path_factory.getbasetemp(), state)
    config = tmp_path / 'berth.conf'
    config.write_text('[DEFAULT]\nstate_path = %s\ntransport_url = kombu+memory:////\n'
                      '[api]\nauth_strategy = noauth2\n' % state)
    multiproc = tmp_path / 'prometheus'
    multiproc.mkdir()
    # a value file of an earlier run: gunicorn's on_starting hook removes it
    (multiproc / 'counter_1.db').write_bytes(b'left over')
    port = services.free_port()
    env = dict(os.environ, BERTH_CONFIG_FILE=str(config), BERTH_WORKERS='2',
               BERTH_BIND='127.0.0.1:%d' % port, PROMETHEUS_MULTIPROC_DIR=str(multiproc))
    log = open(tmp_path / 'gunicorn.log', 'wb')
    proc = subprocess.Popen([GUNICORN, '-c', str(ROOT / 'etc/berth/gunicorn.conf.py'),
                             '--no-control-socket', 'api.wsgi:application'],
                            cwd=str(ROOT), env=env,
                            stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    url = 'http://127.0.0.1:%d' % port
    try:
        _wait_ready(proc, url, tmp_path / 'gunicorn.log')
        yield url, multiproc
    finally:
        proc.terminate()
        proc.wait(30)
        log.close()


def _wait_ready(proc, url, log, deadline=120):
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if proc.poll() is not None:
            pytest.fail('gunicorn exited: %s' % log.read_text()[-3000:])
        try:
            # the first request of a worker builds its app (after the fork)
            requests.get(url + '/', timeout=60)
            return
        except requests.RequestException:
            time.sleep(0.2)
    pytest.fail('gunicorn did not answer: %s' % log.read_text()[-3000:])


def _list(url):
    resp = requests.get(url + '/resource_providers', headers={'x-auth-token': 'admin'},
                        timeout=60)
    assert resp.status_code == 200, resp.text


def _workers_with_counters(multiproc):
    return {os.path.basename(p).split('_')[-1] for p in
            glob.glob(os.path.join(str(multiproc), 'counter_*.db'))}


def test_two_workers_report_one_total(gunicorn):
    url, multiproc = gunicorn
    assert not (multiproc / 'counter_1.db').exists()
    sent = 0
    # until both workers have served (each new connection goes to whichever
    # worker accepts it first); bounded, and in practice a few rounds
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        while len(_workers_with_counters(multiproc)) < 2 and sent < 800:
            list(pool.map(lambda _: _list(url), range(40)))
            sent += 40
    assert len(_workers_with_counters(multiproc)) == 2, 'one worker served everything'
    for _ in range(4):   # whichever worker answers, it reports both
        text = mh.scrape(url)
        assert mh.value(text, 'berth_api_requests_total', **ROUTE) == sent
