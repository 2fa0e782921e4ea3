"""The typed write contracts of node allocations and node updates (issue 53).

Their primitives are what goes on the bus (tests/unit/test_node_allocation_wire.py
pins the bytes); these hold the rest: what a value reads back as, what is
refused, and that each contract takes exactly the fields the REST API and the
conductor's write checks allow.
"""

import pytest

from api.baremetal.schemas import node as api_node_schema
from common import exception
from common import inventory_contract as ic
from common import node_allocation_contract as nac
from common import node_update_contract as nuc
from conductor.manager import write_checks as wc

UUID = '22222222-2222-4222-8222-222222222222'


def test_the_contracts_take_what_the_write_checks_allow():
    assert nuc.FIELDS - set(nuc.CLEARED_ONLY) == wc.NODE_PATCHABLE == set(
        api_node_schema.PATCHABLE)
    assert nuc.CLEARED_ONLY == wc.NODE_CLEARED
    assert set(nac.NEW_FIELDS) == wc.BACKFILL_FIELDS
    assert set(nuc.INTERFACES) == set(wc.NODE_INTERFACES)


def test_a_new_allocation_sends_only_what_was_given_in_one_order():
    new = nac.NewAllocation.from_primitive({'uuid': UUID, 'extra': {'a': 1}, 'name': None,
                                            'resource_class': 'gold'})
    assert new == nac.NewAllocation(resource_class='gold', extra={'a': 1}, uuid=UUID)
    assert list(new.to_primitive().items()) == [
        ('resource_class', 'gold'), ('extra', {'a': 1}), ('uuid', UUID)]
    assert nac.NewAllocation.from_primitive(new.to_primitive()) == new
    assert nac.NewAllocation().to_primitive() == {}


@pytest.mark.parametrize('data', [{'node': 'n1'}, {'state': 'active'}, ['uuid']])
def test_a_new_allocation_refuses_what_is_not_one(data):
    with pytest.raises(exception.Invalid):
        nac.NewAllocation.from_primitive(data)


def test_an_allocation_update_sends_the_fields_it_changes():
    assert nac.AllocationUpdate(None, {}).to_primitive() == {'name': None, 'extra': {}}
    only_name = nac.AllocationUpdate.from_primitive({'name': 'x'})
    assert only_name.extra is nac.UNCHANGED
    assert only_name.columns() == {'name': 'x'}
    assert nac.AllocationUpdate.from_primitive({'extra': None}).columns() == {'extra': None}
    with pytest.raises(exception.Invalid):
        nac.AllocationUpdate.from_primitive({'owner': 'p2'})


def test_a_backfill_answer_round_trips():
    answer = nac.BackfillAnswer(UUID, 'no fit')
    assert nac.BackfillAnswer.from_primitive(answer.to_primitive()) == answer


def test_a_node_update_keeps_the_order_and_only_the_changed_fields():
    data = {'extra': {'k': 1}, 'maintenance': True, 'instance_uuid': None}
    change = nuc.NodeUpdate.from_primitive(data)
    assert change.removes_instance and change.maintenance is True
    assert list(change.to_primitive().items()) == list(data.items())
    assert change.columns() == data
    assert not nuc.NodeUpdate.from_primitive({'name': 'n'}).removes_instance


@pytest.mark.parametrize('data', [{'maintenance_reason': 'r'}, {'allocation_id': 1}, []])
def test_a_node_update_refuses_a_field_a_patch_cannot_change(data):
    with pytest.raises(exception.Invalid):
        nuc.NodeUpdate.from_primitive(data)


def test_leaving_maintenance_clears_its_reason_and_fault_but_sets_neither():
    data = {'instance_uuid': None, 'maintenance': False, 'maintenance_reason': None,
            'fault': None}
    wc.update_node('n1', data, 0)
    assert nuc.NodeUpdate.from_primitive(data).to_primitive() == data
    for field in ('maintenance_reason', 'fault'):
        forged = dict(data, **{field: 'power failure'})
        with pytest.raises(exception.Invalid, match='may only clear %s' % field):
            wc.update_node('n1', forged, 0)
        with pytest.raises(exception.Invalid, match='may only clear %s' % field):
            nuc.NodeUpdate.from_primitive(forged)


def test_provider_inventories_keep_what_the_client_wrote():
    data = {'inventories': {'VCPU': {'total': 8, 'allocation_ratio': 2}},
            'resource_provider_generation': 4}
    entry = ic.ProviderInventories.from_primitive(data)
    assert entry.generation == 4 and not entry.generation_first
    assert entry.inventories['VCPU'] == ic.InventoryRecord(
        ('total', 'allocation_ratio'), total=8, allocation_ratio=2)
    assert list(entry.to_primitive().items()) == list(data.items())
    assert ic.to_primitives(ic.from_primitives({'rp': data})) == {'rp': data}


@pytest.mark.parametrize('data', [
    {'resource_provider_generation': 1},
    {'inventories': {}},
    {'resource_provider_generation': 1, 'inventories': {'VCPU': {'capacity': 3}}},
    {'resource_provider_generation': 1, 'inventories': ['VCPU']},
    'rp'])
def test_provider_inventories_refuse_what_is_not_one(data):
    with pytest.raises(exception.Invalid):
        ic.from_primitives({'rp': data})
