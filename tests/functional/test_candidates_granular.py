"""Requests of suffixed groups only: tree skeletons (objects/candidates/granular) change no answer.

Each answer (candidates in order, their wire encodings in every shape,
summaries) from the skeletons, kept in the provider index from one query
to the next, equals the one of the per-tree product of the groups' options
(search.Search._anchor, the path of every other request), for amounts that
some providers cannot take, a provider serving two groups (their sum
checked), isolate, same_subtree with a resourceless group, a sharing
provider, member_of, ``nested_aware=False`` and limits; then again after
usage, inventory, trait and tree writes.
"""

import contextlib
import uuid as uuidlib

import orjson

from db import api as db_api
from objects.candidates import finder, granular, wire
from objects.candidates import request as rg
from objects.placement import inventory as inv_obj
from objects.placement import provider_trait as trait_obj
from objects.placement import resource_provider as rp_obj
from tests.functional import candidate_helpers as helpers

AGG = str(uuidlib.uuid5(uuidlib.NAMESPACE_URL, 'granular-agg'))


def _group(suffix, resources=None, required=(), forbidden=(), **kw):
    return rg.RequestGroup(suffix=suffix, resources=resources or {},
                           required=[set(s) for s in required], forbidden=set(forbidden), **kw)


def _requests(cpu, mem, vf):
    return [
        # the region's shape: NUMA, NIC, a resourceless root group, same_subtree
        rg.ResourceRequest(groups=[_group('_NUMA', {'VCPU': cpu, 'MEMORY_MB': mem}),
                                   _group('_NIC', {'SRIOV_NET_VF': vf}),
                                   _group('_ROOT', required=[{'CUSTOM_ROOT'}])],
                           group_policy='none', same_subtree=[['_NUMA', '_NIC', '_ROOT']]),
        # two groups of one class: one provider may serve both (their sum checked)
        rg.ResourceRequest(groups=[_group('1', {'VCPU': cpu}), _group('2', {'VCPU': cpu})],
                           group_policy='none'),
        rg.ResourceRequest(groups=[_group('1', {'VCPU': cpu}), _group('2', {'VCPU': cpu})],
                           group_policy='isolate'),
        # a class the sharing provider serves, and member_of
        rg.ResourceRequest(groups=[_group('_A', {'VCPU': cpu}),
                                   _group('_D', {'DISK_GB': 10 * vf})], group_policy='none'),
        rg.ResourceRequest(groups=[_group('_A', {'VCPU': cpu}, member_of=[{AGG}]),
                                   _group('_D', {'DISK_GB': 10 * vf})], group_policy='none'),
        # traits, forbidden, same_subtree of two resourced groups
        rg.ResourceRequest(groups=[_group('_A', {'VCPU': cpu}, required=[{'CUSTOM_SSD'}]),
                                   _group('_B', {'SRIOV_NET_VF': vf},
                                          forbidden={'CUSTOM_SLOW'})],
                           group_policy='isolate', same_subtree=[['_A', '_B']]),
    ]


OPTIONS = [finder.Options(), finder.Options(limit=2), finder.Options(nested_aware=False),
           finder.Options(max_candidates=3, breadth_first=True)]
AMOUNTS = [(1, 256, 1), (3, 1024, 2), (4, 2048, 4), (5, 256, 1)]


@contextlib.contextmanager
def _product():
    """Searches combine groups per tree as for every other request (no skeletons)."""
    cls = granular.Skeletons
    anchor = cls.anchor
    cls.anchor = lambda self, root_id, pool: self.search._anchor(root_id)
    try:
        yield
    finally:
        cls.anchor = anchor


def _answer(result):
    """Everything an answer is made of: the candidates' dicts and JSON, the summaries."""
    found = list(result.candidates)
    return ([(c.allocations, c.mappings, sorted(p.id for p in c.providers), c.shared_only)
             for c in found],
            {shape: [orjson.loads(one) for one in wire.request_pieces(found, shape)]
             for shape in (wire.MAPPINGS, wire.DICT, wire.LIST)},
            {shape: wire.requests_json(found, shape)
             for shape in (wire.MAPPINGS, wire.DICT, wire.LIST)},
            result.summaries)


@db_api.reader
def _compare(ctx):
    if not ctx.db.is_sqlite:
        ctx.session.connection(execution_options={'isolation_level': 'REPEATABLE READ'})
    non_empty = 0
    for amounts in AMOUNTS:
        for request in _requests(*amounts):
            for opts in OPTIONS:
                # twice: the second from the skeletons the first kept
                kept = [_answer(finder.get_candidates(ctx, request, opts)) for _ in range(2)]
                with _product():
                    product = _answer(finder.get_candidates(ctx, request, opts))
                loaded = _answer(finder.get_candidates(
                    ctx, request, finder.Options(**{**vars(opts), 'indexed': False})))
                assert kept[0] == kept[1] == product == loaded, (amounts, request, opts)
                # the wire's templates are the candidates' dicts
                assert kept[0][1][wire.MAPPINGS] == [
                    {'allocations': a, 'mappings': m} for a, m, _, _ in kept[0][0]]
                non_empty += bool(kept[0][0])
    return non_empty


def _gen(ctx, uuid):
    return inv_obj.provider_generation(ctx, uuid)


def _topology(ctx):
    p = {}
    for i in range(2):
        root = p['root%d' % i] = helpers.add_provider(
            ctx, name='root%d' % i, inventory={'DISK_GB': 100},
            traits=['CUSTOM_ROOT'] if i == 0 else ['CUSTOM_ROOT', 'CUSTOM_SLOW'],
            aggregates=[AGG] if i == 0 else [])
        for j in range(2):
            p['numa%d%d' % (i, j)] = helpers.add_provider(
                ctx, name='numa%d%d' % (i, j), parent=root,
                inventory={'VCPU': 4 + 4 * j, 'MEMORY_MB': {'total': 4096, 'step_size': 256}},
                traits=['CUSTOM_SSD'] if j == 0 else [], used={'VCPU': 1 + j})
            p['nic%d%d' % (i, j)] = helpers.add_provider(
                ctx, name='nic%d%d' % (i, j), parent=p['numa%d%d' % (i, j)],
                inventory={'SRIOV_NET_VF': {'total': 4, 'max_unit': 2 + j}},
                traits=['CUSTOM_SLOW'] if (i, j) == (1, 1) else [])
    # a lone compute that can serve two VCPU groups alone, and a sharing disk
    p['cn'] = helpers.add_provider(ctx, name='cn', inventory={'VCPU': 8, 'SRIOV_NET_VF': 8},
                                   traits=['CUSTOM_SSD', 'CUSTOM_ROOT'], aggregates=[AGG])
    p['shared'] = helpers.add_provider(ctx, name='shared', inventory={'DISK_GB': 500},
                                       traits=[helpers.SHARES], aggregates=[AGG])
    return p


def test_skeletons_change_no_answer_under_writes(berth, ctx):
    p = _topology(ctx)
    assert _compare(ctx) > 20
    writes = [
        # usage: a NUMA node fills up, then empties
        lambda: helpers.add_provider(ctx, name='numa02', parent=p['root0'],
                                     inventory={'VCPU': 2}, used={'VCPU': 2}),
        lambda: inv_obj.replace_all(ctx, p['numa00'], _gen(ctx, p['numa00']),
                                    [inv_obj.Inventory('VCPU', 4, reserved=3),
                                     inv_obj.Inventory('MEMORY_MB', 4096)],
                                    allow_zero_capacity=False),
        lambda: trait_obj.set_traits(ctx, p['root1'], _gen(ctx, p['root1']), []),
        lambda: trait_obj.set_traits(ctx, p['nic11'], _gen(ctx, p['nic11']), []),
        # a NIC moves to the other NUMA node, then to another tree, then back
        lambda: rp_obj.update(ctx, p['nic00'], 'nic00', parent_uuid=p['numa01'],
                              allow_reparent=True),
        lambda: rp_obj.update(ctx, p['nic00'], 'nic00', parent_uuid=p['cn'],
                              allow_reparent=True),
        lambda: rp_obj.update(ctx, p['nic00'], 'nic00', parent_uuid=p['numa00'],
                              allow_reparent=True),
        lambda: rp_obj.destroy(ctx, p['nic10']),
    ]
    for write in writes:
        write()
        _compare(ctx)
