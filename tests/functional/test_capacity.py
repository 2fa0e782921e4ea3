"""GET /capacity over HTTP (and berth-manage capacity): how many more of a request fit."""

import json

import pytest

from cli import manage
from tests import fixtures
from tests.functional import claim_helpers as h

BAD = 'berth.capacity.bad_query'


def _provider(client, inventories, parent=None, traits=(), aggregates=(), name=None):
    """A provider over the API with ``inventories`` ({class: int total or dict})."""
    rp = h.new_uuid()
    body = {'name': name or 'rp-' + rp, 'uuid': rp}
    if parent:
        body['parent_provider_uuid'] = parent
    resp = client.post('/resource_providers', json=body)
    assert resp.status_code == 200, resp.text
    invs = {rc: spec if isinstance(spec, dict) else {'total': spec}
            for rc, spec in inventories.items()}
    gen = 0
    if invs:
        resp = client.put('/resource_providers/%s/inventories' % rp, json={
            'resource_provider_generation': gen, 'inventories': invs})
        assert resp.status_code == 200, resp.text
        gen = resp.json()['resource_provider_generation']
    if traits:
        resp = client.put('/resource_providers/%s/traits' % rp, json={
            'resource_provider_generation': gen, 'traits': list(traits)})
        assert resp.status_code == 200, resp.text
        gen = resp.json()['resource_provider_generation']
    if aggregates:
        resp = client.put('/resource_providers/%s/aggregates' % rp, json={
            'resource_provider_generation': gen, 'aggregates': list(aggregates)})
        assert resp.status_code == 200, resp.text
    return rp


def _capacity(client, query, **kw):
    resp = client.get('/capacity?' + query, **kw)
    assert resp.status_code == 200, resp.text
    return resp.json()


def _fill(client, resources, **extra):
    """Claim ``resources`` until refused; how many claims were granted."""
    granted = 0
    while True:
        resp = h.claim(client, resources=resources, **extra)
        if resp.status_code == 409:
            assert resp.json()['errors'][0]['code'] == 'berth.no_valid_host', resp.text
            return granted
        assert resp.status_code == 201, resp.text
        granted += 1
        assert granted < 500, 'claims never stopped'


def test_counts_every_class_of_every_host_and_falls_to_zero_as_claims_fill(client):
    a = _provider(client, {'VCPU': 16, 'MEMORY_MB': 16384})       # memory bound: 2
    b = _provider(client, {'VCPU': 8, 'MEMORY_MB': 65536})        # VCPU bound: 2
    c = _provider(client, {'VCPU': {'total': 12, 'reserved': 4,   # (12-4)*2=16 VCPU
                                    'allocation_ratio': 2.0},
                           'MEMORY_MB': 32768})                   # 4 by both
    query = 'resources=VCPU:4,MEMORY_MB:8192&providers=10'
    got = _capacity(client, query)
    assert got == {'resources': {'VCPU': 4, 'MEMORY_MB': 8192}, 'fits': 8,
                   'aggregates': [],
                   'providers': sorted([{'uuid': c, 'fits': 4}, {'uuid': a, 'fits': 2},
                                        {'uuid': b, 'fits': 2}],
                                       key=lambda e: (-e['fits'], e['uuid']))}
    # used capacity counts: one claim on c leaves 7
    assert h.claim(client, resources={'VCPU': 4, 'MEMORY_MB': 8192},
                   weigher='spread').status_code == 201
    assert _capacity(client, query)['fits'] == 7
    assert _fill(client, {'VCPU': 4, 'MEMORY_MB': 8192}) == 7
    assert _capacity(client, query) == {'resources': {'VCPU': 4, 'MEMORY_MB': 8192},
                                        'fits': 0, 'aggregates': [], 'providers': []}


def test_max_unit_min_unit_and_step_size_bound_each_copy(client):
    _provider(client, {'VCPU': {'total': 64, 'max_unit': 2}})       # 4 > max_unit: none
    _provider(client, {'VCPU': {'total': 64, 'step_size': 3}})      # 4 % 3: none
    _provider(client, {'VCPU': {'total': 64, 'min_unit': 8}})       # 4 < min_unit: none
    ok = _provider(client, {'VCPU': {'total': 10, 'step_size': 2, 'max_unit': 4}})
    got = _capacity(client, 'resources=VCPU:4&providers=5')
    assert got['fits'] == 2
    assert got['providers'] == [{'uuid': ok, 'fits': 2}]
    assert _capacity(client, 'resources=VCPU:5')['fits'] == 0     # no unit rule lets 5
    assert _capacity(client, 'resources=VCPU:6')['fits'] == 10    # 64 // 6 at step 3


def test_nested_tree_counts_each_child_once_and_the_root_pool_once(client):
    root = _provider(client, {'VCPU': 12})
    _provider(client, {'MEMORY_MB': 16384}, parent=root)     # NUMA 0: 2 of 8192
    _provider(client, {'MEMORY_MB': 16384}, parent=root)     # NUMA 1: 2 of 8192
    got = _capacity(client, 'resources=VCPU:2,MEMORY_MB:8192&providers=3')
    assert got['fits'] == 4                                  # memory bounds, not 2 x 4
    assert got['providers'] == [{'uuid': root, 'fits': 4}]
    got = _capacity(client, 'resources=VCPU:4,MEMORY_MB:4096&providers=3')
    assert got['fits'] == 3                                  # the root's VCPU bounds
    assert _fill(client, {'VCPU': 4, 'MEMORY_MB': 4096}) == 3


def test_a_sharing_provider_is_consumed_across_trees_not_per_tree(client):
    agg = h.new_uuid()
    hosts = [_provider(client, {'VCPU': 8}, aggregates=[agg]) for _ in range(3)]
    _provider(client, {'DISK_GB': 100}, traits=['MISC_SHARES_VIA_AGGREGATE'],
              aggregates=[agg])
    got = _capacity(client, 'resources=VCPU:1,DISK_GB:20&providers=5')
    assert got['fits'] == 5               # the shared disk, not 3 x 5 and not 24
    assert got['aggregates'] == [{'uuid': agg, 'fits': 5}]
    assert sum(p['fits'] for p in got['providers']) == 5
    assert {p['uuid'] for p in got['providers']} <= set(hosts)
    assert _fill(client, {'VCPU': 1, 'DISK_GB': 20}) == 5
    assert _capacity(client, 'resources=VCPU:1,DISK_GB:20')['fits'] == 0


def test_required_traits_and_member_of_narrow_the_count_per_aggregate(client):
    agg1, agg2 = sorted([h.new_uuid(), h.new_uuid()])
    _provider(client, {'VCPU': 8}, traits=['HW_CPU_X86_AVX2'], aggregates=[agg1])
    _provider(client, {'VCPU': 4}, aggregates=[agg1])
    _provider(client, {'VCPU': 2}, aggregates=[agg2])
    _provider(client, {'VCPU': 6})
    got = _capacity(client, 'resources=VCPU:2')
    assert got['fits'] == 10
    assert got['aggregates'] == [{'uuid': agg1, 'fits': 6}, {'uuid': agg2, 'fits': 1}]
    assert _capacity(client, 'resources=VCPU:2&required=HW_CPU_X86_AVX2')['fits'] == 4
    assert _capacity(client, 'resources=VCPU:2&required=!HW_CPU_X86_AVX2')['fits'] == 6
    got = _capacity(client, 'resources=VCPU:2&member_of=%s' % agg2)
    assert (got['fits'], got['aggregates']) == (1, [{'uuid': agg2, 'fits': 1}])
    assert _capacity(client, 'resources=VCPU:2&member_of=!%s' % agg1)['fits'] == 4


def test_in_tree_counts_one_tree(client):
    root = _provider(client, {'VCPU': 8})
    _provider(client, {'VCPU': 8})
    assert _capacity(client, 'resources=VCPU:2&in_tree=%s' % root)['fits'] == 4


def test_admin_only_and_served_at_every_microversion(client):
    _provider(client, {'VCPU': 8})
    assert _capacity(client, 'resources=VCPU:1', version='1.0')['fits'] == 8
    resp = client.get('/capacity?resources=VCPU:1', token='alice:p1')
    assert resp.status_code == 403, resp.text


@pytest.mark.parametrize('query, code, text', [
    ('', 'placement.query.missing_value', 'at least one resources'),
    ('resources=VCPU:x', 'placement.undefined_code', 'Got: x'),
    ('resources=NO_SUCH_CLASS:1', 'placement.undefined_code', 'NO_SUCH_CLASS'),
    ('resources=VCPU:1&required=CUSTOM_NOPE', 'placement.undefined_code', 'CUSTOM_NOPE'),
    ('resources=VCPU:1&member_of=not-a-uuid', 'placement.undefined_code', 'not-a-uuid'),
    ('resources=VCPU:1&bogus=1', 'placement.undefined_code', 'bogus'),
    ('resources=VCPU:1&limit=3', BAD, "'limit'"),
    ('resources=VCPU:1&providers=0', BAD, "'providers'"),
    ('resources=VCPU:1&providers=1001', BAD, "'providers'"),
    ('resources=VCPU:1&providers=-1', BAD, "'providers'"),
    ('resources=VCPU:1&providers=two', BAD, "'providers'"),
    ('resources=VCPU:1&providers=%C2%B2', BAD, "'providers'"),          # a unicode digit
    ('resources=VCPU:1&providers=%D9%A3', BAD, "'providers'"),          # arabic-indic 3
    ('resources=VCPU:1&providers=1&providers=2', BAD, "'providers'"),
])
def test_bad_queries_are_400_with_a_stable_code(client, query, code, text):
    resp = client.get('/capacity?' + query)
    assert resp.status_code == 400, resp.text
    err = resp.json()['errors'][0]
    assert err['code'] == code, err
    assert text.lower() in err['detail'].lower(), err


def test_unknown_routes_stay_unknown(berth):
    c = fixtures.PlacementClient(berth.placement_url, version='latest')
    try:
        assert c.post('/capacity', json={}).status_code == 405
    finally:
        c.close()


def _manage(conf, tmp_path, capsys, *args):
    path = tmp_path / 'berth-manage.conf'
    text = '[DEFAULT]\nstate_path = %s\n' % conf.state_path
    if conf.database.connection:          # else the embedded SQLite file of state_path
        text += '[database]\nconnection = %s\n' % conf.database.connection
    path.write_text(text)
    code = manage.main(['--config-file', str(path), 'capacity'] + list(args))
    return code, capsys.readouterr().out


def test_berth_manage_capacity_prints_the_same_answer(client, conf, tmp_path, capsys):
    agg = h.new_uuid()
    _provider(client, {'VCPU': 8}, traits=['HW_CPU_X86_AVX2'], aggregates=[agg])
    _provider(client, {'VCPU': 8})
    query = 'resources=VCPU:2&required=HW_CPU_X86_AVX2&member_of=%s&providers=3' % agg
    code, out = _manage(conf, tmp_path, capsys, '--resources', 'VCPU:2',
                        '--required', 'HW_CPU_X86_AVX2', '--member-of', agg,
                        '--providers', '3')
    assert code == 0, out
    assert json.loads(out) == _capacity(client, query)
    assert json.loads(out)['fits'] == 4
    code, out = _manage(conf, tmp_path, capsys, '--resources', 'VCPU:2')
    assert (code, json.loads(out)['fits']) == (0, 8)


@pytest.mark.parametrize('args, text', [
    (('--resources', 'VCPU:2', '--providers', '0'), 'berth.capacity.bad_query'),
    (('--resources', 'NO_SUCH_CLASS:1'), 'NO_SUCH_CLASS'),
    (('--resources', 'VCPU:2', '--required', 'CUSTOM_NOPE'), 'CUSTOM_NOPE'),
])
def test_berth_manage_capacity_bad_input_fails_with_the_reason(berth, conf, tmp_path,
                                                                capsys, args, text):
    code, out = _manage(conf, tmp_path, capsys, *args)
    assert code == 1 and text in out, out
