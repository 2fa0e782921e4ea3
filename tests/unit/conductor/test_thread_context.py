"""Conductor threads log under the request they work on, and never under a stale one."""

import types

from oslo_utils import uuidutils

from common import context as berth_context
from conductor import manager as conductor_manager
from conductor import periodic, workers


def _stale():
    return berth_context.bind_request('req-' + uuidutils.generate_uuid(),
                                      'req-' + uuidutils.generate_uuid())


def test_each_periodic_run_has_its_own_request_id_and_leaves_none():
    stale = _stale()
    seen = []
    task = periodic._named(lambda: seen.append(berth_context.current()))
    task()
    task()
    first, second = seen
    assert first.request_id.startswith('req-')
    assert first.request_id not in (stale.request_id, second.request_id)
    assert first.global_request_id is None
    assert berth_context.current() is None


def test_background_work_runs_in_the_callers_context_then_forgets_it():
    _stale()
    ctx = berth_context.RequestContext(request_id='req-' + uuidutils.generate_uuid(),
                                       global_request_id='req-' + uuidutils.generate_uuid(),
                                       overwrite=False)
    seen = []
    workers._in_context(ctx, lambda: seen.append(berth_context.current()))
    assert seen == [ctx]
    assert berth_context.current() is None


def test_an_rpc_method_runs_in_the_callers_context_then_forgets_it():
    _stale()
    ctx = berth_context.RequestContext(request_id='req-' + uuidutils.generate_uuid(),
                                       global_request_id='req-' + uuidutils.generate_uuid(),
                                       overwrite=False)
    seen = []

    @conductor_manager._in_request
    def method(self, ctx):
        seen.append(berth_context.current())
        raise RuntimeError('boom')

    try:
        method(types.SimpleNamespace(), ctx)
    except RuntimeError:
        pass
    assert seen == [ctx]
    assert berth_context.current() is None


def test_the_context_crosses_rpc_with_both_request_ids():
    from common import rpc
    ctx = berth_context.RequestContext(request_id='req-' + uuidutils.generate_uuid(),
                                       global_request_id='req-' + uuidutils.generate_uuid(),
                                       overwrite=False)
    serializer = rpc.RequestContextSerializer()
    back = serializer.deserialize_context(serializer.serialize_context(ctx))
    assert (back.request_id, back.global_request_id) == (ctx.request_id,
                                                         ctx.global_request_id)
