"""Every log line of a request carries its request ids and consumer, across the RPC hop."""

from oslo_utils import uuidutils
import webob

from api.placement import app as placement_app
from common import context as berth_context
from tests.functional import alloc_helpers, baremetal_helpers


def _threads_of(lines, logger_prefix):
    return {thread for thread, name, _ in lines if name.startswith(logger_prefix)}


def test_one_claim_logs_its_ids_on_both_sides_of_the_rpc(berth, client, ctx, capture):
    rp = alloc_helpers.provider(client, ctx, {'VCPU': {'total': 4}})
    consumer = alloc_helpers.new_uuid()
    global_id = 'req-' + uuidutils.generate_uuid()
    del capture.lines[:]
    resp = client.put('/allocations/%s' % consumer, version='1.28',
                      json=alloc_helpers.body({rp: {'VCPU': 1}}),
                      headers={'x-openstack-request-id': global_id})
    assert resp.status_code == 204, resp.text
    request_id = resp.headers['x-openstack-request-id']
    lines = list(capture.lines)

    # the threads that worked on this request: the API thread that logged
    # the request line, and the conductor thread that admitted the claim
    api_threads = {t for t, name, line in lines
                   if name == 'berth.api.placement.app' and '/allocations/' in line}
    conductor_threads = _threads_of(lines, 'berth.conductor.workers')
    assert len(api_threads) == 1, lines
    assert len(conductor_threads) == 1, lines
    assert api_threads != conductor_threads
    on_path = [(t, name, line) for t, name, line in lines
               if t in api_threads | conductor_threads]
    assert {name for _, name, _ in on_path} >= {'berth.api.placement.app',
                                                'berth.conductor.workers'}
    for _thread, name, line in on_path:
        assert request_id in line, (name, line)
        assert global_id in line, (name, line)
        assert '[resource: %s]' % consumer in line, (name, line)


def test_each_request_has_its_own_id(berth, client, capture):
    first = client.get('/resource_providers')
    second = client.get('/resource_providers')
    ids = [r.headers['x-openstack-request-id'] for r in (first, second)]
    assert ids[0] != ids[1]
    request_lines = [line for _, name, line in capture.lines
                     if name == 'berth.api.placement.app' and '"GET /resource_providers"' in line]
    assert len(request_lines) == 2
    for rid, line in zip(ids, request_lines):
        assert rid in line and 'status: 200' in line


def test_a_node_allocation_keeps_its_ids_in_the_conductor_background(berth, bm, capture):
    """The cast's work runs on the conductor's executor; its lines keep the ids.

    Nova's global request id (``X-OpenStack-Request-ID``) included: /v1
    reads it as Placement does.
    """
    global_id = 'req-' + uuidutils.generate_uuid()
    resp = bm.post('/v1/allocations', json={'resource_class': 'logs-nothing'},
                   headers={'X-OpenStack-Request-ID': global_id})
    assert resp.status_code == 201, resp.text
    request_id = resp.headers['x-openstack-request-id']
    uuid = resp.json()['uuid']
    assert baremetal_helpers.wait_allocation(bm, uuid)['state'] == 'error'
    # (the conductor's resume-at-start task may drive the row too, from its
    # periodic thread and without a request: not this request's path)
    failed = [(t, line) for t, name, line in capture.lines
              if name == 'berth.conductor.manager.node_allocations' and 'failed' in line
              and not t.startswith('periodic')]
    api = [(t, line) for t, name, line in capture.lines
           if name == 'berth.api.baremetal.app' and '"POST /v1/allocations"' in line]
    assert len(failed) == 1 and len(api) == 1, capture.lines
    assert failed[0][0] != api[0][0]         # another thread, across the RPC hop
    for _thread, line in failed + api:
        assert request_id in line, line
        assert global_id in line, line
        assert '[resource: %s]' % uuid in line, line


def test_a_malformed_global_request_id_is_dropped(berth, client, capture):
    """Only ``req-<uuid>`` is taken (oslo.middleware's rule): nothing else reaches the logs."""
    resp = client.get('/resource_providers',
                      headers={'x-openstack-request-id': 'req-not-a-uuid'})
    assert resp.status_code == 200
    lines = [line for _, name, line in capture.lines
             if name.endswith('api.placement.app') and '/resource_providers' in line]
    assert lines and all('req-not-a-uuid' not in line for line in lines)
    assert resp.headers['x-openstack-request-id'] != 'req-not-a-uuid'


def test_the_serving_thread_forgets_the_request_after_it(berth):
    """A pool thread's lines after a request carry none of its ids (no stale context)."""
    app = placement_app.loadapp(berth.conf, berth.db, berth.conductor_api)
    berth_context.bind_request('req-' + uuidutils.generate_uuid())   # left by earlier work
    req = webob.Request.blank('/resource_providers', headers={
        'X-Auth-Token': 'admin',
        'X-OpenStack-Request-ID': 'req-' + uuidutils.generate_uuid()})
    assert req.get_response(app).status_int == 200
    assert berth_context.current() is None
