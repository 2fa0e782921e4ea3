"""api.common.conductor.require_conductor: the one 503 for an API without a conductor."""

import pytest

from api.baremetal import fault as baremetal_fault
from api.common import conductor
from api.placement import errors as placement_errors
from api.placement import fault as placement_fault
from common import exception


class _Req:
    def __init__(self, client):
        self.conductor = client


def test_the_conductor_when_there_is_one():
    client = object()
    assert conductor.require_conductor(_Req(client)) is client


def test_no_conductor_is_503_in_both_envelopes():
    with pytest.raises(exception.ServiceUnavailable) as raised:
        conductor.require_conductor(_Req(None))
    assert str(raised.value.message) == 'Service unavailable: no conductor is configured'
    placement = placement_fault.from_domain(raised.value)
    assert (placement.status, placement.code) == (503, placement_errors.SERVICE_UNAVAILABLE)
    assert baremetal_fault.from_domain(raised.value).status == 503
