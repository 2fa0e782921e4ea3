"""A small cloud as Placement holds one, built through the Placement REST API only (fixed uuids).

Used by the adoption tests on both sides (berth, and a real Placement 16):
two compute trees with NUMA children holding CUSTOM classes, a sharing
storage provider reached through an aggregate with MISC_SHARES_VIA_AGGREGATE,
custom traits, several projects and users, consumer types, allocations
spanning providers, non-default reserved/ratio/min/max/step, and a provider
with no inventory.  Every uuid is fixed, and the writes are made in one fixed
order, so two endpoints built with :func:`build` hold the same generations.
"""

import uuid

VERSION = '1.39'


def uid(name):
    """A fixed uuid per name (the same on every endpoint and every run)."""
    return str(uuid.uuid5(uuid.NAMESPACE_DNS, 'berth-adoption-%s' % name))


AGG_SHARED = uid('agg-shared')
AGG_RACK = uid('agg-rack')
ROOTS = ('cn1', 'cn2')


class Api:
    """Requests against one Placement-speaking endpoint; every answer is checked."""

    def __init__(self, session, base_url, token='admin'):
        self.session = session
        self.base = base_url.rstrip('/')
        self.headers = {'OpenStack-API-Version': 'placement %s' % VERSION,
                        'X-Auth-Token': token}

    def call(self, method, path, body=None, expect=(200, 201, 204)):
        resp = self.session.request(method, self.base + path, json=body,
                                    headers=self.headers)
        assert resp.status_code in expect, (method, path, resp.status_code, resp.text)
        return resp.json() if resp.content else None

    def provider(self, name, parent=None):
        body = {'name': name, 'uuid': uid(name)}
        if parent:
            body['parent_provider_uuid'] = uid(parent)
        return self.call('POST', '/resource_providers', body)

    def generation(self, name):
        return self.call('GET', '/resource_providers/%s' % uid(name))['generation']

    def inventories(self, name, inventories):
        self.call('PUT', '/resource_providers/%s/inventories' % uid(name),
                  {'resource_provider_generation': self.generation(name),
                   'inventories': inventories})

    def traits(self, name, traits):
        self.call('PUT', '/resource_providers/%s/traits' % uid(name),
                  {'resource_provider_generation': self.generation(name),
                   'traits': traits})

    def aggregates(self, name, aggregates):
        self.call('PUT', '/resource_providers/%s/aggregates' % uid(name),
                  {'resource_provider_generation': self.generation(name),
                   'aggregates': aggregates})

    def allocate(self, consumer, allocations, project, user, consumer_type,
                 generation=None):
        self.call('PUT', '/allocations/%s' % uid(consumer), {
            'allocations': {uid(rp): {'resources': res} for rp, res in allocations.items()},
            'project_id': project, 'user_id': user, 'consumer_type': consumer_type,
            'consumer_generation': generation})


def build(api):
    """Populate ``api``'s endpoint; returns the consumer names it made."""
    for t in ('CUSTOM_GOLD', 'CUSTOM_RACK_A'):
        api.call('PUT', '/traits/%s' % t)
    api.call('PUT', '/traits/CUSTOM_UNUSED')
    for rc in ('CUSTOM_FPGA', 'CUSTOM_PMEM_NS', 'CUSTOM_UNUSED_CLASS'):
        api.call('POST', '/resource_classes', {'name': rc})
    for root in ROOTS:
        api.provider(root)
        api.inventories(root, {
            'VCPU': {'total': 32, 'reserved': 2, 'allocation_ratio': 4.0,
                     'max_unit': 16},
            'MEMORY_MB': {'total': 131072, 'reserved': 4096, 'min_unit': 256,
                          'step_size': 256, 'allocation_ratio': 1.5},
            'DISK_GB': {'total': 100, 'reserved': 10}})
        api.traits(root, ['HW_CPU_X86_AVX2', 'COMPUTE_STATUS_DISABLED'
                          if root == 'cn2' else 'CUSTOM_GOLD'])
        api.aggregates(root, [AGG_SHARED, AGG_RACK] if root == 'cn1' else [AGG_SHARED])
        for n in (0, 1):
            child = '%s-numa%d' % (root, n)
            api.provider(child, parent=root)
            api.inventories(child, {
                'CUSTOM_PMEM_NS': {'total': 4, 'max_unit': 2},
                'CUSTOM_FPGA': {'total': 2, 'reserved': 1}})
            api.traits(child, ['CUSTOM_RACK_A', 'HW_NUMA_ROOT'])
    api.provider('shared-disk')
    api.inventories('shared-disk', {'DISK_GB': {'total': 2000, 'step_size': 10,
                                                'min_unit': 10, 'reserved': 100}})
    api.traits('shared-disk', ['MISC_SHARES_VIA_AGGREGATE', 'STORAGE_DISK_SSD'])
    api.aggregates('shared-disk', [AGG_SHARED])
    api.provider('empty-provider')
    api.aggregates('empty-provider', [AGG_RACK])
    consumers = []
    plan = [
        ('vm1', {'cn1': {'VCPU': 4, 'MEMORY_MB': 4096},
                 'shared-disk': {'DISK_GB': 40}}, 'proj-a', 'user-1', 'INSTANCE'),
        ('vm2', {'cn1': {'VCPU': 2, 'MEMORY_MB': 2048, 'DISK_GB': 20},
                 'cn1-numa0': {'CUSTOM_PMEM_NS': 1}}, 'proj-a', 'user-2', 'INSTANCE'),
        ('vm3', {'cn2': {'VCPU': 8, 'MEMORY_MB': 8192},
                 'cn2-numa1': {'CUSTOM_FPGA': 1}}, 'proj-b', 'user-3', 'INSTANCE'),
        ('mig1', {'cn2': {'VCPU': 2, 'MEMORY_MB': 1024},
                  'shared-disk': {'DISK_GB': 20}}, 'proj-b', 'user-3', 'MIGRATION'),
    ]
    for name, allocs, project, user, ctype in plan:
        api.allocate(name, allocs, project, user, ctype)
        consumers.append(name)
    # a consumer written twice: its generation moves past 1
    api.allocate('vm1', {'cn1': {'VCPU': 6, 'MEMORY_MB': 4096},
                         'shared-disk': {'DISK_GB': 40}}, 'proj-a', 'user-1', 'INSTANCE',
                 generation=1)
    return consumers
