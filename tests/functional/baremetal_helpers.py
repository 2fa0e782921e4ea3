"""Helpers of the bare-metal functional tests: nodes ready to allocate, waiting."""

import concurrent.futures
import json
import threading
import time

from common import context as berth_context


def make_node(bm, name=None, resource_class='gold', traits=(), state='available',
              **extra):
    """Create a fake-hardware node and drive it to ``state``; return its JSON."""
    body = dict(driver='fake-hardware', resource_class=resource_class, **extra)
    if name:
        body['name'] = name
    resp = bm.post('/v1/nodes', json=body)
    assert resp.status_code == 201, resp.text
    node = resp.json()
    verbs = {'enroll': [], 'manageable': ['manage'], 'available': ['manage', 'provide'],
             'active': ['manage', 'provide', 'active']}[state]
    for verb in verbs:
        resp = bm.put('/v1/nodes/%s/states/provision' % node['uuid'],
                      json={'target': verb})
        assert resp.status_code == 202, resp.text
    if traits:
        resp = bm.put('/v1/nodes/%s/traits' % node['uuid'], json={'traits': list(traits)})
        assert resp.status_code == 204, resp.text
    return bm.get('/v1/nodes/%s' % node['uuid']).json()


def wait_allocation(bm, ident, deadline=30.0):
    """Poll until the allocation leaves ``allocating`` (a liveness bound, not a timing)."""
    end = time.monotonic() + deadline
    while True:
        body = bm.get('/v1/allocations/%s' % ident).json()
        if body['state'] != 'allocating' or time.monotonic() > end:
            return body
        time.sleep(0.02)


def allocate(bm, **body):
    resp = bm.post('/v1/allocations', json=body)
    assert resp.status_code == 201, resp.text
    return wait_allocation(bm, resp.json()['uuid'])


def fault(resp):
    """The faultstring of an Ironic error response."""
    return json.loads(resp.json()['error_message'])['faultstring']


def race_allocators(bm, db, allocators, rows):
    """Run each row's allocation on its affinity host's allocator, all at once.

    ``allocators`` maps host -> NodeAllocator; returns the allocations as the
    API shows them afterwards, in the order of ``rows``.
    """
    start = threading.Barrier(len(rows))

    def run(row):
        start.wait()
        allocators[row.conductor_affinity].allocate(berth_context.admin_context(db), row.id)

    with concurrent.futures.ThreadPoolExecutor(len(rows)) as pool:
        list(pool.map(run, rows))
    return [bm.get('/v1/allocations/%s' % r.uuid).json() for r in rows]
