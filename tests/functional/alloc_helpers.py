"""Helpers of the allocation tests: providers with inventory, claims, error checks."""

import uuid as uuidlib

from objects.placement import allocation as alloc_obj
from objects.placement import inventory as inv_obj
from tests.functional import provider_helpers

UNDEFINED = 'placement.undefined_code'
CONCURRENT = 'placement.concurrent_update'


def new_uuid():
    return str(uuidlib.uuid4())


def provider(client, ctx, inventories, name=None):
    """A root provider with ``inventories`` ({class: record}); returns its uuid."""
    rp = provider_helpers.create_provider(client, ctx, name=name)
    resp = client.put('/resource_providers/%s/inventories' % rp, version='1.26',
                      json={'resource_provider_generation': 0,
                            'inventories': inventories})
    if resp.status_code in (404, 405):  # inventory endpoints not there yet
        inv_obj.replace_all(ctx, rp, 0, [inv_obj.from_record(rc, rec)
                                         for rc, rec in inventories.items()], True)
    else:
        assert resp.status_code == 200, resp.text
    return rp


def vcpu_used(ctx, rp):
    """The VCPU that ``rp``'s allocations hold, read from the database."""
    _, allocations, _ = alloc_obj.get_for_provider(ctx, rp)
    return sum(a['resources']['VCPU'] for a in allocations.values())


def generation(client, rp):
    resp = client.get('/resource_providers/%s/allocations' % rp)
    assert resp.status_code == 200, resp.text
    return resp.json()['resource_provider_generation']


def body(allocations, generation=None, project='p1', user='u1', consumer_type=None,
         **extra):
    """A 1.28+ PUT body from ``{rp: {class: amount}}``."""
    out = {'allocations': {rp: {'resources': res} for rp, res in allocations.items()},
           'project_id': project, 'user_id': user, 'consumer_generation': generation}
    if consumer_type is not None:
        out['consumer_type'] = consumer_type
    out.update(extra)
    return out


def put(client, consumer, allocations, version='1.28', **kw):
    return client.put('/allocations/%s' % consumer, version=version,
                      json=body(allocations, **kw))


def error(resp, status, code=UNDEFINED, version_has_code=True):
    """Assert an error envelope; return its detail."""
    assert resp.status_code == status, resp.text
    err = resp.json()['errors'][0]
    if version_has_code:
        assert err['code'] == code, err
    return err['detail']
