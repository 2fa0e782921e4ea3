"""/v1/conductors, a node's ``conductor`` and ``?conductor=`` (Ironic 1.49) on an embedded berth.

Two embedded conductors register themselves; one that stops stays listed
with ``alive: false``; one that stops heartbeating (a conductor row whose
process is gone) turns dead after ``[conductor] heartbeat_timeout`` and
stays listed until ``berth-manage conductor forget`` removes it.
"""

import json
import time

import pytest
import webob

from api.baremetal import app as baremetal_app
from cli import manage
from objects.baremetal import allocation as node_alloc_obj
from objects.baremetal import conductor as conductor_obj
from tests import fixtures
from tests.functional import baremetal_helpers as h

DEADLINE = 60         # a liveness bound on a loaded machine, not a timing


@pytest.fixture
def conf(tmp_path):
    return fixtures.make_conf(tmp_path / 'state', **{'conductor.embedded_conductors': 2})


def _hosts(berth):
    return sorted(c.host for c in berth.conductors)


def _wait(predicate, what):
    end = time.monotonic() + DEADLINE
    while not predicate():
        if time.monotonic() > end:
            pytest.fail('no %s within %ss' % (what, DEADLINE))
        time.sleep(0.1)


def test_every_embedded_conductor_is_listed_alive_with_ironics_default_fields(berth, bm):
    resp = bm.get('/v1/conductors', version='1.49')
    assert resp.status_code == 200, resp.text
    listed = resp.json()['conductors']
    assert sorted(c['hostname'] for c in listed) == _hosts(berth)
    for c in listed:
        assert set(c) == {'hostname', 'conductor_group', 'alive', 'links'}
        assert c['alive'] is True and c['conductor_group'] == ''
        assert c['links'][0]['href'].endswith('/v1/conductors/%s' % c['hostname'])
        assert c['links'][1]['rel'] == 'bookmark'
    assert 'next' not in resp.json()


def test_detail_and_show_carry_drivers_and_timestamps(berth, bm):
    host = _hosts(berth)[0]
    detail = bm.get('/v1/conductors?detail=true').json()['conductors']
    shown = bm.get('/v1/conductors/%s' % host).json()
    for c in [d for d in detail if d['hostname'] == host] + [shown]:
        assert set(c) == {'hostname', 'conductor_group', 'alive', 'drivers', 'links',
                          'created_at', 'updated_at'}
        assert 'fake-hardware' in c['drivers'] and c['alive'] is True
        assert c['created_at'] and c['updated_at']
    assert bm.get('/v1/conductors/%s?fields=hostname,drivers' % host).json().keys() == {
        'hostname', 'drivers', 'links'}


def test_fields_limit_marker_and_sorting(berth, bm):
    first, second = _hosts(berth)
    resp = bm.get('/v1/conductors?fields=hostname&limit=1&sort_key=hostname')
    page = resp.json()
    assert [c['hostname'] for c in page['conductors']] == [first]
    assert set(page['conductors'][0]) == {'hostname', 'links'}
    assert 'marker=%s' % first in page['next'] and 'limit=1' in page['next']
    rest = bm.get('/v1/conductors?fields=hostname&limit=1&sort_key=hostname&marker=%s'
                  % first).json()
    assert [c['hostname'] for c in rest['conductors']] == [second]
    desc = bm.get('/v1/conductors?sort_key=hostname&sort_dir=desc').json()
    assert [c['hostname'] for c in desc['conductors']] == [second, first]


@pytest.mark.parametrize('query, status, text', [
    ('?fields=hostname,bogus', 400, 'Field(s) "bogus" are not valid'),
    ('?detail=true&fields=hostname', 400,
     'Can not specify ?detail=True and fields in the same request.'),
    ('?sort_key=alive', 400, 'The sort_key value alive is an invalid field for sorting'),
    ('?sort_key=drivers', 400,
     'The sort_key value drivers is an invalid field for sorting'),
    ('?sort_key=bogus', 400, 'The sort_key value "bogus" is an invalid field for sorting'),
    ('?sort_dir=up', 400, 'Invalid sort direction: up'),
    ('?limit=0', 400, 'Limit must be positive'),
    ('?limit=x', 400, 'Invalid limit x'),
    ('?detail=maybe', 400, 'Invalid value maybe for detail'),
    ('?frobnicate=1', 400, 'Unknown argument: "frobnicate"'),
    ('?marker=nobody', 404, 'Conductor nobody could not be found.'),
])
def test_bad_list_queries_are_refused_like_ironic(bm, query, status, text):
    resp = bm.get('/v1/conductors' + query)
    assert resp.status_code == status, resp.text
    assert text in h.fault(resp)


def test_show_errors(berth, bm):
    resp = bm.get('/v1/conductors/nobody')
    assert resp.status_code == 404
    assert h.fault(resp) == 'Conductor nobody could not be found.'
    host = _hosts(berth)[0]
    resp = bm.get('/v1/conductors/%s?fields=bogus' % host)
    assert resp.status_code == 400 and 'Field(s) "bogus" are not valid' in h.fault(resp)
    resp = bm.get('/v1/conductors/%s?detail=true' % host)
    assert resp.status_code == 400 and 'Unknown argument: "detail"' in h.fault(resp)


@pytest.mark.parametrize('path', ['/v1/conductors', '/v1/conductors/c1'])
def test_before_1_49_there_are_no_conductors(bm, path):
    resp = bm.get(path, version='1.48')
    assert resp.status_code == 404
    assert 'not supported' not in h.fault(resp)


def test_v1_root_links_conductors_from_1_49(bm):
    assert 'conductors' not in bm.get('/v1', version='1.48').json()
    assert bm.get('/v1', version='1.49').json()['conductors'][0]['href'].endswith(
        '/v1/conductors/')


def _as(berth, roles, system):
    berth.conf.set_override('auth_strategy', 'keystone', group='api')
    app = baremetal_app.BaremetalApp(berth.conf, berth.db, berth.conductor_api)
    berth.conf.clear_override('auth_strategy', group='api')
    headers = {'X-Identity-Status': 'Confirmed', 'X-User-Id': 'u-1', 'X-Roles': roles,
               'X-OpenStack-Ironic-API-Version': '1.49'}
    if system:
        headers['OpenStack-System-Scope'] = 'all'
    else:
        headers.update({'X-Project-Id': 'p1', 'X-Project-Name': 'p1'})
    req = webob.Request.blank('/v1/conductors', headers=headers)
    resp = req.get_response(app)
    return resp.status_int, resp.json


def test_policy_is_ironics_system_reader(berth):
    assert _as(berth, 'reader', system=True)[0] == 200
    status, body = _as(berth, 'admin,member,reader', system=False)
    assert status == 403
    assert 'baremetal:conductor:get is disallowed by policy' in json.loads(
        body['error_message'])['faultstring']


def test_a_stopped_conductor_stays_listed_not_alive(berth, bm, ctx):
    stopped = berth.conductors[1]
    stopped.stop(grace=0)
    shown = bm.get('/v1/conductors/%s' % stopped.host).json()
    assert shown['alive'] is False
    listed = {c['hostname']: c['alive'] for c in bm.get('/v1/conductors').json()[
        'conductors']}
    assert listed == {berth.conductors[0].host: True, stopped.host: False}
    assert conductor_obj.get(ctx, stopped.host).online is False


def test_a_conductor_that_stops_heartbeating_turns_dead_and_stays_until_forgotten(
        berth, bm, ctx, capsys):
    berth.conf.set_override('heartbeat_timeout', 2, group='conductor')
    # a conductor process that registered and died: its row, and nothing beating
    conductor_obj.register(ctx, 'ghost')
    _wait(lambda: bm.get('/v1/conductors/ghost').json()['alive'] is False,
          'ghost turning dead')
    assert 'ghost' in [c['hostname'] for c in bm.get('/v1/conductors').json()[
        'conductors']]
    assert manage_forget(berth.conf, 'ghost') == 0
    assert 'Conductor ghost forgotten.' in capsys.readouterr().out
    assert bm.get('/v1/conductors/ghost').status_code == 404
    assert manage_forget(berth.conf, 'ghost') == 2
    assert 'Conductor ghost could not be found.' in capsys.readouterr().err


def test_forget_refuses_a_live_conductor(berth, bm, capsys):
    host = berth.conductors[0].host
    assert manage_forget(berth.conf, host) == 1
    assert 'Conductor %s is alive' % host in capsys.readouterr().err
    assert bm.get('/v1/conductors/%s' % host).json()['alive'] is True


def manage_conductor(conf, *args):
    """``berth-manage conductor ...`` on the database of the running berth."""
    cfg = conf.state_path + '/manage.conf'
    with open(cfg, 'w') as f:
        f.write('[DEFAULT]\nstate_path = %s\n[conductor]\nheartbeat_timeout = %d\n%s'
                % (conf.state_path, conf.conductor.heartbeat_timeout,
                   fixtures.database_section(conf)))
    return manage.main(['--config-file', cfg, 'conductor'] + list(args))


def manage_forget(conf, hostname):
    return manage_conductor(conf, 'forget', hostname)


def test_manage_conductor_list_shows_every_state(berth, ctx, capsys):
    live, stopped = (c.host for c in berth.conductors)
    berth.conductors[1].stop(grace=0)
    assert manage_conductor(berth.conf, 'list') == 0
    rows = {line.split('|')[1].strip(): line.split('|')[3].strip()
            for line in capsys.readouterr().out.splitlines()
            if line.startswith('| ') and 'Hostname' not in line}
    assert rows == {live: 'alive', stopped: 'stopped'}


# --- a node's conductor and ?conductor= ---

def _node_conductors(bm):
    nodes = bm.get('/v1/nodes?fields=uuid,conductor', version='1.49').json()['nodes']
    return {n['uuid']: n['conductor'] for n in nodes}


def test_a_node_conductor_is_a_live_listed_conductor(berth, bm):
    for _ in range(6):
        h.make_node(bm, state='enroll')
    hosts = set(_hosts(berth))
    shown = _node_conductors(bm)
    assert set(shown.values()) <= hosts and None not in shown.values()
    for uuid, host in shown.items():
        assert bm.get('/v1/nodes/%s' % uuid).json()['conductor'] == host
        assert bm.get('/v1/conductors/%s' % host).json()['alive'] is True
    old = bm.get('/v1/nodes/detail', version='1.48').json()['nodes']
    assert len(old) == 6 and not any('conductor' in n for n in old)
    assert 'conductor' not in bm.get('/v1/nodes/%s' % uuid, version='1.48').json()


def test_an_allocated_node_names_the_conductor_holding_its_allocation(berth, bm, ctx):
    node = h.make_node(bm, resource_class='gold')
    alloc = h.allocate(bm, resource_class='gold')
    assert alloc['state'] == 'active' and alloc['node_uuid'] == node['uuid']
    holder = node_alloc_obj.get(ctx, alloc['uuid']).conductor_affinity
    assert holder in _hosts(berth)
    assert bm.get('/v1/nodes/%s' % node['uuid']).json()['conductor'] == holder


def test_the_conductor_filter_partitions_the_nodes(berth, bm):
    made = {h.make_node(bm, state='enroll')['uuid'] for _ in range(8)}
    shown = _node_conductors(bm)
    seen = set()
    for host in _hosts(berth):
        listed = bm.get('/v1/nodes?conductor=%s&fields=uuid,conductor' % host).json()
        uuids = {n['uuid'] for n in listed['nodes']}
        assert uuids == {u for u, c in shown.items() if c == host}
        assert all(n['conductor'] == host for n in listed['nodes'])
        seen |= uuids
    assert seen == made
    assert bm.get('/v1/nodes?conductor=nobody').json()['nodes'] == []
    # empty is no filter (Ironic)
    assert {n['uuid'] for n in bm.get('/v1/nodes?conductor=').json()['nodes']} == made


def test_the_conductor_filter_fills_its_pages(berth, bm):
    for _ in range(8):
        h.make_node(bm, state='enroll')
    host = max(_hosts(berth), key=lambda c: list(_node_conductors(bm).values()).count(c))
    want = sorted(u for u, c in _node_conductors(bm).items() if c == host)
    assert len(want) >= 4           # 8 nodes, 2 conductors: the busier one has 4+
    got, marker = [], None
    while True:
        path = '/v1/nodes?conductor=%s&limit=2&sort_key=uuid' % host
        page = bm.get(path + ('&marker=%s' % marker if marker else '')).json()
        got += [n['uuid'] for n in page['nodes']]
        if 'next' not in page:
            break
        assert len(page['nodes']) == 2          # a page with a next link is full
        marker = page['nodes'][-1]['uuid']
    assert got == want


def test_the_conductor_filter_needs_1_49(bm):
    resp = bm.get('/v1/nodes?conductor=c1', version='1.48')
    assert resp.status_code == 406
    assert h.fault(resp) == ('Request not acceptable. The minimal required API version '
                             'should be 1.49')
