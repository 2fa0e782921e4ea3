"""An unlimited search skips the lone trees no amount fits (objects/candidates/lone).

The skipped trees are never visited (a forked API worker's search would
otherwise write the reference count of every provider); a tree that a
sharing provider's class could complete, and every tree of more than one
provider, still is; the answers equal the loader's (``indexed=False``).
"""

import uuid as uuidlib

import pytest

from objects.candidates import finder, lone
from objects.candidates import index as index_mod
from objects.candidates import request as rg
from objects.candidates import search as search_mod
from tests.functional import candidate_helpers as helpers

AGG = str(uuidlib.uuid5(uuidlib.NAMESPACE_URL, 'lone-agg'))


def _request(**resources):
    return rg.ResourceRequest(groups=[rg.RequestGroup(resources=resources)])


@pytest.fixture
def visited(monkeypatch):
    """The root ids the searches visit, in order.

    A tree is visited through Search.anchor, or by lone.whole's loop, which
    visits every root it is handed (these searches are unlimited: it never
    stops early).
    """
    seen = []
    anchor = search_mod.Search.anchor
    whole = lone.whole

    def recording(self, root_id):
        seen.append(root_id)
        return anchor(self, root_id)

    def recording_whole(search, roots, stop=None):
        roots = list(roots)
        found = whole(search, roots, stop)
        if found is not None:
            seen.extend(roots)
        return found

    monkeypatch.setattr(search_mod.Search, 'anchor', recording)
    monkeypatch.setattr(lone, 'whole', recording_whole)
    return seen


@pytest.fixture
def region(berth, ctx):
    """Lone computes of two shapes (8 and 32 VCPU, no disk, in AGG), a tree of two
    providers, and a sharing provider of DISK_GB in AGG."""
    names = {}
    for i in range(3):
        names['small%d' % i] = helpers.add_provider(
            ctx, 'small%d' % i, inventory={'VCPU': 8}, aggregates=[AGG])
    names['big'] = helpers.add_provider(ctx, 'big', inventory={'VCPU': 32},
                                        aggregates=[AGG])
    names['parent'] = helpers.add_provider(ctx, 'parent', inventory={'VCPU': 4})
    names['child'] = helpers.add_provider(ctx, 'child', parent=names['parent'],
                                          inventory={'VCPU': 4})
    names['disk'] = helpers.add_provider(ctx, 'disk', inventory={'DISK_GB': 100},
                                         traits=[helpers.SHARES], aggregates=[AGG])
    return names


def _roots(ctx, *names):
    state = index_mod.for_database(ctx.db)._state
    by_uuid = {p.uuid: p.root_id for p in state.providers.values()}
    return sorted(by_uuid[n] for n in names)


def _answer(ctx, request, **options):
    return helpers.encoded(finder.get_candidates(ctx, request, finder.Options(**options)))


def test_lone_trees_no_amount_fits_are_not_visited(ctx, region, visited):
    request = _request(VCPU=16)
    found = _answer(ctx, request)
    assert len(found['allocation_requests']) == 1          # the big compute only
    # the small computes skipped; the two-provider tree always visited (the
    # sharing provider's, without VCPU, is left out by objects/candidates/features)
    assert visited == _roots(ctx, region['big'], region['parent'])
    assert found == _answer(ctx, request, indexed=False)


def test_a_class_a_sharing_provider_holds_skips_nothing_for_it(ctx, region, visited):
    # no lone compute has DISK_GB: the sharing provider completes them
    request = _request(VCPU=4, DISK_GB=10)
    found = _answer(ctx, request)
    assert len(found['allocation_requests']) == 4          # 3 small + big, disk shared
    # (the parent's tree, no disk and no share, is left out by features)
    assert visited == _roots(ctx, *[region[n] for n in ('small0', 'small1', 'small2', 'big')])
    assert found == _answer(ctx, request, indexed=False)


def test_nothing_fits_visits_no_lone_tree(ctx, region, visited):
    request = _request(VCPU=1000)
    found = _answer(ctx, request)
    assert found['allocation_requests'] == []
    assert visited == _roots(ctx, region['parent'])
    assert found == _answer(ctx, request, indexed=False)
