"""Every log line of a request carries its request ids and consumer, across the RPC hop."""

import logging
import threading

from oslo_log import formatters
from oslo_utils import uuidutils
import pytest

from common import context as berth_context
from tests.functional import alloc_helpers, baremetal_helpers


class Capture(logging.Handler):
    """Formats each record in the emitting thread, as oslo.log's handlers do."""

    def __init__(self, conf):
        super().__init__(logging.DEBUG)
        self.setFormatter(formatters.ContextFormatter(project='berth', config=conf))
        self.lines = []      # (thread name, logger name, formatted line)
        self._lock = threading.Lock()

    def emit(self, record):
        line = self.format(record)
        with self._lock:
            self.lines.append((threading.current_thread().name, record.name, line))


@pytest.fixture
def capture(berth):
    """Every line at DEBUG, with oslo.log's default levels for libraries.

    (Those defaults, as in production with ``debug = True``, keep e.g.
    oslo.messaging at INFO: its "received message" line comes before the
    message's context is known.)
    """
    berth_context.set_log_defaults(berth.conf)
    handler = Capture(berth.conf)
    levels = {'': logging.DEBUG}
    for pair in berth.conf.default_log_levels:
        name, _, level = pair.partition('=')
        levels[name] = logging.getLevelName(level)
    old = {name: logging.getLogger(name).level for name in levels}
    for name, level in levels.items():
        logging.getLogger(name).setLevel(level)
    logging.getLogger().addHandler(handler)
    yield handler
    logging.getLogger().removeHandler(handler)
    for name, level in old.items():
        logging.getLogger(name).setLevel(level)


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
    """The cast's work runs on the conductor's executor; its lines keep the ids."""
    resp = bm.post('/v1/allocations', json={'resource_class': 'logs-nothing'})
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
        assert '[resource: %s]' % uuid in line, line
