"""The status page while PostgreSQL is down: it answers, and names the database.

A private PostgreSQL (the session's shared one must stay up for the other
modules) behind a conductor and ``berth-api``.  With the server stopped,
``GET /status.json`` still answers 200 well inside the client's bound (the
database probe waits at most 1.5 s; PostgreSQL's connect timeout is 10 s,
so a page that asked the database unbounded would hang past it), lists
``database`` under ``unreachable`` and leaves the database's sections
empty; once the server is back the list is empty again.
"""

import subprocess
import time

import pytest

from tests import fixtures, services
from tests.integration import conftest
from tests.integration import test_conductors as tc

pytestmark = conftest.MARKS

BOUND = 8      # seconds: under PostgreSQL's 10 s connect timeout


@pytest.fixture
def own_pg(tmp_path_factory):
    service = conftest._start(services.PostgreSQL, tmp_path_factory)
    cfg = tmp_path_factory.mktemp('own-pg') / 'berth.conf'
    cfg.write_text('[database]\nconnection = %s\n' % service.url)
    done = subprocess.run([conftest.bin_path('berth-manage'), '--config-file', str(cfg),
                           'db', 'sync'], capture_output=True, text=True)
    if done.returncode != 0:
        service.stop()
        pytest.fail('berth-manage db sync failed:\n%s%s' % (done.stdout, done.stderr))
    yield service
    service.stop()


@pytest.fixture
def cluster(rabbitmq, etcd, own_pg, tmp_path_factory):
    c = tc.Cluster(tmp_path_factory.mktemp('dbdown'), rabbitmq, etcd, own_pg.url)
    yield c
    c.stop_all()


def _status(http):
    resp = http.get('/status.json', version='', timeout=BOUND)
    assert resp.status_code == 200, resp.text
    return resp.json()


def test_the_status_page_names_an_unreachable_database_and_still_answers(
        cluster, own_pg):
    cluster.start('dbdown-c0')
    http = fixtures.PlacementClient(cluster.start_api(), version='1.28')
    tc.wait_for(lambda: _status(http)['unreachable'] == [], 'everything reachable')
    assert _status(http)['registered_conductors'] != []
    own_pg.stop_server()
    try:
        started = time.monotonic()
        body = _status(http)
        took = time.monotonic() - started
        print('status.json with PostgreSQL stopped: 200 after %.2fs, unreachable %s'
              % (took, body['unreachable']))
        assert 'database' in body['unreachable']
        assert body['registered_conductors'] == [] and body['capacity'] == []
        assert body['node_allocations']['counts'] == {}
        page = http.get('/status', version='', timeout=BOUND)   # the HTML shell
        assert page.status_code == 200 and 'id="unreachable"' in page.text
    finally:
        own_pg.start_server()
    tc.wait_for(lambda: 'database' not in _status(http)['unreachable'],
                'the database to be reachable again', deadline=60, interval=0.5)
    assert _status(http)['registered_conductors'] != []
    http.close()
