"""RPC writes accept exactly what their REST twins accept (conductor.manager.write_checks).

The allow-lists and bounds equal the REST API's (checked here against
api/baremetal's own constants, so a field added to one and not the other
fails); raw column values, unknown keys and oversized lists are Invalid.
"""

import pytest

from api.baremetal import validation as api_validation
from api.baremetal.schemas import allocation as api_alloc_schema
from api.baremetal.schemas import node as api_node_schema
from api.placement.schemas import claim as api_claim_schema
from common import exception
from conductor.manager import replay
from conductor.manager import write_checks as wc

UUID = '9f3c8a52-7a51-4d8e-9b0e-4a7f5cbe0a11'
NODE = '0d1f0a7e-2b8c-4b5e-8f3a-1c2d3e4f5a6b'
LIMIT = 1024 * 1024


def test_the_bounds_are_the_rest_apis():
    assert wc.MAX_TRAITS == api_alloc_schema.MAX_TRAITS
    assert wc.MAX_CANDIDATE_NODES == api_alloc_schema.MAX_CANDIDATE_NODES
    assert wc.MAX_EXTRA_KEYS == api_alloc_schema.MAX_EXTRA_KEYS
    props = api_alloc_schema.CREATE_SCHEMA['properties']
    assert wc.BACKFILL_FIELDS == set(props) - {'node'}
    assert props['resource_class']['maxLength'] == wc.MAX_RESOURCE_CLASS
    assert wc.ALLOCATION_PATCHABLE == set(api_alloc_schema.PATCHABLE)
    assert wc.NODE_PATCHABLE == set(api_node_schema.PATCHABLE)
    assert wc.NODE_OBJECTS == api_node_schema.JSON_FIELDS
    assert api_claim_schema.POST_CLAIMS['properties']['consumer_uuids']['maxItems'] == \
        wc.MAX_CLAIM_CONSUMERS
    assert wc._LOGICAL_NAME.pattern == api_validation._LOGICAL_NAME.pattern
    assert wc._CUSTOM_TRAIT.pattern == api_validation._CUSTOM_TRAIT.pattern


def test_what_berth_api_sends_passes():
    wc.backfill({'uuid': UUID, 'name': 'web-1', 'resource_class': 'gold',
                 'traits': ['CUSTOM_GPU', 'HW_CPU_X86_AVX2'], 'candidate_nodes': [NODE],
                 'extra': {'a': 'b'}, 'owner': 'p1'}, NODE, LIMIT)
    wc.update_allocation(UUID, {'name': None, 'extra': {}}, LIMIT)
    wc.update_node(NODE, {'instance_uuid': None, 'instance_info': {},
                          'extra': {'x': 1}, 'owner': 'p1'}, LIMIT)
    wc.node_verb('node-1', 'undeploy')
    wc.allocation_ids(list(range(32)))
    wc.claims([{}] * 32)
    wc.claim_consumers([{'uuid': UUID, 'allocations': {NODE: {'VCPU': 1}}}] * 1000, LIMIT)
    wc.finite({'vcpus': 4, 'cpu_allocation_ratio': 16.0})


@pytest.mark.parametrize('values', [
    {'uuid': UUID, 'state': 'active'},
    {'uuid': UUID, 'node_id': 1},
    {'uuid': UUID, 'conductor_affinity': 'c9'},
    {'uuid': 'not-a-uuid'},
    {'name': 'x'},
    {'uuid': UUID, 'name': UUID},
    {'uuid': UUID, 'name': 'a b'},
    {'uuid': UUID, 'traits': ['CUSTOM_%d' % i for i in range(3000)]},
    {'uuid': UUID, 'traits': ['lowercase']},
    {'uuid': UUID, 'candidate_nodes': [NODE] * 20000},
    {'uuid': UUID, 'candidate_nodes': ['node-name']},
    {'uuid': UUID, 'extra': {str(i): i for i in range(300)}},
    {'uuid': UUID, 'extra': {'big': 'x' * (LIMIT + 1)}},
    {'uuid': UUID, 'extra': []},
    {'uuid': UUID, 'owner': 5},
    {'uuid': UUID, 'resource_class': 'r' * 81},
    [],
])
def test_a_backfill_beyond_rest_is_invalid(values):
    with pytest.raises(exception.Invalid):
        wc.backfill(values, NODE, LIMIT)


@pytest.mark.parametrize('values', [
    {'node_id': 5}, {'owner': 'p2'}, {'state': 'error'}, {'name': UUID},
    {'uuid': UUID}, {'extra': 'x'}, {'name': 'ok', 'conductor_affinity': 'x'}, None,
])
def test_an_allocation_update_beyond_rest_is_invalid(values):
    with pytest.raises(exception.Invalid):
        wc.update_allocation(UUID, values, LIMIT)


@pytest.mark.parametrize('values', [
    {'instance_uuid': None, 'provision_state': 'active'},
    {'instance_uuid': None, 'fault': 'power failure'},
    {'instance_uuid': None, 'reservation': 'c1'},
    {'instance_uuid': None, 'allocation_id': 3},
    {'instance_uuid': None, 'properties': 'x'},
    {'instance_uuid': None, 'name': 'a b'},
    {'instance_uuid': None, 'description': 'd' * 5000},
    {'owner': 'p2'},
    {'instance_uuid': UUID},
])
def test_a_node_update_beyond_rest_is_invalid(values):
    with pytest.raises(exception.Invalid):
        wc.update_node(NODE, values, LIMIT)


@pytest.mark.parametrize('check,args', [
    (wc.node_verb, (NODE, 'active')),
    (wc.node_verb, ('bad name', 'deleted')),
    (wc.allocation_ids, (list(range(33)),)),
    (wc.allocation_ids, ([],)),
    (wc.allocation_ids, (['1'],)),
    (wc.claims, ([{}] * 33,)),
    (wc.schedule_consumers, ([{}] * 1001,)),
    (wc.schedule_consumers, ([],)),
    (wc.claim_consumers, ('x', LIMIT)),
    (wc.claim_consumers, ([{'uuid': UUID, 'allocations': {NODE: {'VCPU': 1}},
                            'project_id': 'p', 'user_id': 'u'}] * 20000, LIMIT)),
    (wc.finite, ({'vcpus': float('nan')},)),
    (wc.finite, ({'numa': [{'x': float('inf')}]},)),
])
def test_batches_and_values_beyond_bounds_are_invalid(check, args):
    with pytest.raises(exception.Invalid):
        check(*args)


def test_a_replayed_call_id_from_another_caller_is_another_call():
    ledger = replay.CallLedger()
    ran = []
    first = ('u1', 'p1', None, None, ('admin',), None)
    thief = ('x', 'x', None, None, (), None)
    assert ledger.run('id-1', 'schedule_and_claim', lambda: ran.append(1) or 'answer-1',
                      caller=first) == 'answer-1'
    assert ledger.run('id-1', 'schedule_and_claim', lambda: ran.append(2) or 'answer-2',
                      caller=thief) == 'answer-2'
    assert ledger.run('id-1', 'schedule_and_claim', lambda: ran.append(3),
                      caller=first) == 'answer-1'
    assert ran == [1, 2]
    with pytest.raises(exception.Invalid):
        ledger.run('x' * 65, 'reshape', lambda: None)


def test_a_node_update_flag_must_be_a_boolean():
    """The fields PATCH gained with chassis, protection and retirement keep their types."""
    with pytest.raises(exception.Invalid, match='protected must be a boolean'):
        wc.update_node(NODE, {'instance_uuid': None, 'protected': 'yes'}, LIMIT)
    with pytest.raises(exception.Invalid):
        wc.update_node(NODE, {'instance_uuid': None, 'chassis_uuid': ['x']}, LIMIT)
    wc.update_node(NODE, {'instance_uuid': None, 'maintenance': True,
                          'deploy_interface': 'fake'}, LIMIT)


def test_a_node_update_parent_is_a_uuid_as_berth_api_sends_it():
    """berth-api resolves parent_node to a UUID; over the bus nothing else is a parent."""
    for bad in ('node-7', '', 'x' * 36):
        with pytest.raises(exception.Invalid, match='parent_node'):
            wc.update_node(NODE, {'instance_uuid': None, 'parent_node': bad}, LIMIT)
    wc.update_node(NODE, {'instance_uuid': None, 'parent_node': None}, LIMIT)
    wc.update_node(NODE, {'instance_uuid': None,
                          'parent_node': '1be26c0b-03f2-4d2e-ae87-c02d7f33c123'}, LIMIT)
