"""Dead conductors stay visible: berth-conductor processes over RabbitMQ, etcd and PostgreSQL.

Three conductors register; one is killed with SIGKILL and one stopped with
SIGSTOP.  Both stay in ``GET /v1/conductors`` and on ``/status.json`` with
``alive: false`` (the third stays alive), and ``berth-manage status`` warns
and exits non-zero until the stopped one is continued and the killed one is
forgotten (``berth-manage conductor forget``, refused for a live one).
"""

import signal
import subprocess

import pytest
import requests
import sqlalchemy as sa

from tests import fixtures
from tests.integration import conftest
from tests.integration.test_conductors import Cluster, wait_for

pytestmark = conftest.MARKS

HEARTBEAT = ('[conductor]\nheartbeat_interval = 1\nheartbeat_timeout = 5\n')


@pytest.fixture(scope='module')
def cluster(rabbitmq, etcd, pg_synced, tmp_path_factory):
    # the session's database is shared: conductors of the modules before this
    # one (stopped, killed) are still registered; this test owns the registry
    engine = sa.create_engine(pg_synced)
    try:
        with engine.begin() as conn:
            conn.execute(sa.text('DELETE FROM conductors'))
    finally:
        engine.dispose()
    c = Cluster(tmp_path_factory.mktemp('registry'), rabbitmq, etcd, pg_synced)
    c.config.write_text(c.config.read_text().replace('[conductor]\n', HEARTBEAT, 1))
    yield c
    for proc in c.procs.values():          # a stopped process cannot stop
        if proc.poll() is None:
            proc.send_signal(signal.SIGCONT)
    c.stop_all()


def _port(cluster, name):
    return int(cluster.config.read_text().split('%s = ' % name)[1].split()[0])


def _conductors(bm):
    resp = bm.get('/v1/conductors')
    assert resp.status_code == 200, resp.text
    return {c['hostname']: c['alive'] for c in resp.json()['conductors']}


def _manage(cluster, *args):
    return subprocess.run([conftest.bin_path('berth-manage'), '--config-file',
                           str(cluster.config)] + list(args),
                          capture_output=True, text=True, timeout=120)


def _registry_row(out):
    """The ``Registered conductors`` row of the status table (its wrapped lines joined)."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if '| Registered conductors' in line)
    row = []
    for line in lines[start:]:
        if line.startswith('+'):
            break
        row.append(line.split('|')[3].strip())
    return lines[start].split('|')[2].strip(), ' '.join(row)


def test_killed_and_stopped_conductors_stay_listed_dead_until_back_or_forgotten(cluster):
    hosts = ['reg-killed', 'reg-stopped', 'reg-alive']
    for host in hosts:
        cluster.start(host)
    placement = cluster.start_api()
    bm = fixtures.BaremetalClient('http://127.0.0.1:%d' % _port(cluster, 'baremetal_port'))
    status = fixtures.PlacementClient(placement)
    wait_for(lambda: _conductors(bm) == dict.fromkeys(hosts, True),
             'three registered, alive conductors')

    cluster.signal('reg-killed', signal.SIGKILL)
    stopped = cluster.procs['reg-stopped']
    stopped.send_signal(signal.SIGSTOP)
    dead = {'reg-killed': False, 'reg-stopped': False, 'reg-alive': True}
    wait_for(lambda: _conductors(bm) == dead, 'the killed and the stopped one dead')
    for host, alive in dead.items():
        assert bm.get('/v1/conductors/%s' % host).json()['alive'] is alive
    shown = {c['hostname']: c for c in
             status.get('/status.json', version='').json()['registered_conductors']}
    for host in ('reg-killed', 'reg-stopped'):
        assert (shown[host]['alive'], shown[host]['online']) == (False, True)
        # dead: older than heartbeat_timeout (5 s); shown rounded to 0.1 s, so 5.04 reads 5.0
        assert shown[host]['heartbeat_age'] >= 5
    assert shown['reg-alive']['alive'] is True

    done = _manage(cluster, 'status')
    assert done.returncode != 0, done.stdout
    code, details = _registry_row(done.stdout)
    assert code == 'Warning', done.stdout
    assert 'reg-killed (dead' in details and 'reg-stopped (dead' in details
    assert 'reg-alive' not in details

    # the hung one comes back by itself; the killed one only goes when forgotten
    refused = _manage(cluster, 'conductor', 'forget', 'reg-alive')
    assert refused.returncode == 1 and 'is alive' in refused.stderr
    stopped.send_signal(signal.SIGCONT)
    wait_for(lambda: _conductors(bm)['reg-stopped'] is True, 'reg-stopped back')
    assert _registry_row(_manage(cluster, 'status').stdout)[0] == 'Warning'
    forgot = _manage(cluster, 'conductor', 'forget', 'reg-killed')
    assert forgot.returncode == 0, forgot.stderr
    assert _conductors(bm) == {'reg-stopped': True, 'reg-alive': True}
    assert bm.get('/v1/conductors/reg-killed').status_code == 404

    def healthy():
        done = _manage(cluster, 'status')
        return done.returncode == 0 and _registry_row(done.stdout)[0] == 'Success'
    wait_for(healthy, 'berth-manage status to exit 0', interval=1)
    assert requests.get(placement, timeout=30).status_code == 200
