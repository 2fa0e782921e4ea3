"""How a batched claim's error crosses RPC (conductor.manager.claim_many._serialised)."""

import json
import traceback
import types

from oslo_messaging._drivers import common as messaging_common

from common import context as berth_context
from common import exception, rpc
from conductor import manager as conductor_manager
from conductor.manager import claim_many


def _raised(exc, depth=5):
    """``exc`` raised ``depth`` frames down and caught: it carries a traceback."""
    def down(n):
        if n == 0:
            raise exc
        down(n - 1)
    try:
        down(depth)
    except Exception as caught:
        return caught


def test_a_refused_claim_crosses_by_class_and_arguments_without_its_frames():
    exc = _raised(exception.InvalidAllocation(reason='VCPU on rp-1 is full'))
    failure = claim_many._serialised(exc)['error']
    trace = json.loads(failure)['tb']
    assert not any('File "' in line for line in trace), trace
    again = messaging_common.deserialize_remote_exception(failure, rpc.ALLOWED_EXMODS)
    assert isinstance(again, exception.InvalidAllocation)
    assert again.message == exc.message == 'Unable to allocate inventory: VCPU on rp-1 is full'


def test_an_unexpected_error_keeps_its_traceback():
    failure = claim_many._serialised(_raised(KeyError('boom')))['error']
    assert any('File "' in line for line in json.loads(failure)['tb'])


def test_an_rpc_method_raises_domain_errors_without_the_frames_below_it():
    ctx = berth_context.RequestContext(overwrite=False)

    @conductor_manager._in_request
    def method(self, ctx, exc):
        raise _raised(exc, depth=8)

    for exc, domain in ((exception.InvalidAllocation(reason='full'), True),
                        (KeyError('boom'), False)):
        try:
            method(types.SimpleNamespace(), ctx, exc)
        except Exception as caught:
            # this test's frame, the wrapper's, then (only when unexpected) the rest
            frames = traceback.extract_tb(caught.__traceback__)
            assert [f.name for f in frames[:2]] == ['test_an_rpc_method_raises_domain_'
                                                    'errors_without_the_frames_below_it',
                                                    'wrapper']
            assert (len(frames) == 2) is domain, frames
            # what oslo.messaging puts in the reply
            failure = messaging_common.serialize_remote_exception(
                (type(caught), caught, caught.__traceback__))
            again = messaging_common.deserialize_remote_exception(failure, rpc.ALLOWED_EXMODS)
            assert isinstance(again, type(exc))
