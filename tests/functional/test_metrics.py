"""/metrics on the API ports: route templates, RPC and conductor metrics, access rules."""

import pytest
import webob

from api.common import metrics as api_metrics
from tests import fixtures
from tests.functional import alloc_helpers, baremetal_helpers
from tests.functional import metrics_helpers as mh

REQUESTS = 'berth_api_requests_total'


def test_requests_are_counted_by_route_template_not_raw_path(berth, client, ctx):
    rp = alloc_helpers.provider(client, ctx, {'VCPU': {'total': 4}})
    route = '/resource_providers/{uuid}'
    before = mh.scrape(client)
    assert client.get('/resource_providers/%s' % rp).status_code == 200
    assert client.get('/resource_providers/%s' % alloc_helpers.new_uuid()
                      ).status_code == 404
    after = mh.scrape(client)
    for status in ('200', '404'):
        labels = dict(api='placement', method='GET', route=route, status=status)
        assert (mh.value(after, REQUESTS, **labels)
                - mh.value(before, REQUESTS, **labels)) == 1
    assert rp not in after
    assert mh.total(after, 'berth_api_request_duration_seconds_count',
                    route=route) >= 2
    # a path no route matches is one series, whatever the path
    client.get('/no/such/%s' % rp)
    text = mh.scrape(client)
    assert mh.total(text, REQUESTS, route='unmatched', status='404') >= 1
    assert rp not in text


def test_claims_rpc_and_conductor_metrics(berth, client, ctx):
    rp = alloc_helpers.provider(client, ctx, {'VCPU': {'total': 4}})
    before = mh.scrape(client)
    consumer = alloc_helpers.new_uuid()
    assert alloc_helpers.put(client, consumer, {rp: {'VCPU': 1}}).status_code == 204
    # a stale consumer generation: a 409 the conductor counts as a conflict
    resp = alloc_helpers.put(client, consumer, {rp: {'VCPU': 2}}, generation=None)
    assert resp.status_code == 409, resp.text
    after = mh.scrape(client)

    def delta(name, **labels):
        return mh.value(after, name, **labels) - mh.value(before, name, **labels)

    assert delta('berth_claims_total', operation='replace', outcome='success') == 1
    assert delta('berth_claims_total', operation='replace', outcome='conflict') == 1
    assert delta('berth_claim_conflicts_total', operation='replace',
                 reason='consumer_generation') == 1
    assert delta('berth_rpc_duration_seconds_count', method='claim_resources') == 2
    host = berth.conductors[0].host
    assert mh.value(after, 'berth_conductor_worker_slots', conductor=host) == \
        berth.conf.conductor.workers
    assert mh.value(after, 'berth_conductor_queue_depth', conductor=host) == 0
    assert mh.value(after, 'berth_ring_members', ring=host) == 1
    assert mh.value(after, 'berth_ring_members', ring='reader') == 1
    assert mh.value(after, 'berth_ring_rebalances_total', ring=host) >= 1


def test_node_allocations_by_state_and_baremetal_port(berth, bm, client):
    node = baremetal_helpers.make_node(bm, resource_class='metrics-rc')
    done = baremetal_helpers.allocate(bm, resource_class='metrics-rc')
    assert done['state'] == 'active' and done['node_uuid'] == node['uuid']
    failed = baremetal_helpers.allocate(bm, resource_class='metrics-none')
    assert failed['state'] == 'error'
    text = mh.scrape(client)     # the process's one /metrics: the Placement port
    assert mh.value(text, 'berth_node_allocations', state='active') == 1
    assert mh.value(text, 'berth_node_allocations', state='error') == 1
    assert mh.value(text, 'berth_node_allocations', state='allocating') == 0
    assert mh.value(text, 'berth_node_allocation_oldest_allocating_seconds') == 0
    assert mh.total(text, REQUESTS, api='baremetal', method='POST',
                    route='/v1/allocations', status='201') >= 2


def test_head_and_wrong_method(client):
    assert client.request('HEAD', '/metrics', token='', version='').status_code == 200
    resp = client.post('/metrics', token='', version='')
    assert resp.status_code == 405
    assert resp.headers['allow'] == 'GET, HEAD'


@pytest.mark.parametrize('addr,status', [('127.0.0.1', 200), ('::1', 200),
                                         ('10.0.0.7', 403), ('', 403)])
def test_loopback_access(tmp_path, addr, status):
    conf = fixtures.make_conf(tmp_path)
    app = api_metrics.wrap(None, conf, 'placement')
    req = webob.Request.blank('/metrics', remote_addr=addr)
    assert req.get_response(app).status_int == status


def test_open_access_serves_anyone(tmp_path):
    conf = fixtures.make_conf(tmp_path, **{'metrics.api_access': 'open'})
    app = api_metrics.wrap(None, conf, 'placement')
    req = webob.Request.blank('/metrics', remote_addr='10.0.0.7')
    resp = req.get_response(app)
    assert resp.status_int == 200
    assert b'berth_api_requests_total' in resp.body


def test_disabled_leaves_the_path_to_the_api(tmp_path):
    """``disabled``: /metrics is an ordinary (unknown) path of the API."""
    conf = fixtures.make_conf(tmp_path, **{'metrics.api_access': 'disabled'})

    def api(environ, start_response):
        start_response('404 Not Found', [('Content-Type', 'text/plain')])
        return [b'not here']
    resp = webob.Request.blank('/metrics').get_response(
        api_metrics.wrap(api, conf, 'placement'))
    assert resp.status_int == 404 and resp.body == b'not here'


@pytest.mark.parametrize('header', ['X-Forwarded-For', 'Forwarded'])
def test_loopback_through_a_proxy_is_refused(tmp_path, header):
    """A reverse proxy on the same host must not open /metrics to everyone."""
    conf = fixtures.make_conf(tmp_path)
    app = api_metrics.wrap(None, conf, 'placement')
    req = webob.Request.blank('/metrics', remote_addr='127.0.0.1',
                              headers={header: 'for=203.0.113.9'})
    assert req.get_response(app).status_int == 403


def test_one_metrics_per_process_the_bare_metal_port_points_elsewhere(berth, bm, client):
    """Both ports share one registry: only the Placement port exposes it."""
    resp = bm.get('/metrics', version='')
    assert resp.status_code == 404
    assert 'served on its Placement API port' in resp.text
    assert 'berth_api_requests_total' not in resp.text
    assert 'berth_api_requests_total' in mh.scrape(client)
    # the bare-metal API itself is still counted, in the Placement port's exposition
    assert bm.get('/v1/nodes').status_code == 200
    assert mh.total(mh.scrape(client), REQUESTS, api='baremetal', route='/v1/nodes') >= 1


def test_berth_api_wraps_its_bare_metal_app_the_same_way(tmp_path, monkeypatch):
    from api.baremetal import app as baremetal_app
    from cli import api as cli_api
    from cli import metrics_once

    def inner(environ, start_response):
        start_response('200 OK', [('Content-Type', 'text/plain')])
        return [b'inner']
    monkeypatch.setattr(baremetal_app, 'loadapp', lambda conf, db, conductor: inner)
    conf = fixtures.make_conf(tmp_path)
    app = cli_api._baremetal_app(conf, None, conductor=None)
    assert isinstance(app, metrics_once.PointToPlacement)
    assert webob.Request.blank('/metrics').get_response(app).status_int == 404
    assert webob.Request.blank('/v1/nodes').get_response(app).body == b'inner'
    # [metrics] api_access = disabled: /metrics is an ordinary path of the API
    conf = fixtures.make_conf(tmp_path, **{'metrics.api_access': 'disabled'})
    app = cli_api._baremetal_app(conf, None, conductor=None)
    assert webob.Request.blank('/metrics').get_response(app).body == b'inner'
