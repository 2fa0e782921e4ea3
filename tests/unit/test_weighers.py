"""Weighers (objects/weighers): the registry and each weigher's order."""

import random

import pytest

from common import exception
from objects.candidates import weighers
from objects.candidates.weighers import base

SUMMARIES = {
    'empty': {'resources': {'VCPU': {'capacity': 8, 'used': 0}}},
    'half': {'resources': {'VCPU': {'capacity': 8, 'used': 4}}},
    'full': {'resources': {'VCPU': {'capacity': 8, 'used': 7}}},
    'zero': {'resources': {'VCPU': {'capacity': 0, 'used': 0}}},
}


def _alloc(rp, vcpu=1):
    return {rp: {'resources': {'VCPU': vcpu}}}


def _order(weigher, rps=('half', 'full', 'empty')):
    return sorted(rps, key=lambda rp: -weigher.weigh(_alloc(rp), SUMMARIES))


def test_registry_lists_every_weigher_module():
    assert weighers.names() == ['pack', 'random', 'spread']


def test_unknown_weigher_is_invalid():
    with pytest.raises(exception.Invalid, match="unknown weigher 'heavy'"):
        weighers.get('heavy')
    with pytest.raises(exception.Invalid):
        weighers.get('base')


def test_spread_prefers_most_free():
    assert _order(weighers.get('spread')) == ['empty', 'half', 'full']


def test_pack_prefers_least_free():
    assert _order(weighers.get('pack')) == ['full', 'half', 'empty']


def test_random_uses_its_generator():
    weigher = weighers.get('random')
    assert isinstance(weigher, base.Weigher)
    seeded = type(weigher)(rng=random.Random(1))
    again = type(weigher)(rng=random.Random(1))
    assert [seeded.weigh({}, {}) for _ in range(5)] == [again.weigh({}, {})
                                                         for _ in range(5)]


def test_free_ratio_averages_every_claimed_inventory():
    summaries = {'a': {'resources': {'VCPU': {'capacity': 10, 'used': 0},
                                     'MEMORY_MB': {'capacity': 100, 'used': 50}}}}
    alloc = {'a': {'resources': {'VCPU': 5, 'MEMORY_MB': 10}}}
    assert base.free_ratio(alloc, summaries) == pytest.approx((0.5 + 0.4) / 2)
    assert base.free_ratio(_alloc('zero'), SUMMARIES) == 0.0
    assert base.free_ratio({}, {}) == 0.0


def test_base_weigher_is_abstract():
    with pytest.raises(NotImplementedError):
        base.Weigher().weigh({}, {})


def test_every_weigher_says_where_its_window_starts():
    from objects.candidates import window as candidate_window
    assert {name: weighers.get(name).start for name in weighers.names()} == {
        'pack': 'first', 'random': 'random', 'spread': 'random'}
    assert base.Weigher.start in candidate_window.STARTS
