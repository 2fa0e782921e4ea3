"""api.placement.query.check_names against a real database."""

import pytest

from api.placement import fault, microversion, query
from common import context as berth_context
from objects import database
from tests import fixtures

V = microversion.Version.parse('1.39')


@pytest.fixture
def ctx(conf, tmp_path_factory):
    fixtures.fresh_database(tmp_path_factory.getbasetemp(), conf)
    db = database.open_database(conf)
    yield berth_context.admin_context(db)
    db.dispose()


def test_known_names_give_ids(ctx):
    groups = [query.build_group(V, resources='VCPU:1', required=['in:HW_CPU_X86_AVX']),
              query.build_group(V, '1', resources='DISK_GB:1',
                                required=['!HW_CPU_X86_SSE2'])]
    classes, traits = query.check_names(ctx, groups, extra_traits={'STORAGE_DISK_SSD'})
    assert set(classes) == {'VCPU', 'DISK_GB'}
    assert set(traits) == {'HW_CPU_X86_AVX', 'HW_CPU_X86_SSE2', 'STORAGE_DISK_SSD'}


def test_no_names_no_queries(ctx):
    assert query.check_names(ctx, [query.build_group(V)]) == ({}, {})


@pytest.mark.parametrize('kwargs,fragment', [
    ({'resources': 'CUSTOM_NOPE:1'}, 'CUSTOM_NOPE'),
    ({'required': ['CUSTOM_GONE']}, 'CUSTOM_GONE'),
    ({'required': ['!CUSTOM_GONE']}, 'CUSTOM_GONE'),
    ({'required': ['in:HW_CPU_X86_AVX,CUSTOM_GONE']}, 'CUSTOM_GONE'),
])
def test_unknown_names_are_400(ctx, kwargs, fragment):
    with pytest.raises(fault.BadRequest) as info:
        query.check_names(ctx, [query.build_group(V, **kwargs)])
    assert fragment in info.value.detail


def test_unknown_extra_trait_is_400(ctx):
    with pytest.raises(fault.BadRequest):
        query.check_names(ctx, [], extra_traits={'CUSTOM_ROOT_GONE'})
