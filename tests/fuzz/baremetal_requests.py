"""Strategies for requests to every bare-metal (/v1) route: paths, queries and bodies."""

from hypothesis import strategies as st

from api.baremetal.schemas import allocation as alloc_schema
from api.baremetal.schemas import chassis as chassis_schema
from api.baremetal.schemas import node as node_schema
from tests.fuzz import jsonfuzz, world
from tests.fuzz.harness import quote

NODES = st.one_of(st.sampled_from(world.NODES), st.uuids().map(str), jsonfuzz.TEXT)
ALLOCATIONS = st.one_of(st.sampled_from([world.ALLOCATION, 'fuzz-alloc']),
                        st.uuids().map(str), jsonfuzz.TEXT)
TRAITS = st.one_of(st.sampled_from(['HW_CPU_X86_AVX', world.CUSTOM_TRAIT, 'CUSTOM_NEW',
                                    'custom_x', 'CUSTOM_' + 'X' * 250]), jsonfuzz.TEXT)
_FIELDS = st.lists(st.sampled_from(['uuid', 'name', 'state', 'extra', 'owner', 'traits',
                                    'resource_class', 'bogus', '', ' name']),
                   max_size=4).map(','.join)
_LIST_VALUES = st.one_of(st.sampled_from([
    'true', 'false', 'True', '1', 'maybe', 'asc', 'desc', 'id', 'name', 'extra',
    'uuid', 'created_at', 'fuzz', 'active', 'allocating', 'error', 'available',
    'fake-hardware', world.NODE, world.ALLOCATION, '0', '-1', '1000000']), _FIELDS,
    jsonfuzz.TEXT)
_NODE_KEYS = ['fields', 'limit', 'marker', 'sort_key', 'sort_dir', 'resource_class',
              'provision_state', 'owner', 'driver', 'instance_uuid', 'maintenance',
              'associated', 'detail', 'chassis_uuid', 'retired', 'fault',
              'conductor']
_CHASSIS_KEYS = ['fields', 'limit', 'marker', 'sort_key', 'sort_dir', 'detail']
CHASSIS = st.one_of(st.uuids().map(str), jsonfuzz.TEXT)
_CONDUCTOR_KEYS = ['fields', 'limit', 'marker', 'sort_key', 'sort_dir', 'detail']
_ALLOC_KEYS = ['fields', 'limit', 'marker', 'sort_key', 'sort_dir', 'node',
               'resource_class', 'state', 'owner']


def _keyed(keys):
    return st.lists(st.tuples(st.one_of(st.sampled_from(keys), jsonfuzz.TEXT),
                              _LIST_VALUES), max_size=4)


_PATCH_PATHS = st.one_of(st.sampled_from([
    '/name', '/extra', '/extra/a', '/extra/a/b', '/properties', '/properties/cpus',
    '/instance_uuid', '/resource_class', '/owner', '/description', '/driver_info/x',
    '/instance_info', '/uuid', '/driver', '/', '', 'name', '/extra/', '/extra/~1',
    '/extra/~2', '/name/x', '/chassis_uuid', '/protected', '/protected_reason',
    '/retired', '/retired_reason', '/boot_interface', '/network_interface',
    '/fault']), jsonfuzz.TEXT, jsonfuzz.SCALARS)
_OP = st.fixed_dictionaries(
    {'op': st.one_of(st.sampled_from(['add', 'replace', 'remove', 'move', 'copy',
                                      'test']), jsonfuzz.SCALARS),
     'path': _PATCH_PATHS},
    optional={'value': jsonfuzz.any_json(4), 'from': _PATCH_PATHS})
PATCHES = st.one_of(st.lists(_OP, min_size=0, max_size=3),
                    jsonfuzz.mutated(st.lists(_OP, min_size=1, max_size=2)),
                    jsonfuzz.any_json(6))
_TARGETS = st.fixed_dictionaries({'target': st.one_of(st.sampled_from([
    'manage', 'provide', 'active', 'deleted', 'inspect', 'clean', 'rebuild',
    'power on', 'power off', 'rebooting', 'soft power off', 'soft rebooting',
    'adopt', 'abort']), jsonfuzz.SCALARS)})
_TARGET = st.one_of(_TARGETS, jsonfuzz.mutated(_TARGETS), jsonfuzz.any_json(4))
_NODE_TRAITS = st.one_of(
    st.fixed_dictionaries({'traits': st.lists(TRAITS, max_size=4)}),
    jsonfuzz.neighbourhood({'type': 'object', 'properties': {
        'traits': {'type': 'array', 'items': {'type': 'string'}}},
        'required': ['traits']}))


def _node_create():
    return st.one_of(
        jsonfuzz.neighbourhood(node_schema.CREATE_SCHEMA),
        st.fixed_dictionaries({'driver': st.sampled_from(node_schema.DRIVERS)},
                              optional={'name': st.one_of(st.sampled_from(
                                  ['fuzz-node', 'n-1', 'a:b']), jsonfuzz.TEXT),
                                  'resource_class': st.just('fuzz')}))


def _alloc_create():
    return st.one_of(
        jsonfuzz.neighbourhood(alloc_schema.CREATE_SCHEMA),
        st.fixed_dictionaries({'resource_class': st.sampled_from(['fuzz', 'none', ''])},
                              optional={
                                  'traits': st.lists(TRAITS, max_size=2),
                                  'candidate_nodes': st.lists(NODES, max_size=2),
                                  'name': st.one_of(st.just('fuzz-alloc'), jsonfuzz.TEXT),
                                  'node': NODES, 'owner': jsonfuzz.TEXT,
                                  'uuid': st.one_of(st.just(world.ALLOCATION),
                                                    st.uuids().map(str))}))


def routes():
    """Every /v1 route with the strategies of its path, query and body."""
    node = NODES.map(lambda n: '/v1/nodes/' + quote(n))
    alloc = ALLOCATIONS.map(lambda a: '/v1/allocations/' + quote(a))
    chassis = CHASSIS.map(lambda c: '/v1/chassis/' + quote(c))
    fields = st.lists(st.tuples(st.sampled_from(['fields', 'junk']), _FIELDS),
                      max_size=1)
    return [
        ('GET', st.just('/'), None, None),
        ('GET', st.just('/v1'), None, None),
        ('GET', st.just('/v1/nodes'), _keyed(_NODE_KEYS), None),
        ('POST', st.just('/v1/nodes'), None, _node_create()),
        ('GET', st.just('/v1/nodes/detail'), _keyed(_NODE_KEYS), None),
        ('GET', node, fields, None),
        ('PATCH', node, None, PATCHES),
        ('DELETE', node, None, None),
        ('GET', node.map(lambda p: p + '/states'), None, None),
        ('PUT', node.map(lambda p: p + '/states/provision'), None, _TARGET),
        ('PUT', node.map(lambda p: p + '/states/power'), None, _TARGET),
        ('PUT', node.map(lambda p: p + '/maintenance'), None,
         st.one_of(st.none(), jsonfuzz.neighbourhood({'type': 'object', 'properties': {
             'reason': {'type': 'string'}}}))),
        ('DELETE', node.map(lambda p: p + '/maintenance'), None, None),
        ('GET', node.map(lambda p: p + '/traits'), None, None),
        ('PUT', node.map(lambda p: p + '/traits'), None, _NODE_TRAITS),
        ('DELETE', node.map(lambda p: p + '/traits'), None, None),
        ('PUT', st.tuples(node, TRAITS).map(lambda t: '%s/traits/%s' % (t[0], quote(t[1]))),
         None, None),
        ('DELETE', st.tuples(node, TRAITS).map(
            lambda t: '%s/traits/%s' % (t[0], quote(t[1]))), None, None),
        ('GET', node.map(lambda p: p + '/allocation'), fields, None),
        ('DELETE', node.map(lambda p: p + '/allocation'), None, None),
        ('GET', node.map(lambda p: p + '/allocation/x'), None, None),
        ('GET', st.just('/v1/allocations'), _keyed(_ALLOC_KEYS), None),
        ('POST', st.just('/v1/allocations'), None, _alloc_create()),
        ('GET', alloc, fields, None),
        ('PATCH', alloc, None, PATCHES),
        ('DELETE', alloc, None, None),
        ('GET', st.just('/v1/chassis'), _keyed(_CHASSIS_KEYS), None),
        ('POST', st.just('/v1/chassis'), None,
         jsonfuzz.neighbourhood(chassis_schema.CREATE_SCHEMA)),
        ('GET', st.just('/v1/chassis/detail'), _keyed(_CHASSIS_KEYS), None),
        ('GET', chassis, fields, None),
        ('PATCH', chassis, None, PATCHES),
        ('DELETE', chassis, None, None),
        ('GET', chassis.map(lambda p: p + '/nodes'), _keyed(_NODE_KEYS), None),
        ('GET', st.just('/v1/drivers'), _keyed(['type', 'detail', 'fields']), None),
        ('GET', st.one_of(st.just('fake-hardware'), jsonfuzz.TEXT).map(
            lambda d: '/v1/drivers/' + quote(d)), fields, None),
        ('GET', st.just('/v1/conductors'), _keyed(_CONDUCTOR_KEYS), None),
        ('GET', st.one_of(st.just('fuzz-host'), jsonfuzz.TEXT).map(
            lambda h: '/v1/conductors/' + quote(h)), fields, None),
    ]
