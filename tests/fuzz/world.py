"""The fuzz tier's world: known objects seeded before fuzzing, aimed at by the strategies."""

import os

# Known names the strategies aim at, so fuzzed requests reach the deep code
# paths of existing objects (not only the 404s of unknown ones).
ROOT = 'a0000000-0000-4000-8000-000000000001'
CHILD = 'a0000000-0000-4000-8000-000000000002'
OTHER = 'a0000000-0000-4000-8000-000000000003'
AGG = 'b0000000-0000-4000-8000-000000000001'
CONSUMER = 'c0000000-0000-4000-8000-000000000001'
NODE = 'd0000000-0000-4000-8000-000000000001'
NODE_FREE = 'd0000000-0000-4000-8000-000000000002'
ALLOCATION = 'e0000000-0000-4000-8000-000000000001'
CUSTOM_RC = 'CUSTOM_FUZZ'
CUSTOM_TRAIT = 'CUSTOM_FUZZ'

PROVIDERS = [ROOT, CHILD, OTHER]
NODES = [NODE, NODE_FREE, 'fuzz-node', 'fuzz-free']


def examples(budget):
    """``budget`` scaled by BERTH_FUZZ_SCALE (longer runs from bench/ or by hand)."""
    return max(1, int(budget * float(os.environ.get('BERTH_FUZZ_SCALE', '1'))))


def seed(h):
    """Create the known providers, classes, traits, allocations and nodes."""
    p = 'placement'
    v = {'OpenStack-API-Version': 'placement latest'}
    h.json(p, 'PUT', '/resource_classes/%s' % CUSTOM_RC, None, v)
    h.json(p, 'PUT', '/traits/%s' % CUSTOM_TRAIT, None, v)
    h.json(p, 'POST', '/resource_providers', {'name': 'fuzz-root', 'uuid': ROOT}, v)
    h.json(p, 'POST', '/resource_providers',
           {'name': 'fuzz-child', 'uuid': CHILD, 'parent_provider_uuid': ROOT}, v)
    h.json(p, 'POST', '/resource_providers', {'name': 'fuzz-other', 'uuid': OTHER}, v)
    h.json(p, 'PUT', '/resource_providers/%s/inventories' % ROOT, {
        'resource_provider_generation': 0, 'inventories': {
            'VCPU': {'total': 64}, 'MEMORY_MB': {'total': 65536, 'max_unit': 8192},
            'DISK_GB': {'total': 1000, 'reserved': 10}}}, v)
    h.json(p, 'PUT', '/resource_providers/%s/inventories' % CHILD, {
        'resource_provider_generation': 0, 'inventories': {
            CUSTOM_RC: {'total': 8}, 'SRIOV_NET_VF': {'total': 16}}}, v)
    h.json(p, 'PUT', '/resource_providers/%s/inventories' % OTHER, {
        'resource_provider_generation': 0, 'inventories': {'VCPU': {'total': 4}}}, v)
    h.json(p, 'PUT', '/resource_providers/%s/traits' % ROOT, {
        'resource_provider_generation': 1,
        'traits': ['HW_CPU_X86_AVX', CUSTOM_TRAIT]}, v)
    h.json(p, 'PUT', '/resource_providers/%s/aggregates' % ROOT, {
        'resource_provider_generation': 2, 'aggregates': [AGG]}, v)
    h.json(p, 'PUT', '/allocations/%s' % CONSUMER, {
        'allocations': {ROOT: {'resources': {'VCPU': 2, 'MEMORY_MB': 1024}},
                        CHILD: {'resources': {CUSTOM_RC: 1}}},
        'project_id': 'fuzz-project', 'user_id': 'fuzz-user',
        'consumer_generation': None, 'consumer_type': 'INSTANCE'}, v)
    b = 'baremetal'
    bv = {'X-OpenStack-Ironic-API-Version': 'latest'}
    for uuid, name in ((NODE, 'fuzz-node'), (NODE_FREE, 'fuzz-free')):
        h.json(b, 'POST', '/v1/nodes', {'driver': 'fake-hardware', 'uuid': uuid,
                                        'name': name, 'resource_class': 'fuzz'}, bv)
        for verb in ('manage', 'provide'):
            h.json(b, 'PUT', '/v1/nodes/%s/states/provision' % uuid,
                   {'target': verb}, bv)
    h.json(b, 'PUT', '/v1/nodes/%s/traits' % NODE, {'traits': [CUSTOM_TRAIT]}, bv)
    # waits for the outcome (the caller's opt-in), so the world is settled
    h.json(b, 'POST', '/v1/allocations', {'resource_class': 'fuzz', 'uuid': ALLOCATION,
                                          'name': 'fuzz-alloc',
                                          'candidate_nodes': [NODE]},
           dict(bv, **{'Berth-Allocation-Wait': '60'}))
