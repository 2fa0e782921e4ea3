"""The status page's capacity views: fullest providers, free nodes, stable top consumers."""

import pytest

from tests.functional import alloc_helpers, baremetal_helpers, status_helpers

pytestmark = pytest.mark.usefixtures('berth')


@pytest.fixture
def conf(tmp_path):
    return status_helpers.make_conf(tmp_path)


def _status(client):
    resp = client.get('/status.json', version='')
    assert resp.status_code == 200, resp.text
    return resp.json()


def _host(client, ctx, vcpu, used, name):
    rp = alloc_helpers.provider(client, ctx, {'VCPU': {'total': vcpu}}, name=name)
    if used:
        resp = alloc_helpers.put(client, alloc_helpers.new_uuid(), {rp: {'VCPU': used}})
        assert resp.status_code == 204, resp.text
    return rp


def test_fullest_providers_by_class_fullest_first_ties_by_uuid(client, ctx):
    # the summed view says 86 / 192 while one host is at 64 of 64 (issue 35)
    full = _host(client, ctx, 64, 64, 'full')
    half = [_host(client, ctx, 32, 16, 'half-%d' % i) for i in range(2)]
    _host(client, ctx, 96, 6, 'light')
    _host(client, ctx, 8, 0, 'idle')
    body = _status(client)
    vcpu = [c for c in body['capacity'] if c['resource_class'] == 'VCPU'][0]
    assert (vcpu['used'], vcpu['capacity']) == (102, 232)
    fullest = [(f['provider'], f['name'], f['used'], f['capacity'], f['free'])
               for f in body['fullest_providers'] if f['resource_class'] == 'VCPU']
    first, second = sorted(half)
    names = {rp: name for rp, name in zip(half, ('half-0', 'half-1'))}
    assert fullest == [(full, 'full', 64, 64, 0),
                       (first, names[first], 16, 32, 16),
                       (second, names[second], 16, 32, 16)] + fullest[3:]
    assert len(fullest) == 4        # the idle host is not among the fullest


def test_free_allocated_and_unavailable_nodes_per_resource_class(client, bm):
    baremetal_helpers.make_node(bm, resource_class='gold')
    baremetal_helpers.make_node(bm, resource_class='gold')
    baremetal_helpers.make_node(bm, resource_class='gold', state='enroll')
    done = baremetal_helpers.allocate(bm, resource_class='gold')
    assert done['state'] == 'active', done
    assert _status(client)['baremetal_nodes'] == {
        'gold': {'free': 1, 'allocated': 1, 'unavailable': 1}}


def test_top_consumers_of_equal_size_come_in_uuid_order(client, ctx):
    rp = alloc_helpers.provider(client, ctx, {'VCPU': {'total': 64}})
    consumers = [alloc_helpers.new_uuid() for _ in range(7)]
    for consumer in consumers:
        resp = alloc_helpers.put(client, consumer, {rp: {'VCPU': 2}})
        assert resp.status_code == 204, resp.text
    for _ in range(2):                     # the same answer on every read
        vcpu = [c for c in _status(client)['capacity'] if c['resource_class'] == 'VCPU'][0]
        assert [t['consumer_uuid'] for t in vcpu['top_consumers']] == sorted(consumers)[:5]


def test_page_has_the_fullest_and_node_tables(client):
    page = client.get('/status', version='', headers={'accept': 'text/html'}).text
    for marker in ('id="fullest-rows"', 'id="node-rows"', 'data.fullest_providers',
                   'data.baremetal_nodes'):
        assert marker in page
