"""One typed claim contract (issue 53): common/ holds it, the wire carries its primitive.

The RPC client's payload is the contract itself; the conductor's endpoint
bounds the untrusted message (write_checks), reads it once into the
contract, and hands only typed claims on (authorization, the claims'
writer, the reshaper).  A message that is no claim is Invalid (a 400),
never a KeyError deep in the write.
"""

import pytest

from common import claim_contract, exception
from conductor.rpcapi import payloads
from tests.unit.conductor.test_authz import (
    PROJECT_ADMIN,
    SERVICE,
    _call,
    manager,  # noqa: F401  (the fixture)
)

CLAIM = claim_contract.ClaimConsumer('c-1', {'rp-1': {'VCPU': 2}}, 'p', 'u', 'INSTANCE',
                                     check_generation=True, generation=3)


def test_the_rpc_payload_is_the_contract_of_objects():
    assert payloads.ClaimConsumer is claim_contract.ClaimConsumer


def test_an_older_sender_may_leave_the_optional_fields_out():
    got = claim_contract.ClaimConsumer.from_primitive(
        {'uuid': 'c-1', 'allocations': {}, 'project_id': 'p', 'user_id': 'u'})
    assert got == claim_contract.ClaimConsumer('c-1', {}, 'p', 'u', None, False, None)


@pytest.mark.parametrize('wire', [
    {'uuid': 'c-1', 'allocations': {}},                  # no project_id/user_id
    {'allocations': {}, 'project_id': 'p', 'user_id': 'u'},
    'c-1',
    None,
])
def test_a_consumer_that_is_no_claim_is_invalid(wire):
    with pytest.raises(exception.Invalid):
        claim_contract.from_primitives([wire])


def test_claim_resources_hands_the_typed_contract_on(manager):  # noqa: F811
    _call(manager.claim_resources, PROJECT_ADMIN, 't', [CLAIM.to_primitive()])
    ctx, tree, consumers = manager.claims.claim_resources.call_args.args
    assert tree == 't'
    assert consumers == [CLAIM]
    assert all(type(c) is claim_contract.ClaimConsumer for c in consumers)


def test_reshape_hands_the_typed_contract_on(manager):  # noqa: F811
    _call(manager.reshape, SERVICE, 't', {}, [CLAIM.to_primitive()])
    assert manager.claims.reshape.call_args.args[3] == [CLAIM]


def test_a_malformed_claim_on_the_bus_is_invalid_and_writes_nothing(manager):  # noqa: F811
    with pytest.raises(exception.Invalid):
        _call(manager.claim_resources, PROJECT_ADMIN, 't', [{'uuid': 'c-1'}])
    with pytest.raises(exception.Invalid):
        _call(manager.reshape, SERVICE, 't', {}, [{'uuid': 'c-1'}])
    manager.claims.claim_resources.assert_not_called()
    manager.claims.reshape.assert_not_called()
