"""A small cloud as a real Placement holds it, written and read through the REST API.

``populate(api)`` writes, through any Placement-compatible endpoint (a
real Placement from tests/placement_real.py, or berth), what a production
cloud looks like: nested providers with CUSTOM classes, a sharing provider
(MISC_SHARES_VIA_AGGREGATE), custom traits, aggregates, several projects and
users, consumer types, allocations spanning providers, non-default
reserved/ratio/min/max/step and a provider with no inventory.
``change(api, cloud)`` makes writes and deletions of every kind (for a
catch-up).  ``answers(api, cloud)`` reads every answer a client can get
about that data, generations included, as plain comparable data.

``api`` is a :class:`Api`: a requests session with noauth2's admin token
and a microversion, on a base URL.
"""

import uuid

import requests

MICROVERSION = '1.39'
PROJECTS = ['p-alpha', 'p-beta', 'p-gamma']
USERS = ['u-one', 'u-two']


class Api:
    def __init__(self, url, microversion=MICROVERSION):
        self.url = url.rstrip('/')
        self.s = requests.Session()
        self.s.headers.update({'x-auth-token': 'admin', 'accept': 'application/json',
                               'openstack-api-version': 'placement %s' % microversion})

    def call(self, method, path, body=None, ok=(200, 201, 204)):
        r = self.s.request(method, self.url + path, json=body, timeout=30)
        assert r.status_code in ok, '%s %s -> %s %s' % (method, path, r.status_code, r.text)
        return r.json() if r.content else None

    def get(self, path, microversion=None):
        headers = ({'openstack-api-version': 'placement %s' % microversion}
                   if microversion else None)
        r = self.s.get(self.url + path, timeout=30, headers=headers)
        body = r.json() if r.content else None
        return r.status_code, _strip(body)


def _strip(body):
    if isinstance(body, dict):
        return {k: _strip(v) for k, v in body.items() if k != 'links'}
    if isinstance(body, list):
        return [_strip(v) for v in body]
    return body


def _u():
    return str(uuid.uuid4())


def _rp(api, name, parent=None):
    body = {'name': name, 'uuid': _u()}
    if parent:
        body['parent_provider_uuid'] = parent
    return api.call('POST', '/resource_providers', body)['uuid']


def _gen(api, rp):
    return api.call('GET', '/resource_providers/%s' % rp)['generation']


def _inventories(api, rp, inventories):
    api.call('PUT', '/resource_providers/%s/inventories' % rp,
             {'resource_provider_generation': _gen(api, rp), 'inventories': inventories})


def _traits(api, rp, traits):
    api.call('PUT', '/resource_providers/%s/traits' % rp,
             {'resource_provider_generation': _gen(api, rp), 'traits': traits})


def _aggregates(api, rp, aggs):
    api.call('PUT', '/resource_providers/%s/aggregates' % rp,
             {'resource_provider_generation': _gen(api, rp), 'aggregates': aggs})


def allocate(api, consumer, allocations, project, user, ctype='INSTANCE', generation=None):
    api.call('PUT', '/allocations/%s' % consumer, {
        'allocations': {rp: {'resources': res} for rp, res in allocations.items()},
        'project_id': project, 'user_id': user, 'consumer_generation': generation,
        'consumer_type': ctype}, ok=(204,))


def populate(api):
    """Write the cloud; returns a dict of the uuids made (for answers() and change())."""
    for rc in ('CUSTOM_FPGA_XILINX', 'CUSTOM_BAREMETAL_GOLD'):
        api.call('PUT', '/resource_classes/%s' % rc, ok=(201, 204))
    for t in ('CUSTOM_RACK_A1', 'CUSTOM_GOLD', 'CUSTOM_RAID'):
        api.call('PUT', '/traits/%s' % t, ok=(201, 204))
    agg_a, agg_shared = _u(), _u().upper()      # as the client sent it: upper case kept
    cloud = {'providers': {}, 'consumers': [], 'aggregates': [agg_a, agg_shared]}
    p = cloud['providers']
    for i in (1, 2):
        cn = p['cn%d' % i] = _rp(api, 'compute-%d' % i)
        _inventories(api, cn, {
            'VCPU': {'total': 64, 'reserved': 4, 'allocation_ratio': 4.0, 'max_unit': 32},
            'MEMORY_MB': {'total': 262144, 'reserved': 2048, 'allocation_ratio': 1.5,
                          'min_unit': 256, 'step_size': 256, 'max_unit': 131072},
            'DISK_GB': {'total': 1000, 'reserved': 10}})
        _traits(api, cn, ['HW_CPU_X86_AVX2', 'CUSTOM_RACK_A1'])
        _aggregates(api, cn, [agg_a, agg_shared])
        for n in (0, 1):
            numa = p['cn%d-numa%d' % (i, n)] = _rp(api, 'compute-%d-numa%d' % (i, n), cn)
            _inventories(api, numa, {'PCPU': {'total': 16, 'max_unit': 8}})
    fpga = p['fpga'] = _rp(api, 'compute-1-fpga', p['cn1'])
    _inventories(api, fpga, {'CUSTOM_FPGA_XILINX': {'total': 4, 'max_unit': 1,
                                                    'reserved': 1}})
    _traits(api, fpga, ['CUSTOM_GOLD'])
    ss = p['ss'] = _rp(api, 'shared-storage')
    _inventories(api, ss, {'DISK_GB': {'total': 20000, 'reserved': 100, 'min_unit': 10,
                                       'step_size': 10, 'allocation_ratio': 1.0}})
    _traits(api, ss, ['MISC_SHARES_VIA_AGGREGATE', 'STORAGE_DISK_SSD'])
    _aggregates(api, ss, [agg_shared])
    bm = p['bm'] = _rp(api, 'baremetal-gold-1')
    _inventories(api, bm, {'CUSTOM_BAREMETAL_GOLD': {'total': 1, 'max_unit': 1}})
    _traits(api, bm, ['CUSTOM_RAID'])
    empty = p['empty'] = _rp(api, 'no-inventory')
    _traits(api, empty, ['CUSTOM_GOLD', 'COMPUTE_STATUS_DISABLED'])
    _aggregates(api, empty, [agg_a])
    k = 0
    for i in (1, 2):
        for j in range(3):
            c = _u()
            cloud['consumers'].append(c)
            allocate(api, c, {p['cn%d' % i]: {'VCPU': 2 + j, 'MEMORY_MB': 1024 * (j + 1)},
                              p['ss']: {'DISK_GB': 20 + 10 * j},
                              p['cn%d-numa%d' % (i, j % 2)]: {'PCPU': 1}},
                     PROJECTS[k % 3], USERS[k % 2], ('INSTANCE', 'MIGRATION')[j == 2])
            k += 1
    c = _u()
    cloud['consumers'].append(c)
    allocate(api, c, {p['fpga']: {'CUSTOM_FPGA_XILINX': 1},
                      p['cn1']: {'VCPU': 1, 'MEMORY_MB': 512}}, 'p-beta', 'u-two')
    c = _u()
    cloud['consumers'].append(c)
    allocate(api, c, {p['bm']: {'CUSTOM_BAREMETAL_GOLD': 1}}, 'p-gamma', 'u-one')
    # a consumer written again: its generation moves past 1
    c = cloud['consumers'][0]
    gen = api.call('GET', '/allocations/%s' % c)['consumer_generation']
    allocate(api, c, {p['cn1']: {'VCPU': 3, 'MEMORY_MB': 2048},
                      p['ss']: {'DISK_GB': 40}}, PROJECTS[0], USERS[0], generation=gen)
    return cloud


def change(api, cloud):
    """Writes and deletions of every kind, as a cloud makes between two catch-ups."""
    p = cloud['providers']
    _inventories(api, p['cn2'], {
        'VCPU': {'total': 96, 'reserved': 8, 'allocation_ratio': 2.0, 'max_unit': 48},
        'MEMORY_MB': {'total': 262144, 'reserved': 2048, 'allocation_ratio': 1.5,
                      'min_unit': 256, 'step_size': 256, 'max_unit': 131072},
        'DISK_GB': {'total': 1000, 'reserved': 10}})
    _traits(api, p['cn2'], ['HW_CPU_X86_AVX2', 'CUSTOM_GOLD'])
    _aggregates(api, p['empty'], [])
    gone = cloud['consumers'].pop(1)
    api.call('DELETE', '/allocations/%s' % gone, ok=(204,))
    moved = cloud['consumers'][0]
    gen = api.call('GET', '/allocations/%s' % moved)['consumer_generation']
    allocate(api, moved, {p['cn2']: {'VCPU': 4, 'MEMORY_MB': 4096}}, PROJECTS[0], USERS[1],
             generation=gen)
    new = p['cn3'] = _rp(api, 'compute-3')
    _inventories(api, new, {'VCPU': {'total': 8}, 'MEMORY_MB': {'total': 16384}})
    c = _u()
    cloud['consumers'].append(c)
    allocate(api, c, {new: {'VCPU': 2, 'MEMORY_MB': 2048}}, 'p-delta', 'u-three')
    api.call('PUT', '/resource_providers/%s' % p['bm'], {'name': 'baremetal-gold-renamed'})
    api.call('DELETE', '/resource_providers/%s' % p.pop('empty'), ok=(204,))
    api.call('PUT', '/traits/CUSTOM_NEW_TRAIT', ok=(201, 204))
    api.call('PUT', '/resource_classes/CUSTOM_NEW_CLASS', ok=(201, 204))


def _sorted(body, key):
    return sorted(body, key=lambda item: str(item.get(key)))


def answers(api, cloud):
    """Every read a client can make about the cloud: {request: (status, body)}."""
    out = {}

    def get(path, normalise=None, microversion=None):
        status, body = api.get(path, microversion)
        key = path + ('@' + microversion if microversion else '')
        out[key] = (status, normalise(body) if normalise and status == 200 else body)
        return body

    rps = get('/resource_providers', lambda b: _sorted(b['resource_providers'], 'uuid'))
    for rp in rps['resource_providers']:
        u = rp['uuid']
        get('/resource_providers/%s' % u)
        get('/resource_providers/%s/inventories' % u)
        get('/resource_providers/%s/traits' % u, lambda b: {**b, 'traits': sorted(b['traits'])})
        get('/resource_providers/%s/aggregates' % u,
            lambda b: {**b, 'aggregates': sorted(b['aggregates'])})
        get('/resource_providers/%s/usages' % u)
        get('/resource_providers/%s/allocations' % u)
        get('/resource_providers?in_tree=%s' % u,
            lambda b: _sorted(b['resource_providers'], 'uuid'))
    for agg in cloud['aggregates']:
        get('/resource_providers?member_of=%s' % agg,
            lambda b: _sorted(b['resource_providers'], 'uuid'))
    for trait in ('CUSTOM_GOLD', 'MISC_SHARES_VIA_AGGREGATE', '!CUSTOM_RACK_A1'):
        get('/resource_providers?required=%s' % trait,
            lambda b: _sorted(b['resource_providers'], 'uuid'))
    get('/resource_providers?resources=VCPU:2,MEMORY_MB:1024',
        lambda b: _sorted(b['resource_providers'], 'uuid'))
    for c in cloud['consumers']:
        get('/allocations/%s' % c)
    for project in PROJECTS + ['p-delta']:
        for mv in (None, '1.37'):        # with consumer types (1.38) and without
            get('/usages?project_id=%s' % project, microversion=mv)
            for user in USERS:
                get('/usages?project_id=%s&user_id=%s' % (project, user), microversion=mv)
    get('/resource_classes', lambda b: sorted(
        rc['name'] for rc in b['resource_classes'] if rc['name'].startswith('CUSTOM_')))
    get('/traits?name=startswith:CUSTOM_', lambda b: sorted(b['traits']))
    get('/allocation_candidates?resources=VCPU:1,MEMORY_MB:512,DISK_GB:10',
        _candidates)
    return out


def _candidates(body):
    """Allocation candidates compared as sets (the order is not part of the contract)."""
    reqs = sorted(repr(sorted((rp, sorted(a['resources'].items()))
                              for rp, a in ar['allocations'].items()))
                  for ar in body['allocation_requests'])
    summaries = {rp: {k: sorted(v) if k == 'traits' else v for k, v in s.items()}
                 for rp, s in body['provider_summaries'].items()}
    return {'allocation_requests': reqs, 'provider_summaries': summaries}


def differences(left, right):
    """The requests whose answers differ: [(request, left answer, right answer)].

    A request the left side (Placement) answers with a 5xx is its own bug,
    not a contract to match: see :func:`server_errors`.
    """
    return [(k, left.get(k), right.get(k)) for k in sorted(set(left) | set(right))
            if left.get(k) != right.get(k) and not server_errors({k: left.get(k)})]


def server_errors(answers):
    """The requests answered with a 5xx."""
    return sorted(k for k, v in answers.items() if v is not None and v[0] >= 500)
