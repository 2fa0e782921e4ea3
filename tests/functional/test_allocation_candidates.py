"""GET /allocation_candidates over HTTP: parameters, version boundaries, errors, shapes."""

import uuid as uuidlib

import pytest

from tests.functional import candidate_helpers as helpers

URL = '/allocation_candidates'
AGG_A = str(uuidlib.uuid5(uuidlib.NAMESPACE_URL, 'candidates-agg-a'))
AGG_B = str(uuidlib.uuid5(uuidlib.NAMESPACE_URL, 'candidates-agg-b'))


def _get(client, query, version='latest', status=200):
    resp = client.get(URL + ('?' + query if query else ''), version=version)
    assert resp.status_code == status, resp.text
    return resp.json()


def _error(client, query, version='latest', code=None):
    body = _get(client, query, version, status=400)
    if code is not None:
        assert body['errors'][0]['code'] == code
    return body['errors'][0]['detail']


@pytest.fixture
def compute(ctx):
    """One compute node with a NUMA child and a sharing disk provider."""
    cn = helpers.add_provider(ctx, name='cn', inventory={'VCPU': 8, 'MEMORY_MB': 2048},
                              traits=['HW_CPU_X86_AVX2'], aggregates=[AGG_A])
    numa = helpers.add_provider(ctx, name='numa', parent=cn,
                                inventory={'VCPU': 4}, traits=['CUSTOM_NUMA'])
    ss = helpers.add_provider(ctx, name='ss', inventory={'DISK_GB': 100},
                              traits=[helpers.SHARES], aggregates=[AGG_A])
    return {'cn': cn, 'numa': numa, 'ss': ss}


# -- version gating and the required key ------------------------------------------

def test_not_found_below_1_10(client):
    assert client.get(URL + '?resources=VCPU:1', version='1.9').status_code == 404


def test_resources_required_until_1_25(client):
    assert 'resources' in _error(client, '', version='1.24')
    assert 'At least one request group' in _error(client, '', version='1.25')


@pytest.mark.parametrize('query,version', [
    ('resources=VCPU:1&limit=1', '1.15'),
    ('resources=VCPU:1&required=HW_CPU_X86_AVX2', '1.16'),
    ('resources=VCPU:1&member_of=%s' % AGG_A, '1.20'),
    ('resources=VCPU:1&required=!HW_CPU_X86_AVX2', '1.21'),
    ('resources=VCPU:1&member_of=%s&member_of=%s' % (AGG_A, AGG_B), '1.23'),
    ('resources1=VCPU:1', '1.24'),
    ('resources=VCPU:1&group_policy=none', '1.24'),
    ('resources=VCPU:1&in_tree=%s' % AGG_A, '1.30'),
    ('resources=VCPU:1&member_of=!%s' % AGG_A, '1.31'),
    ('resources01=VCPU:1', '1.32'),
    ('resources_A=VCPU:1', '1.32'),
    ('resources=VCPU:1&root_required=HW_CPU_X86_AVX2', '1.34'),
    ('resources1=VCPU:1&same_subtree=1', '1.35'),
    ('resources=VCPU:1&required=in:HW_CPU_X86_AVX2,HW_CPU_X86_SSE2', '1.38'),
    ('resources=VCPU:1&foo=bar', 'latest'),
    ('resources1@=VCPU:1', 'latest'),
    ('resources%s=VCPU:1' % ('x' * 65), 'latest'),
    ('resources=VCPU:1&limit=0', 'latest'),
    ('resources=VCPU:1&limit=-1', 'latest'),
    ('resources=VCPU:1&limit=cow', 'latest'),
    ('resources=VCPU:1&limit=01', 'latest'),
    ('resources=VCPU:1&group_policy=bogus', 'latest'),
])
def test_keys_outside_their_versions(client, query, version):
    _error(client, query, version)


@pytest.mark.parametrize('query', [
    'resources=VCPU:1&required=in:HW_CPU_X86_AVX2,!HW_CPU_X86_SSE2',
    'resources=VCPU:1&member_of=in:%s,!%s' % (AGG_A, AGG_B),
    'resources=VCPU:1&member_of=not-a-uuid',
    'resources=VCPU:1&member_of=%s,%s' % (AGG_A, AGG_B),
    'resources=VCPU:1&in_tree=not-a-uuid',
    'resources=VCPU:0',
    'resources=VCPU',
    'resources=VCPU:1,',
    'resources=',
    'resources=VCPU:1&required=',
    'resources=VCPU:1&required=HW_CPU_X86_AVX2,,HW_CPU_X86_SSE2',
])
def test_bad_values(client, query):
    _error(client, query)


def test_unknown_names(client):
    assert 'CUSTOM_NOPE' in _error(client, 'resources=CUSTOM_NOPE:1')
    assert 'CUSTOM_NOPE' in _error(client, 'resources=VCPU:1&required=CUSTOM_NOPE')
    assert 'CUSTOM_NOPE' in _error(client, 'resources=VCPU:1&required=!CUSTOM_NOPE')
    assert 'CUSTOM_NOPE' in _error(client, 'resources=VCPU:1&root_required=CUSTOM_NOPE')
    assert 'CUSTOM_NOPE' in _error(
        client, 'resources1=VCPU:1&required1=in:CUSTOM_NOPE,HW_CPU_X86_AVX2')


def test_group_structure(client):
    assert 'group_policy' in _error(client, 'resources1=VCPU:1&resources2=VCPU:1')
    _get(client, 'resources1=VCPU:1')     # one numbered group needs no policy
    assert 'orphaned' in _error(client, 'resources=VCPU:1&required1=HW_CPU_X86_AVX2',
                                version='1.35')
    _error(client, 'resources=VCPU:1&member_of1=%s' % AGG_A, version='1.35')
    _error(client, 'resources=VCPU:1&in_tree1=%s' % AGG_A, version='1.35')
    _error(client, 'required=HW_CPU_X86_AVX2', version='1.35')
    assert 'required' in _error(
        client, 'resources=VCPU:1&required=HW_CPU_X86_AVX2,!HW_CPU_X86_AVX2')
    _error(client, 'resources=VCPU:1&required=in:HW_CPU_X86_AVX2,HW_CPU_X86_SSE2'
                   '&required=!HW_CPU_X86_AVX2,!HW_CPU_X86_SSE2')
    # an any-of set only partly forbidden is fine
    _get(client, 'resources=VCPU:1&required=in:HW_CPU_X86_AVX2,HW_CPU_X86_SSE2'
                 '&required=!HW_CPU_X86_AVX2')


def test_resourceless_groups_1_36(client):
    _error(client, 'required1=HW_CPU_X86_AVX2&same_subtree=1', code='placement.query.missing_value')
    _error(client, 'resources=VCPU:1&required=HW_CPU_X86_AVX2&resources1=VCPU:1'
                   '&required2=HW_CPU_X86_AVX2&group_policy=none',
           code='placement.query.bad_value')
    _error(client, 'resources1=VCPU:1&required=HW_CPU_X86_AVX2',
           code='placement.query.bad_value')
    _error(client, 'resources1=VCPU:1&required2=HW_CPU_X86_AVX2&same_subtree=1,,2'
                   '&group_policy=none', code='placement.query.bad_value')
    _error(client, 'resources1=VCPU:1&same_subtree=1,3', code='placement.query.bad_value')
    # a resourceless group still counts for group_policy
    assert 'group_policy' in _error(client, 'resources1=VCPU:1&required2=HW_CPU_X86_AVX2'
                                            '&same_subtree=1,2')


def test_root_required_errors(client):
    _error(client, 'resources=VCPU:1&root_required=HW_CPU_X86_AVX2'
                   '&root_required=HW_CPU_X86_SSE2', code='placement.query.duplicate_key')
    _error(client, 'resources=VCPU:1&root_required=HW_CPU_X86_AVX2,!HW_CPU_X86_AVX2',
           code='placement.query.bad_value')
    _error(client, 'resources=VCPU:1&root_required=in:HW_CPU_X86_AVX2,HW_CPU_X86_SSE2')


# -- shapes by version ---------------------------------------------------------------

def test_list_shape_1_10(client, compute):
    body = _get(client, 'resources=VCPU:1,DISK_GB:10', version='1.10')
    # the NUMA child and the sharing provider are in different trees: kept
    assert body['allocation_requests'] == [{'allocations': [
        {'resource_provider': {'uuid': rp}, 'resources': {'VCPU': 1}},
        {'resource_provider': {'uuid': compute['ss']}, 'resources': {'DISK_GB': 10}}]}
        for rp in (compute['cn'], compute['numa'])]
    assert body['provider_summaries'] == {
        compute['cn']: {'resources': {'VCPU': {'capacity': 8, 'used': 0}}},
        compute['numa']: {'resources': {'VCPU': {'capacity': 4, 'used': 0}}},
        compute['ss']: {'resources': {'DISK_GB': {'capacity': 100, 'used': 0}}}}


def test_dict_shape_and_traits(client, compute):
    body = _get(client, 'resources=VCPU:1,DISK_GB:10', version='1.17')
    assert body['allocation_requests'][0] == {'allocations': {
        compute['cn']: {'resources': {'VCPU': 1}},
        compute['ss']: {'resources': {'DISK_GB': 10}}}}
    assert body['provider_summaries'][compute['cn']] == {
        'resources': {'VCPU': {'capacity': 8, 'used': 0}}, 'traits': ['HW_CPU_X86_AVX2']}
    body = _get(client, 'resources=VCPU:1,DISK_GB:10', version='1.12')
    assert 'traits' not in body['provider_summaries'][compute['cn']]
    body = _get(client, 'resources=VCPU:1,DISK_GB:10', version='1.27')
    assert body['provider_summaries'][compute['cn']]['resources'] == {
        'VCPU': {'capacity': 8, 'used': 0}, 'MEMORY_MB': {'capacity': 2048, 'used': 0}}


def test_nested_1_29_and_mappings_1_34(client, compute):
    query = 'resources=VCPU:1&resources1=VCPU:2&required1=CUSTOM_NUMA'
    # below 1.29 a request using two providers of one tree is dropped
    body = _get(client, query, version='1.28')
    assert body['allocation_requests'] == [
        {'allocations': {compute['numa']: {'resources': {'VCPU': 3}}}}]
    body = _get(client, query, version='1.29')
    assert {tuple(sorted(a['allocations'])) for a in body['allocation_requests']} == {
        tuple(sorted([compute['cn'], compute['numa']])), (compute['numa'],)}
    assert 'mappings' not in body['allocation_requests'][0]
    summary = body['provider_summaries'][compute['numa']]
    assert summary['parent_provider_uuid'] == compute['cn']
    assert summary['root_provider_uuid'] == compute['cn']
    assert set(body['provider_summaries']) == {compute['cn'], compute['numa']}
    body = _get(client, query, version='1.34')
    mappings = [a['mappings'] for a in body['allocation_requests']]
    assert {'': [compute['cn']], '1': [compute['numa']]} in mappings
    assert {'': [compute['numa']], '1': [compute['numa']]} in mappings


def test_below_1_29_single_provider_trees_still_work(client, compute):
    body = _get(client, 'resources=VCPU:1,MEMORY_MB:64', version='1.28')
    assert [list(a['allocations']) for a in body['allocation_requests']] == [[compute['cn']]]


# -- semantics ---------------------------------------------------------------------

def test_sharing_and_member_of(client, compute, ctx):
    other = helpers.add_provider(ctx, name='other', inventory={'VCPU': 8},
                                 aggregates=[AGG_B])
    q = 'resources=VCPU:1,DISK_GB:10'
    body = _get(client, q)
    # cn or its NUMA child with the shared disk; other has no disk near it
    assert len(body['allocation_requests']) == 2
    body = _get(client, 'resources=VCPU:1&member_of=%s' % AGG_B)
    assert [list(a['allocations']) for a in body['allocation_requests']] == [[other]]
    body = _get(client, 'resources=VCPU:1&member_of=!%s' % AGG_B)
    assert other not in {u for a in body['allocation_requests'] for u in a['allocations']}
    body = _get(client, 'resources=VCPU:1&member_of=in:%s,%s' % (AGG_A, AGG_B))
    assert len(body['allocation_requests']) == 3          # cn, numa, other
    # the root's aggregate covers its child for the unsuffixed group only
    body = _get(client, 'resources=VCPU:1&required=CUSTOM_NUMA&member_of=%s' % AGG_A)
    assert [list(a['allocations']) for a in body['allocation_requests']] == [
        [compute['numa']]]
    body = _get(client, 'resources1=VCPU:1&required1=CUSTOM_NUMA&member_of1=%s' % AGG_A)
    assert body['allocation_requests'] == []
    assert _get(client, 'resources=VCPU:1&member_of=%s' % uuidlib.uuid4()) == {
        'allocation_requests': [], 'provider_summaries': {}}


def test_traits_and_in_tree(client, compute, ctx):
    other = helpers.add_provider(ctx, name='other', inventory={'VCPU': 8})
    # only providers that serve part of the request count for its traits
    body = _get(client, 'resources=VCPU:1&required=HW_CPU_X86_AVX2')
    assert [list(a['allocations']) for a in body['allocation_requests']] == [
        [compute['cn']]]
    body = _get(client, 'resources=VCPU:1,DISK_GB:1&required=HW_CPU_X86_AVX2,'
                        'MISC_SHARES_VIA_AGGREGATE')
    assert [sorted(a['allocations']) for a in body['allocation_requests']] == [
        sorted([compute['cn'], compute['ss']])]
    body = _get(client, 'resources=VCPU:1&required=!HW_CPU_X86_AVX2')
    assert [list(a['allocations']) for a in body['allocation_requests']] == [
        [compute['numa']], [other]]
    body = _get(client, 'resources=VCPU:1&in_tree=%s' % other)
    assert [list(a['allocations']) for a in body['allocation_requests']] == [[other]]
    assert _get(client, 'resources=VCPU:1&in_tree=%s' % uuidlib.uuid4())[
        'allocation_requests'] == []
    body = _get(client, 'resources=VCPU:1&root_required=!HW_CPU_X86_AVX2')
    assert [list(a['allocations']) for a in body['allocation_requests']] == [[other]]


def test_isolate_same_subtree_and_resourceless(client, compute):
    q = 'resources1=VCPU:1&resources2=VCPU:1&group_policy=%s'
    none = _get(client, q % 'none')['allocation_requests']
    isolate = _get(client, q % 'isolate')['allocation_requests']
    assert len(none) == 4 and len(isolate) == 2
    body = _get(client, 'resources1=VCPU:1&required2=CUSTOM_NUMA&same_subtree=1,2'
                        '&group_policy=none')
    assert [a['mappings'] for a in body['allocation_requests']] == [
        {'1': [compute['cn']], '2': [compute['numa']]},
        {'1': [compute['numa']], '2': [compute['numa']]}]
    # the resourceless group's provider is mapped but takes nothing
    assert body['allocation_requests'][0]['allocations'] == {
        compute['cn']: {'resources': {'VCPU': 1}}}
    assert set(body['provider_summaries']) == {compute['cn'], compute['numa']}
    body = _get(client, 'resources1=VCPU:1&required2=CUSTOM_NUMA&resources3=DISK_GB:1'
                        '&same_subtree=1,2,3&group_policy=none')
    assert body['allocation_requests'] == []    # the shared disk is in no subtree


def test_capacity_usage_and_limit(client, ctx):
    full = helpers.add_provider(ctx, name='full', inventory={'VCPU': 4}, used={'VCPU': 4})
    roomy = [helpers.add_provider(ctx, name='r%d' % i, inventory={
        'VCPU': {'total': 8, 'reserved': 2, 'allocation_ratio': 2.0, 'step_size': 2}})
        for i in range(3)]
    body = _get(client, 'resources=VCPU:2')
    assert [list(a['allocations']) for a in body['allocation_requests']] == [
        [u] for u in roomy]
    assert body['provider_summaries'][roomy[0]]['resources'] == {
        'VCPU': {'capacity': 12, 'used': 0}}
    assert full not in body['provider_summaries']
    assert _get(client, 'resources=VCPU:3')['allocation_requests'] == []   # step 2
    body = _get(client, 'resources=VCPU:2&limit=2')
    assert [list(a['allocations']) for a in body['allocation_requests']] == [
        [u] for u in roomy[:2]]
    assert set(body['provider_summaries']) == set(roomy[:2])
    # a limit beyond any answer (and beyond the database's 64-bit integers,
    # found by the fuzz tier) is no limit, not a 500
    for huge in ('99999999999999999999', str(2 ** 63)):
        body = _get(client, 'resources=VCPU:2&limit=' + huge)
        assert [list(a['allocations']) for a in body['allocation_requests']] == [
            [u] for u in roomy]


@pytest.fixture
def randomized(conf):
    conf.set_override('randomize_allocation_candidates', True, group='placement')
    conf.set_override('max_allocation_candidates', 3, group='placement')
    conf.set_override('allocation_candidates_generation_strategy', 'breadth-first',
                      group='placement')


def test_randomize_and_max_candidates(randomized, client, ctx):
    roots = [helpers.add_provider(ctx, name='r%d' % i, inventory={'VCPU': 2})
             for i in range(5)]
    body = _get(client, 'resources=VCPU:1')
    assert len(body['allocation_requests']) == 3
    assert {u for a in body['allocation_requests'] for u in a['allocations']} <= set(roots)
    body = _get(client, 'resources=VCPU:1&limit=2')
    assert len(body['allocation_requests']) == 2
    assert len(body['provider_summaries']) == 2
