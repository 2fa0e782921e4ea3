"""Helpers of the schedule-and-claim and quota tests: hosts with inventory, claims."""

import uuid as uuidlib

from tests.functional import provider_helpers


def new_uuid():
    return str(uuidlib.uuid4())


def host(client, ctx, vcpu=8, memory=4096, traits=(), name=None):
    """A root provider with VCPU and MEMORY_MB inventory (and traits); its uuid."""
    rp = provider_helpers.create_provider(client, ctx, name=name)
    resp = client.put('/resource_providers/%s/inventories' % rp, json={
        'resource_provider_generation': 0,
        'inventories': {'VCPU': {'total': vcpu}, 'MEMORY_MB': {'total': memory}}})
    assert resp.status_code == 200, resp.text
    if traits:
        gen = resp.json()['resource_provider_generation']
        resp = client.put('/resource_providers/%s/traits' % rp, json={
            'resource_provider_generation': gen, 'traits': list(traits)})
        assert resp.status_code == 200, resp.text
    return rp


def claim_body(resources=(('VCPU', 1),), consumer=None, project='p1', user='u1',
               **extra):
    """A POST /claims body; ``resources=None`` leaves the unsuffixed group out."""
    body = {'consumer_uuid': consumer or new_uuid(), 'project_id': project,
            'user_id': user}
    if resources is not None:
        body['resources'] = dict(resources)
    body.update(extra)
    return body


def claim(client, **kw):
    return client.post('/claims', json=claim_body(**kw))


def placed_on(resp):
    """The provider uuids of each claim of a 201 answer, in order."""
    assert resp.status_code == 201, resp.text
    return [sorted(c['allocations']) for c in resp.json()['claims']]


def usage(client, rp):
    resp = client.get('/resource_providers/%s/usages' % rp)
    assert resp.status_code == 200, resp.text
    return resp.json()['usages']


def error(resp, status, code):
    assert resp.status_code == status, resp.text
    err = resp.json()['errors'][0]
    assert err['code'] == code, err
    return err['detail']
