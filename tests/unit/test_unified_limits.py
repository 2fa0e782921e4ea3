"""common.unified_limits against a fake Keystone over real HTTP (keystoneauth1 in between).

Only the process edge is faked (tests/fake_keystone.py serves HTTP on
loopback); the clock is a fake one so the cache's TTL and outage ages are
exact without sleeping.
"""

import pytest

from common import exception, unified_limits
from objects.placement import quota as quota_obj
from objects.placement import quota_keystone
from tests import fake_keystone, fixtures


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


@pytest.fixture
def keystone():
    fake = fake_keystone.FakeKeystone()
    fake.registered = {'servers': 10, 'class:VCPU': 20, 'class:MEMORY_MB': -1}
    fake.project_limits = {('p1', 'class:VCPU'): 12, ('p2', 'servers'): 3}
    yield fake
    fake.stop()


def _reader(tmp_path, keystone, clock=None, section_extra=None, **quota):
    path = tmp_path / 'limits.conf'
    path.write_text(keystone.oslo_limit_section(**(section_extra or {})))
    overrides = {'quota.limits_source': 'keystone'}
    overrides.update({'quota.%s' % k: v for k, v in quota.items()})
    conf = fixtures.make_conf(tmp_path / 'state', config_files=[path], **overrides)
    return unified_limits.LimitReader(conf, clock=clock or Clock())


def test_registered_limits_are_defaults_and_project_limits_override(tmp_path, keystone):
    reader = _reader(tmp_path, keystone)
    # -1 is Keystone's "unlimited": left out
    assert reader.limits('p1') == {'servers': 10, 'class:VCPU': 12}
    assert reader.limits('p2') == {'servers': 3, 'class:VCPU': 20}
    assert reader.limits('nobody') == {'servers': 10, 'class:VCPU': 20}
    # the endpoint named by endpoint_id selected the service and region
    assert '/v3/endpoints/%s' % fake_keystone.ENDPOINT_ID in keystone.requests
    assert any(p.startswith('/v3/limits?') and 'project_id=p1' in p
               and 'service_id=%s' % fake_keystone.SERVICE_ID in p
               and 'region_id=%s' % fake_keystone.REGION in p for p in keystone.requests)


def test_endpoint_found_by_service_type_region_and_interface(tmp_path, keystone):
    reader = _reader(tmp_path, keystone, section_extra={
        'endpoint_service_type': 'placement', 'endpoint_region_name': 'RegionOne',
        'endpoint_interface': 'internalURL'})
    assert reader.limits('p1') == {'servers': 10, 'class:VCPU': 12}
    asked = keystone.limit_paths()
    assert '/v3/services?type=placement' in asked
    assert '/v3/regions/RegionOne' in asked
    assert ('/v3/endpoints?interface=internal&region_id=RegionOne&service_id=%s'
            % fake_keystone.SERVICE_ID) in asked


def test_a_lookup_that_finds_no_endpoint_is_unavailable(tmp_path, keystone):
    reader = _reader(tmp_path, keystone, section_extra={'endpoint_service_type': 'nothing'})
    with pytest.raises(exception.QuotaLimitsUnavailable) as err:
        reader.limits('p1')
    assert '0 services match' in err.value.message


def test_no_endpoint_configured_is_unavailable_with_the_reason(tmp_path, keystone):
    path = tmp_path / 'limits.conf'
    path.write_text(keystone.oslo_limit_section(endpoint_service_type='')
                    .replace('endpoint_service_type = \n', ''))
    conf = fixtures.make_conf(tmp_path / 'state', config_files=[path])
    with pytest.raises(exception.QuotaLimitsUnavailable) as err:
        unified_limits.LimitReader(conf).limits('p1')
    assert 'needs endpoint_id' in err.value.message


def test_no_auth_type_is_unavailable(tmp_path):
    conf = fixtures.make_conf(tmp_path / 'state', **{'oslo_limit.endpoint_id': 'x'})
    with pytest.raises(exception.QuotaLimitsUnavailable) as err:
        unified_limits.LimitReader(conf).limits('p1')
    assert 'no auth_type' in err.value.message


def test_limits_are_cached_for_the_ttl_then_read_again(tmp_path, keystone):
    clock = Clock()
    reader = _reader(tmp_path, keystone, clock, limits_cache_ttl=30)
    assert reader.limits('p1')['class:VCPU'] == 12
    asked = len(keystone.limit_paths())
    keystone.project_limits[('p1', 'class:VCPU')] = 5
    clock.now += 29
    assert reader.limits('p1')['class:VCPU'] == 12
    assert len(keystone.limit_paths()) == asked      # no request inside the TTL
    clock.now += 2
    assert reader.limits('p1')['class:VCPU'] == 5
    assert len(keystone.limit_paths()) == asked + 2  # registered + project, endpoint kept


def test_ttl_zero_reads_every_time(tmp_path, keystone):
    reader = _reader(tmp_path, keystone, limits_cache_ttl=0)
    reader.limits('p1')
    asked = len(keystone.limit_paths())
    reader.limits('p1')
    assert len(keystone.limit_paths()) == asked + 2


def test_outage_uses_young_cached_limits_then_refuses(tmp_path, keystone):
    clock = Clock()
    reader = _reader(tmp_path, keystone, clock, limits_cache_ttl=30,
                     limits_stale_max_age=120)
    assert reader.limits('p1')['class:VCPU'] == 12
    keystone.down = True
    clock.now += 100        # past the TTL, within the stale age: cached values
    assert reader.limits('p1')['class:VCPU'] == 12
    clock.now += 30         # 130 s old: refused, never unlimited
    with pytest.raises(exception.QuotaLimitsUnavailable) as err:
        reader.limits('p1')
    assert 'answered 503' in err.value.message
    keystone.down = False
    assert reader.limits('p1')['class:VCPU'] == 12


def test_outage_with_nothing_cached_refuses(tmp_path, keystone):
    keystone.down = True
    reader = _reader(tmp_path, keystone)
    with pytest.raises(exception.QuotaLimitsUnavailable) as err:
        reader.limits('p1')
    assert 'project p1' in err.value.message


def test_keystone_unreachable_refuses(tmp_path, keystone):
    reader = _reader(tmp_path, keystone)
    keystone.stop()
    with pytest.raises(exception.QuotaLimitsUnavailable):
        reader.limits('p1')


def test_an_unexpected_answer_is_unavailable(tmp_path, keystone):
    keystone.broken_body = True
    with pytest.raises(exception.QuotaLimitsUnavailable) as err:
        _reader(tmp_path, keystone).limits('p1')
    assert 'unexpected answer' in err.value.message


def test_the_cache_keeps_at_most_size_projects(tmp_path, keystone):
    clock = Clock()
    reader = _reader(tmp_path, keystone, clock, limits_cache_size=2)
    for project in ('a', 'b', 'c'):
        reader.limits(project)
    assert list(reader._projects) == ['b', 'c']
    keystone.down = True
    assert reader.limits('c') == {'servers': 10, 'class:VCPU': 20}
    with pytest.raises(exception.QuotaLimitsUnavailable):
        reader.limits('a')        # dropped from the cache, Keystone down


def test_nova_names_map_to_berth_limits():
    limits = quota_keystone.to_limits({
        'servers': 4, 'class:VCPU': 8, 'class:CUSTOM_GOLD': 1, 'cores': 6,
        'server_groups': 10, 'class:': 3})
    assert limits == quota_obj.Limits(resources={'VCPU': 8, 'CUSTOM_GOLD': 1},
                                      consumers={'INSTANCE': 4}, views={'cores': 6})


def test_keystone_source_has_no_per_user_limits(tmp_path, keystone):
    source = quota_keystone.KeystoneLimits(_reader(tmp_path, keystone))
    assert source.limits(None, 'p1', 'some-user') == quota_obj.Limits()
    assert source.limits(None, 'p1').resources == {'VCPU': 12}
