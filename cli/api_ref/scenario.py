"""The scenario whose requests and answers are the api-ref's samples.

``python -m cli.api_ref.samples api-ref/source/samples`` (``make sample-config``)
drives an embedded berth through :data:`STEPS` in order and writes each
step's request body (``<name>-req.json``) and answer (``<name>-resp.json``);
cli/api_ref/generate.py lists them under their route.  Every identifier a request
names is fixed here; what berth makes up (UUIDs, times, its address) is
replaced by :func:`normalize`, so the files come out the same every time.
"""

import dataclasses
import json
import re
import uuid

from api.baremetal import version as baremetal_version

_NAMESPACE = uuid.UUID('1b4e28ba-2fa1-11d2-883f-0016d3cca427')
BAREMETAL = str(baremetal_version.MAX_VERSION)
LATEST = '1.39'
TIMESTAMP = '2026-01-01T00:00:00+00:00'
PLACEMENT_URL = 'http://placement.example.com'
BAREMETAL_URL = 'http://baremetal.example.com:6385'


def fixed_uuid(label):
    """A stable UUID for ``label`` (the scenario's, and placeholders for berth's)."""
    return str(uuid.uuid5(_NAMESPACE, label))


CN1, CN2, NUMA0 = fixed_uuid('compute1'), fixed_uuid('compute2'), fixed_uuid('numa0')
AGG1, AGG2 = fixed_uuid('aggregate1'), fixed_uuid('aggregate2')
C1, C2, C3, C4, C5 = (fixed_uuid('consumer%d' % i) for i in range(1, 6))
PROJECT, USER = fixed_uuid('project').replace('-', ''), fixed_uuid('user').replace('-', '')
NODE, ALLOC, CHASSIS = fixed_uuid('node0'), fixed_uuid('allocation0'), fixed_uuid('chassis0')
# the hostname of the one embedded conductor (``[DEFAULT] host`` + ``-c0``)
CONDUCTOR = 'berth-docs-c0'


@dataclasses.dataclass(frozen=True)
class Generation:
    """In a body: the provider's current generation, read just before the step."""

    provider: str


@dataclasses.dataclass(frozen=True)
class ConsumerGeneration:
    """In a body: the consumer's current generation, read just before the step."""

    consumer: str


@dataclasses.dataclass(frozen=True)
class NodeEvent:
    """In a path: the UUID of the ``index``-th event of a node's history.

    berth makes the UUID up; the samples and the path shown name it by the
    stand-in :func:`fixed_uuid` gives ``label``.
    """

    node: str
    index: int
    label: str

    def __str__(self) -> str:
        return fixed_uuid(self.label)


@dataclasses.dataclass
class Step:
    """One request of the scenario; ``name`` is None for a set-up step."""

    name: str
    api: str
    method: str
    route: str
    version: str
    args: dict = dataclasses.field(default_factory=dict)
    body: object = None
    query: str = ''
    answer: bool = True
    wait: bool = False
    # in the answer: the value every field of one of these names is shown
    # with, wherever it is (what the clock or the machine's load decides)
    fixed: dict = dataclasses.field(default_factory=dict)

    @property
    def path(self):
        return self.route.format(**self.args) + ('?' + self.query if self.query else '')


def _p(name, method, route, version, body=None, answer=True, **kw):
    return Step(name, 'placement', method, route, version, body=body, answer=answer, **kw)


def _b(name, method, route, body=None, answer=True, **kw):
    return Step(name, 'baremetal', method, route, BAREMETAL, body=body, answer=answer, **kw)


_RP = '/resource_providers/{uuid}'
_INV = {'total': 32, 'reserved': 0, 'min_unit': 1, 'max_unit': 32, 'step_size': 1,
        'allocation_ratio': 4.0}
_WHO = {'project_id': PROJECT, 'user_id': USER}
_CANDIDATES = 'resources=VCPU:1,MEMORY_MB:1024'

STEPS = [
    _p('root', 'GET', '/', LATEST),
    _p('provider-create-1.0', 'POST', '/resource_providers', '1.0',
       {'name': 'compute1', 'uuid': CN1}, answer=False),
    _p('provider-create-1.14', 'POST', '/resource_providers', '1.14',
       {'name': 'compute1-numa0', 'uuid': NUMA0, 'parent_provider_uuid': CN1},
       answer=False),
    _p('provider-create-1.20', 'POST', '/resource_providers', '1.20',
       {'name': 'compute2', 'uuid': CN2}),
    _p('provider-update', 'PUT', _RP, LATEST, {'name': 'compute2-renamed',
                                               'parent_provider_uuid': None},
       args={'uuid': CN2}),
    _p('provider-show-1.0', 'GET', _RP, '1.0', args={'uuid': CN1}),
    _p('provider-show-1.14', 'GET', _RP, '1.14', args={'uuid': NUMA0}),
    _p('inventory-create', 'POST', _RP + '/inventories', LATEST,
       dict(_INV, resource_class='VCPU'), args={'uuid': CN1}),
    _p('inventories-replace', 'PUT', _RP + '/inventories', LATEST, {
        'resource_provider_generation': Generation(CN1),
        'inventories': {'VCPU': _INV, 'MEMORY_MB': {'total': 65536, 'reserved': 512},
                        'DISK_GB': {'total': 1000, 'allocation_ratio': 1.0}}},
       args={'uuid': CN1}),
    _p('inventory-update', 'PUT', _RP + '/inventories/{resource_class}', LATEST,
       {'total': 64, 'resource_provider_generation': Generation(CN1)},
       args={'uuid': CN1, 'resource_class': 'VCPU'}),
    _p('inventories-show', 'GET', _RP + '/inventories', LATEST, args={'uuid': CN1}),
    _p('inventory-show', 'GET', _RP + '/inventories/{resource_class}', LATEST,
       args={'uuid': CN1, 'resource_class': 'DISK_GB'}),
    _p(None, 'PUT', '/traits/{name}', LATEST, args={'name': 'CUSTOM_GOLD'},
       answer=False),
    _p('traits-list', 'GET', '/traits', LATEST, query='name=startswith:CUSTOM'),
    _p('provider-traits-update', 'PUT', _RP + '/traits', LATEST, {
        'traits': ['CUSTOM_GOLD', 'HW_CPU_X86_AVX2'],
        'resource_provider_generation': Generation(CN1)}, args={'uuid': CN1}),
    _p('provider-traits-show', 'GET', _RP + '/traits', LATEST, args={'uuid': CN1}),
    _p('aggregates-update-1.1', 'PUT', _RP + '/aggregates', '1.1', [AGG1],
       args={'uuid': CN1}),
    _p('aggregates-update-1.19', 'PUT', _RP + '/aggregates', '1.19', {
        'aggregates': [AGG1, AGG2], 'resource_provider_generation': Generation(CN1)},
       args={'uuid': CN1}),
    _p('aggregates-show-1.19', 'GET', _RP + '/aggregates', '1.19', args={'uuid': CN1}),
    _p('resource-class-create', 'POST', '/resource_classes', LATEST,
       {'name': 'CUSTOM_FPGA'}, answer=False),
    _p('resource-class-show', 'GET', '/resource_classes/{name}', LATEST,
       args={'name': 'CUSTOM_FPGA'}),
    _p('resource-class-update-1.2', 'PUT', '/resource_classes/{name}', '1.2',
       {'name': 'CUSTOM_FPGA_ARRIA'}, args={'name': 'CUSTOM_FPGA'}),
    _p('resource-classes-list', 'GET', '/resource_classes', LATEST),
    _p('allocations-update-1.0', 'PUT', '/allocations/{consumer_uuid}', '1.0', {
        'allocations': [{'resource_provider': {'uuid': CN1}, 'resources': {'VCPU': 1}}]},
       args={'consumer_uuid': C1}, answer=False),
    _p('allocations-show-1.0', 'GET', '/allocations/{consumer_uuid}', '1.0',
       args={'consumer_uuid': C1}),
    _p('allocations-update-1.12', 'PUT', '/allocations/{consumer_uuid}', '1.12', dict(
        _WHO, allocations={CN1: {'resources': {'VCPU': 2, 'MEMORY_MB': 2048}}}),
       args={'consumer_uuid': C2}, answer=False),
    _p('allocations-show-1.12', 'GET', '/allocations/{consumer_uuid}', '1.12',
       args={'consumer_uuid': C2}),
    _p('allocations-update-1.28', 'PUT', '/allocations/{consumer_uuid}', '1.28', dict(
        _WHO, allocations={CN1: {'resources': {'VCPU': 1}}}, consumer_generation=None),
       args={'consumer_uuid': C3}, answer=False),
    _p('allocations-show-1.28', 'GET', '/allocations/{consumer_uuid}', '1.28',
       args={'consumer_uuid': C3}),
    _p('allocations-update-1.38', 'PUT', '/allocations/{consumer_uuid}', '1.38', dict(
        _WHO, allocations={CN1: {'resources': {'VCPU': 2, 'DISK_GB': 20}}},
        consumer_generation=ConsumerGeneration(C3), consumer_type='INSTANCE'),
       args={'consumer_uuid': C3}, answer=False),
    _p('allocations-show-1.38', 'GET', '/allocations/{consumer_uuid}', '1.38',
       args={'consumer_uuid': C3}),
    _p('allocations-post', 'POST', '/allocations', LATEST, {
        C4: dict(_WHO, allocations={CN1: {'resources': {'MEMORY_MB': 4096}}},
                 consumer_generation=None, consumer_type='MIGRATION')}, answer=False),
    _p('provider-allocations', 'GET', _RP + '/allocations', LATEST, args={'uuid': CN1}),
    _p('provider-usages', 'GET', _RP + '/usages', LATEST, args={'uuid': CN1}),
    _p('usages-1.9', 'GET', '/usages', '1.9', query='project_id=' + PROJECT),
    _p('usages-1.38', 'GET', '/usages', '1.38', query='project_id=' + PROJECT),
    _p('providers-list-1.0', 'GET', '/resource_providers', '1.0'),
    _p('providers-list', 'GET', '/resource_providers', LATEST,
       query='resources=VCPU:1&required=CUSTOM_GOLD'),
] + [_p('candidates-%s' % v, 'GET', '/allocation_candidates', v, query=_CANDIDATES)
     for v in ('1.10', '1.12', '1.29', '1.34', '1.36')] + [
    _p('claims-create', 'POST', '/claims', LATEST, dict(
        _WHO, consumer_uuid=C5, resources={'VCPU': 1, 'MEMORY_MB': 1024},
        required=['CUSTOM_GOLD'], consumer_type='INSTANCE')),
    _p('capacity', 'GET', '/capacity', LATEST, query=_CANDIDATES),
    _p('quota-update', 'PUT', '/quotas/{project_id}', LATEST,
       {'resources': {'VCPU': 16}, 'consumers': {'INSTANCE': 4}},
       args={'project_id': PROJECT}),
    _p('quota-show', 'GET', '/quotas/{project_id}', LATEST,
       args={'project_id': PROJECT}),
    _p(None, 'DELETE', '/allocations/{consumer_uuid}', LATEST, args={'consumer_uuid': C1},
       answer=False),
    _p(None, 'DELETE', '/allocations/{consumer_uuid}', LATEST, args={'consumer_uuid': C5},
       answer=False),
    _p('reshape', 'POST', '/reshaper', LATEST, {
        'inventories': {
            CN1: {'resource_provider_generation': Generation(CN1), 'inventories': {
                'MEMORY_MB': {'total': 65536, 'reserved': 512},
                'DISK_GB': {'total': 1000}}},
            NUMA0: {'resource_provider_generation': Generation(NUMA0),
                    'inventories': {'VCPU': _INV}}},
        'allocations': {
            C2: dict(_WHO, consumer_generation=ConsumerGeneration(C2),
                     consumer_type='INSTANCE', allocations={
                         NUMA0: {'resources': {'VCPU': 2}},
                         CN1: {'resources': {'MEMORY_MB': 2048}}}),
            C3: dict(_WHO, consumer_generation=ConsumerGeneration(C3),
                     consumer_type='INSTANCE', allocations={
                         NUMA0: {'resources': {'VCPU': 2}},
                         CN1: {'resources': {'DISK_GB': 20}}})}}, answer=False),
    # bare metal
    _b('v1-root', 'GET', '/v1'),
    _b('conductors-list', 'GET', '/v1/conductors'),
    _b('conductor-show', 'GET', '/v1/conductors/{hostname}',
       args={'hostname': CONDUCTOR}),
    _b('drivers-list', 'GET', '/v1/drivers'),
    _b('driver-show', 'GET', '/v1/drivers/{driver}', args={'driver': 'fake-hardware'}),
    _b('node-create', 'POST', '/v1/nodes', {
        'name': 'node-0', 'uuid': NODE, 'driver': 'fake-hardware',
        'resource_class': 'baremetal-gold', 'properties': {'cpus': 8}}),
    _b(None, 'PUT', '/v1/nodes/{node}/states/provision', {'target': 'manage'},
       args={'node': NODE}, answer=False),
    _b('node-provide', 'PUT', '/v1/nodes/{node}/states/provision', {'target': 'provide'},
       args={'node': NODE}, answer=False),
    _b('node-traits-update', 'PUT', '/v1/nodes/{node}/traits',
       {'traits': ['CUSTOM_GOLD']}, args={'node': NODE}, answer=False),
    _b('node-traits-show', 'GET', '/v1/nodes/{node}/traits', args={'node': NODE}),
    _b('node-update', 'PATCH', '/v1/nodes/{node}', [
        {'op': 'add', 'path': '/extra/rack', 'value': 'r1'}], args={'node': NODE}),
    _b('nodes-list', 'GET', '/v1/nodes'),
    _b('nodes-list-detail', 'GET', '/v1/nodes/detail'),
    _b('allocation-create', 'POST', '/v1/allocations', {
        'name': 'allocation-0', 'uuid': ALLOC, 'resource_class': 'baremetal-gold',
        'traits': ['CUSTOM_GOLD']}, wait=True),
    _b('allocation-show', 'GET', '/v1/allocations/{allocation}',
       args={'allocation': ALLOC}),
    _b('allocation-update', 'PATCH', '/v1/allocations/{allocation}', [
        {'op': 'add', 'path': '/extra/owner_note', 'value': 'demo'}],
       args={'allocation': ALLOC}),
    _b('allocations-list', 'GET', '/v1/allocations'),
    _b('node-allocation-show', 'GET', '/v1/nodes/{node}/allocation', args={'node': NODE}),
    _b('node-show', 'GET', '/v1/nodes/{node}', args={'node': NODE}),
    _b('node-maintenance-set', 'PUT', '/v1/nodes/{node}/maintenance',
       {'reason': 'replacing a disk'}, args={'node': NODE}, answer=False),
    _b('node-states', 'GET', '/v1/nodes/{node}/states', args={'node': NODE}),
    # the event first: its stand-in UUID is then the one the list shows
    _b('node-history-event-show', 'GET', '/v1/nodes/{node}/history/{event}',
       args={'node': NODE, 'event': NodeEvent(NODE, 0, 'node0-event0')}),
    _b('node-history-list', 'GET', '/v1/nodes/{node}/history', args={'node': NODE}),
    _b('chassis-create', 'POST', '/v1/chassis', {'uuid': CHASSIS,
                                                 'description': 'rack 1'}),
    _b('chassis-update', 'PATCH', '/v1/chassis/{chassis}', [
        {'op': 'replace', 'path': '/description', 'value': 'rack 1, row A'}],
       args={'chassis': CHASSIS}),
    _b('chassis-show', 'GET', '/v1/chassis/{chassis}', args={'chassis': CHASSIS}),
    _b('chassis-list', 'GET', '/v1/chassis'),
    _b('chassis-list-detail', 'GET', '/v1/chassis/detail'),
    _b(None, 'PATCH', '/v1/nodes/{node}', [
        {'op': 'add', 'path': '/chassis_uuid', 'value': CHASSIS}], args={'node': NODE}),
    _b('chassis-nodes-list', 'GET', '/v1/chassis/{chassis}/nodes',
       args={'chassis': CHASSIS}),
    _b('chassis-nodes-list-detail', 'GET', '/v1/chassis/{chassis}/nodes/detail',
       args={'chassis': CHASSIS}),
    _b(None, 'PATCH', '/v1/nodes/{node}', [
        {'op': 'add', 'path': '/shard', 'value': 'rack-1'}], args={'node': NODE}),
    _b('shards-list', 'GET', '/v1/shards'),
    _b('node-children-list', 'GET', '/v1/nodes/{node}/children', args={'node': NODE}),
    # last: the page sums up what the steps above made
    _p('status-json', 'GET', '/status.json', LATEST, fixed={
        'joined_age': 1.0, 'heartbeat_age': 1.0, 'ping_ms': 1.0, 'ping_error': None}),
]

_UUID = re.compile(r'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}')
_TIME = re.compile(r'\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(\+00:00|Z)?')


def normalize(text, base_urls, placeholders):
    """``text`` with berth's own UUIDs, times and addresses made stable.

    ``placeholders`` maps each UUID berth made up to its stand-in, in the
    order they are first met over the whole run (it grows here).
    """
    for url, stable in base_urls.items():
        text = text.replace(url, stable)
    text = _TIME.sub(TIMESTAMP, text)

    def stand_in(match):
        value = match.group(0)
        if value in _KNOWN:
            return value
        if value not in placeholders:
            placeholders[value] = fixed_uuid('generated-%d' % len(placeholders))
        return placeholders[value]

    return _UUID.sub(stand_in, text)


_KNOWN = frozenset((CN1, CN2, NUMA0, AGG1, AGG2, C1, C2, C3, C4, C5, NODE, ALLOC,
                    CHASSIS))


def pin(value: object, fixed: dict) -> object:
    """``value`` with every field named in ``fixed`` given its value there."""
    if isinstance(value, dict):
        return {k: fixed[k] if k in fixed else pin(v, fixed) for k, v in value.items()}
    if isinstance(value, list):
        return [pin(v, fixed) for v in value]
    return value


def dump(value):
    """A sample file's text: indented JSON, keys sorted, a final newline."""
    return json.dumps(value, indent=4, sort_keys=True) + '\n'


def samples_of(method, route):
    """[(step, has request body)] of the samples shown under one route."""
    return [(step, step.body is not None) for step in STEPS
            if step.name and step.method == method and step.route == route]
