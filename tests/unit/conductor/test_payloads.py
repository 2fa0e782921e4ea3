"""The RPC payloads' primitives are the dicts sent before the payload classes.

Rolling upgrades: an old conductor must understand a new API's messages and
the other way round, so each primitive is compared with the literal dict
(key order included, so the JSON on the wire is the same bytes) that the
API or conductor built by hand before conductor/rpcapi/payloads.py.
"""

import datetime
import json

from common import inventory_contract
from conductor.rpcapi import payloads


def _same(primitive, before):
    assert primitive == before
    assert json.dumps(primitive) == json.dumps(before)   # same bytes, same order


def test_claim_consumer_is_the_old_consumer_request_dict():
    consumer = payloads.ClaimConsumer(
        uuid='c-1', allocations={'rp-1': {'VCPU': 2}}, project_id='p', user_id='u',
        consumer_type='INSTANCE', check_generation=True, generation=3)
    _same(consumer.to_primitive(), {
        'uuid': 'c-1', 'allocations': {'rp-1': {'VCPU': 2}}, 'project_id': 'p',
        'user_id': 'u', 'consumer_type': 'INSTANCE', 'check_generation': True,
        'generation': 3})
    assert payloads.ClaimConsumer.from_primitive(consumer.to_primitive()) == consumer


def test_reshape_body_is_the_old_reshape_kwargs():
    consumer = payloads.ClaimConsumer('c-1', {'rp-2': {'DISK_GB': 5}}, 'p', 'u')
    inventories = {'rp-1': {'resource_provider_generation': 1, 'inventories': {
        'VCPU': {'total': 4, 'allocation_ratio': 2}}}}
    body = payloads.ReshapeBody(inventory_contract.from_primitives(inventories), [consumer])
    _same(body.to_primitive(), {'inventories': inventories,
                                'consumers': [consumer.to_primitive()]})
    assert body.providers == {'rp-1', 'rp-2'}
    assert payloads.ReshapeBody.from_primitive(body.to_primitive()) == body


def test_schedule_request_is_the_old_schedule_and_claim_kwargs():
    request = payloads.ScheduleRequest(
        {'groups': []}, [payloads.ScheduleConsumer('c-1', 'p', 'u', None)],
        weigher='spread', distinct_roots=True)
    _same(request.to_primitive(), {
        'request': {'groups': []},
        'consumers': [{'uuid': 'c-1', 'project_id': 'p', 'user_id': 'u',
                       'consumer_type': None}],
        'weigher': 'spread', 'distinct_roots': True})
    assert payloads.ScheduleRequest.from_primitive(request.to_primitive()) == request


def test_schedule_answer_is_the_old_list_of_dicts():
    claimed = [payloads.ClaimedConsumer('c-1', {'rp-1': {'resources': {'VCPU': 1}}})]
    _same(payloads.claimed_to_primitive(claimed),
          [{'consumer_uuid': 'c-1', 'allocations': {'rp-1': {'resources': {'VCPU': 1}}}}])
    assert payloads.claimed_from_primitive(payloads.claimed_to_primitive(claimed)) == claimed


class _Row:
    state, node_uuid, last_error = 'active', 'n-1', None
    updated_at = datetime.datetime(2024, 5, 1, 12, 30, 15, 123456)


def test_allocation_outcome_is_the_old_written_dict():
    outcome = payloads.AllocationOutcome.of(_Row())
    _same(outcome.to_primitive(), {'state': 'active', 'node_uuid': 'n-1',
                                   'last_error': None,
                                   'updated_at': '2024-05-01T12:30:15.123456'})
    assert payloads.AllocationOutcome.from_primitive(outcome.to_primitive()) == outcome


def test_allocation_outcome_without_a_stamp_or_answer():
    outcome = payloads.AllocationOutcome('error', last_error='none fit')
    _same(outcome.to_primitive(), {'state': 'error', 'node_uuid': None,
                                   'last_error': 'none fit', 'updated_at': None})
    assert payloads.AllocationOutcome.from_primitive(None) is None
    # an old conductor's answer may lack optional keys
    assert payloads.AllocationOutcome.from_primitive({'state': 'active'}) == \
        payloads.AllocationOutcome('active')
