"""/v1 errors that clients match, in Ironic's words; the 50-traits limit of a node."""

from tests.functional import baremetal_helpers as h

MISSING = '6c0a7d8e-0000-4000-8000-000000000000'


def _fifty(bm):
    node = h.make_node(bm, 'n1')
    traits = ['CUSTOM_T%d' % i for i in range(50)]
    resp = bm.put('/v1/nodes/n1/traits', json={'traits': traits})
    assert resp.status_code == 204, resp.text
    return node, traits


def _limit(node, count):
    return ('Could not modify traits for node %s as it would exceed the maximum '
            'number of traits per node (%d vs. 50)' % (node['uuid'], count))


def test_a_51st_trait_is_400_and_not_stored(bm):
    node, traits = _fifty(bm)
    resp = bm.put('/v1/nodes/n1/traits/CUSTOM_EXTRA')
    assert resp.status_code == 400
    assert h.fault(resp) == _limit(node, 51)
    assert sorted(bm.get('/v1/nodes/n1/traits').json()['traits']) == sorted(traits)
    # one the node already has is no new trait
    assert bm.put('/v1/nodes/n1/traits/CUSTOM_T7').status_code == 204
    assert len(bm.get('/v1/nodes/n1/traits').json()['traits']) == 50


def test_replacing_with_more_than_50_distinct_traits_is_400(bm):
    node, traits = _fifty(bm)
    resp = bm.put('/v1/nodes/n1/traits',
                  json={'traits': ['CUSTOM_U%d' % i for i in range(51)]})
    assert resp.status_code == 400
    assert h.fault(resp) == _limit(node, 51)
    assert sorted(bm.get('/v1/nodes/n1/traits').json()['traits']) == sorted(traits)
    # repeats count once, as in Ironic
    again = ['CUSTOM_V%d' % i for i in range(50)] + ['CUSTOM_V0']
    assert bm.put('/v1/nodes/n1/traits', json={'traits': again}).status_code == 204
    assert len(bm.get('/v1/nodes/n1/traits').json()['traits']) == 50


def _schema_error(where, value):
    return ("Schema error%s: '%s' is not valid under any of the given schemas. "
            "Possible root cause: '%s' does not match '^CUSTOM_[A-Z0-9_]+$'"
            % (where, value, value))


def test_an_invalid_trait_gets_ironics_schema_error(bm):
    h.make_node(bm, 'n1', traits=['CUSTOM_A'])
    resp = bm.put('/v1/nodes/n1/traits/custom_lower')
    assert resp.status_code == 400 and h.fault(resp) == _schema_error(
        ' for trait', 'custom_lower')
    resp = bm.put('/v1/nodes/n1/traits', json={'traits': ['CUSTOM_B', 'NOPE']})
    assert resp.status_code == 400 and h.fault(resp) == _schema_error(' for body', 'NOPE')
    assert bm.get('/v1/nodes/n1/traits').json()['traits'] == ['CUSTOM_A']
    resp = bm.post('/v1/allocations', json={'resource_class': 'gold',
                                            'traits': ['CUSTOM_A', 'bad-trait']})
    assert resp.status_code == 400 and h.fault(resp) == _schema_error('', 'bad-trait')
    assert bm.get('/v1/allocations').json()['allocations'] == []


def test_a_traits_put_that_is_neither_one_nor_all_gets_ironics_texts(bm):
    h.make_node(bm, 'n1', traits=['CUSTOM_A'])
    for body in ({}, None):
        resp = bm.put('/v1/nodes/n1/traits', json=body)
        assert resp.status_code == 400, body
        assert h.fault(resp).startswith('A single node trait may be added via PUT '
                                        '/v1/nodes/<node identifier>/traits/<trait> '
                                        'with no body, or all node traits'), body
    resp = bm.put('/v1/nodes/n1/traits/CUSTOM_B', json={'traits': ['CUSTOM_C']})
    assert resp.status_code == 400
    assert h.fault(resp) == 'No body should be provided when adding a trait'
    assert bm.get('/v1/nodes/n1/traits').json()['traits'] == ['CUSTOM_A']


def test_an_invalid_allocation_name_gets_ironics_text(bm):
    resp = bm.post('/v1/allocations', json={'resource_class': 'gold', 'name': 'a b'})
    assert resp.status_code == 400
    assert h.fault(resp) == "Cannot create allocation with invalid name 'a b'"
    assert bm.get('/v1/allocations').json()['allocations'] == []
    alloc = h.allocate(bm, resource_class='gold', name='ok')
    resp = bm.patch('/v1/allocations/ok',
                    json=[{'op': 'replace', 'path': '/name', 'value': 'no/slash'}])
    assert resp.status_code == 400
    assert h.fault(resp) == "Cannot update allocation with invalid name 'no/slash'"
    assert bm.get('/v1/allocations/%s' % alloc['uuid']).json()['name'] == 'ok'


def test_a_uuid_that_is_none_gets_ironics_text(bm):
    resp = bm.post('/v1/nodes', json={'driver': 'fake-hardware', 'uuid': 'not-a-uuid'})
    assert resp.status_code == 400
    assert h.fault(resp) == 'Expected UUID for uuid: not-a-uuid'
    assert bm.get('/v1/nodes').json()['nodes'] == []
    node = h.make_node(bm, 'n1')
    resp = bm.patch('/v1/nodes/n1', json=[{'op': 'add', 'path': '/instance_uuid',
                                           'value': 'abc'}])
    assert resp.status_code == 400
    assert h.fault(resp) == 'Expected UUID for instance_uuid: abc'
    assert bm.get('/v1/nodes/n1').json()['instance_uuid'] is None
    resp = bm.get('/v1/nodes?instance_uuid=abc')
    assert resp.status_code == 400
    assert h.fault(resp) == 'Expected UUID for instance_uuid: abc'
    assert bm.get('/v1/nodes/%s' % node['uuid']).status_code == 200


def test_an_unknown_driver_gets_ironics_no_valid_host(bm):
    resp = bm.post('/v1/nodes', json={'driver': 'no-such-driver',
                                      'conductor_group': 'Rack1'})
    assert resp.status_code == 400
    assert h.fault(resp) == (
        'No valid host was found. Reason: No conductor service registered which '
        'supports driver no-such-driver for conductor group "rack1". Ensure the '
        'driver is valid and enabled.')
    resp = bm.post('/v1/nodes', json={'driver': 'other'})
    assert h.fault(resp).endswith('driver other for conductor group "". Ensure the '
                                  'driver is valid and enabled.')
    assert bm.get('/v1/nodes').json()['nodes'] == []


def test_a_patch_that_cannot_apply_names_its_operation(bm):
    h.make_node(bm, 'n1', extra={'keep': 1})
    ops = [{'op': 'add', 'path': '/extra/new', 'value': 2},
           {'op': 'remove', 'path': '/extra/missing'}]
    resp = bm.patch('/v1/nodes/n1', json=ops)
    assert resp.status_code == 400
    assert h.fault(resp) == ("Couldn't apply patch '{'op': 'remove', 'path': "
                             "'/extra/missing'}'. Reason: can't remove a "
                             "non-existent object 'missing'")
    assert bm.get('/v1/nodes/n1').json()['extra'] == {'keep': 1}
    alloc = h.allocate(bm, resource_class='gold')
    resp = bm.patch('/v1/allocations/%s' % alloc['uuid'],
                    json=[{'op': 'remove', 'path': '/extra/gone'}])
    assert resp.status_code == 400
    assert h.fault(resp).startswith("Couldn't apply patch '{'op': 'remove', 'path': "
                                    "'/extra/gone'}'. Reason: ")
    assert bm.get('/v1/nodes/%s' % MISSING).status_code == 404
