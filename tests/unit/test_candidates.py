"""Unit tests of the candidate engine's pure parts and the query schema by version."""

import itertools
import random

import jsonschema
import pytest

from api.placement import microversion
from api.placement.schemas import allocation_candidate as schema
from objects.candidates import candidate, loader, trait_sets
from objects.candidates import finder as ac


def _v(text):
    return microversion.Version.parse(text)


def _valid(version, query):
    validator = jsonschema.Draft7Validator(schema.list_query(_v(version)))
    return not list(validator.iter_errors(query))


@pytest.mark.parametrize('version,query,ok', [
    ('1.10', {'resources': 'VCPU:1'}, True),
    ('1.10', {}, False),
    ('1.24', {}, False),
    ('1.25', {}, True),
    ('1.15', {'resources': 'VCPU:1', 'limit': '1'}, False),
    ('1.16', {'resources': 'VCPU:1', 'limit': '1'}, True),
    ('1.16', {'resources': 'VCPU:1', 'limit': '01'}, False),
    ('1.25', {'resources1': 'VCPU:1', 'required1': ['A', 'B']}, True),
    ('1.25', {'resources01': 'VCPU:1'}, False),
    ('1.25', {'in_tree1': 'x'}, False),
    ('1.31', {'in_tree1': 'x', 'in_tree': 'y'}, True),
    ('1.32', {'resources_NIC': 'VCPU:1'}, False),
    ('1.33', {'resources_NIC-1': 'VCPU:1'}, True),
    ('1.33', {'resources' + 'x' * 64: 'VCPU:1'}, True),
    ('1.33', {'resources' + 'x' * 65: 'VCPU:1'}, False),
    ('1.33', {'resources1@': 'VCPU:1'}, False),
    ('1.34', {'root_required': 'A'}, False),
    ('1.35', {'root_required': 'A'}, True),
    ('1.35', {'same_subtree': '_A'}, False),
    ('1.36', {'same_subtree': ['_A', '_B']}, True),
    ('1.39', {'resources': ['VCPU:1', 'VCPU:2']}, False),
    ('1.39', {'group_policy': 'isolate'}, True),
    ('1.39', {'group_policy': 'both'}, False),
])
def test_query_schema_by_version(version, query, ok):
    assert _valid(version, query) is ok


def _provider(rp_id, parent=None, root=None, inv=None):
    p = loader.Provider(rp_id, 'uuid-%d' % rp_id, parent, root or rp_id)
    p.inv = inv or {}
    return p


def test_can_serve_rules():
    # min_unit 2, max_unit 6, step 2, free 5
    p = _provider(1, inv={7: (2, 6, 2, 5, 10, 5)})
    assert candidate.can_serve(p, 7, 2) and candidate.can_serve(p, 7, 4)
    assert not candidate.can_serve(p, 7, 1)      # below min_unit
    assert not candidate.can_serve(p, 7, 3)      # not a step
    assert not candidate.can_serve(p, 7, 6)      # above the free capacity
    assert not candidate.can_serve(p, 8, 2)      # no inventory of the class


def test_same_subtree():
    root = _provider(1)
    numa0 = _provider(2, parent=1, root=1)
    numa1 = _provider(3, parent=1, root=1)
    pf = _provider(4, parent=2, root=1)
    providers = {p.id: p for p in (root, numa0, numa1, pf)}
    assert candidate.same_subtree({numa0, pf}, providers)
    assert candidate.same_subtree({root, numa1, pf}, providers)
    assert not candidate.same_subtree({numa1, pf}, providers)
    assert candidate.same_subtree({pf}, providers)
    other = _provider(5)                       # another tree's root (a sharing provider)
    providers[5] = other
    assert candidate.same_subtree({root, pf}, providers)
    assert not candidate.same_subtree({root, other}, providers)
    assert not candidate.same_subtree({root, numa0, other}, providers)
    assert not candidate.same_subtree({numa0, other}, providers)
    lines = {}
    assert candidate.same_subtree({numa0, pf}, providers, lines)
    assert candidate.same_subtree({numa0, pf}, providers, lines) and set(lines) == {2, 4}


@pytest.mark.parametrize('kw,stop', [
    ({}, None),
    ({'limit': 5}, 5),
    ({'limit': 5, 'randomize': True}, None),   # a random sample needs them all
    ({'max_candidates': 3}, 3),
    ({'max_candidates': 3, 'limit': 5}, 3),
    ({'max_candidates': 0}, 0),
    ({'max_candidates': -1, 'limit': 2}, 2),
])
def test_stop_after(kw, stop):
    assert ac._stop_after(ac.Options(**kw)) == stop


def test_finish_limit_and_randomize():
    found = list(range(10))
    assert ac._finish(found, ac.Options(limit=3)) == [0, 1, 2]
    assert ac._finish(found, ac.Options()) == found
    sample = ac._finish(found, ac.Options(limit=3, randomize=True))
    assert len(sample) == 3 and set(sample) <= set(found)
    shuffled = ac._finish(found, ac.Options(randomize=True))
    assert sorted(shuffled) == found


def test_required_sets_met_by_the_providers_of_a_combo_together():
    # traits 1..4; every combo of three options (one per class) whose union
    # of traits meets each any-of set, as brute force reads it
    rng = random.Random(7)
    for _ in range(300):
        pool = [_provider(i + 1) for i in range(4)]
        for p in pool:
            p.traits = {t: 'T%d' % t for t in range(1, 5) if rng.random() < 0.3}
        per_class = [rng.sample(pool, rng.randint(1, 3)) for _ in range(3)]
        required = tuple(frozenset(rng.sample(range(1, 5), rng.randint(1, 2)))
                         for _ in range(rng.randint(1, 3)))
        combos = list(itertools.product(*per_class))
        expected = [c for c in combos
                    if all(any(set(p.traits) & s for p in c) for s in required)]
        assert trait_sets.meeting(required, per_class, iter(combos)) == expected
        for p in pool:
            assert trait_sets.has_all(required, p.traits) == all(set(p.traits) & s
                                                              for s in required)
