"""/metrics capacity gauges: per class, the fullest providers only, bare-metal nodes."""

import pytest

from tests.functional import alloc_helpers, baremetal_helpers
from tests.functional import metrics_helpers as mh


@pytest.fixture
def conf(conf, request):
    """[metrics] fullest_providers = 2, or the test's ``fullest`` parameter."""
    conf.set_override('fullest_providers', getattr(request, 'param', 2), group='metrics')
    return conf


def _provider(client, ctx, vcpu, used, name):
    rp = alloc_helpers.provider(client, ctx, {'VCPU': {'total': vcpu}}, name=name)
    if used:
        resp = alloc_helpers.put(client, alloc_helpers.new_uuid(), {rp: {'VCPU': used}})
        assert resp.status_code == 204, resp.text
    return rp


def _provider_series(text, name):
    return {dict(labels)['provider']: value for (n, labels), value in mh.samples(text).items()
            if n == name and dict(labels)['resource_class'] == 'VCPU'}


def test_class_totals_and_only_the_fullest_providers_are_labelled(client, ctx):
    full = _provider(client, ctx, 8, 8, 'full')
    b = _provider(client, ctx, 16, 4, 'quarter-b')        # 0.25
    c = _provider(client, ctx, 4, 1, 'quarter-c')         # 0.25: tie, by uuid
    _provider(client, ctx, 10, 0, 'empty')
    text = mh.scrape(client)
    assert mh.value(text, 'berth_resource_capacity', resource_class='VCPU') == 38
    assert mh.value(text, 'berth_resource_used', resource_class='VCPU') == 13
    assert mh.value(text, 'berth_resource_free', resource_class='VCPU') == 25
    second = min(b, c)
    assert _provider_series(text, 'berth_provider_resource_used') == {full: 8,
                                                                     second: {b: 4, c: 1}[second]}
    assert _provider_series(text, 'berth_provider_resource_capacity') == {
        full: 8, second: {b: 16, c: 4}[second]}
    assert _provider_series(text, 'berth_provider_resource_free') == {
        full: 0, second: {b: 12, c: 3}[second]}
    assert mh.value(text, 'berth_provider_resource_used', resource_class='VCPU',
                    provider=full, provider_name='full') == 8
    # fill the empty one: it enters the top 2 and the tie loser's series is gone
    resp = alloc_helpers.put(client, alloc_helpers.new_uuid(), {
        [rp for rp in (b, c) if rp != second][0]: {'VCPU': 1}})
    assert resp.status_code == 204, resp.text
    text = mh.scrape(client)
    loser = max(b, c)
    assert set(_provider_series(text, 'berth_provider_resource_used')) == {full, loser}


def test_free_allocated_and_unavailable_nodes_per_resource_class(berth, client, bm):
    for _ in range(2):
        baremetal_helpers.make_node(bm, resource_class='gold')
    baremetal_helpers.make_node(bm, resource_class='gold', state='manageable')
    baremetal_helpers.make_node(bm, resource_class='silver')
    done = baremetal_helpers.allocate(bm, resource_class='gold')
    assert done['state'] == 'active', done
    text = mh.scrape(client)
    got = {(dict(labels)['resource_class'], dict(labels)['state']): value
           for (n, labels), value in mh.samples(text).items()
           if n == 'berth_baremetal_nodes'}
    assert got == {('gold', 'free'): 1, ('gold', 'allocated'): 1,
                   ('gold', 'unavailable'): 1, ('silver', 'free'): 1,
                   ('silver', 'allocated'): 0, ('silver', 'unavailable'): 0}


@pytest.mark.parametrize('conf', [0], indirect=True)
def test_no_per_provider_series_when_the_option_is_zero(conf, client, ctx):
    assert conf.metrics.fullest_providers == 0
    _provider(client, ctx, 8, 8, 'full')
    text = mh.scrape(client)
    assert mh.value(text, 'berth_resource_used', resource_class='VCPU') == 8
    assert _provider_series(text, 'berth_provider_resource_used') == {}
