"""The pure rules turning a legacy compute node row into inventories, one rule at a time."""

import json

import pytest

from objects.legacy import inventory_rules as li
from tests import fixtures

UUID = '8f1b1c2a-1111-4222-8333-444455556666'
AGG = 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee'
RULES = li.Rules()
PCPU_RULES = li.Rules(numa_model='pcpu', pf_resource_class='PCI_DEVICE')


def node(**kw):
    values = dict(id=7, uuid=UUID, host='cmp1', hypervisor_hostname='cmp1.example',
                  vcpus=16, memory_mb=65536, local_gb=500)
    values.update(kw)
    return li.LegacyNode(**values)


def bad(rule, n, rules=RULES):
    with pytest.raises(li.BadComputeNode) as exc:
        rule(n, rules)
    assert exc.value.node_id == n.id
    return exc.value.reason


def numa_blob(cells):
    return json.dumps({'nova_object.name': 'NUMATopology', 'nova_object.data': {
        'cells': [{'nova_object.name': 'NUMACell', 'nova_object.data': c}
                  for c in cells]}})


def pci_blob(pools):
    return json.dumps({'nova_object.name': 'PciDevicePoolList', 'nova_object.data': {
        'objects': [{'nova_object.data': p} for p in pools]}})


# --- VCPU ---

def test_vcpu_total_max_unit_and_ratio():
    assert li.vcpu(node(cpu_allocation_ratio=4.0), RULES) == {
        'VCPU': {'total': 16, 'reserved': 0, 'min_unit': 1, 'max_unit': 16,
                 'step_size': 1, 'allocation_ratio': 4.0}}


@pytest.mark.parametrize('empty', [None, 0.0])
def test_vcpu_empty_ratio_comes_from_config(empty):
    rules = li.Rules(cpu_allocation_ratio=3.0)
    assert li.vcpu(node(cpu_allocation_ratio=empty), rules)['VCPU'][
        'allocation_ratio'] == 3.0


def test_vcpu_zero_gives_no_inventory():
    assert li.vcpu(node(vcpus=0), RULES) == {}


def test_vcpu_negative_ratio_is_bad():
    assert 'cpu_allocation_ratio' in bad(li.vcpu, node(cpu_allocation_ratio=-1.0))


def test_vcpu_negative_total_is_bad():
    assert bad(li.vcpu, node(vcpus=-2)) == 'vcpus is negative (-2)'


def test_vcpu_used_may_exceed_physical_but_not_capacity():
    assert li.vcpu(node(vcpus=4, vcpus_used=30, cpu_allocation_ratio=8.0), RULES)
    assert 'vcpus_used (33)' in bad(li.vcpu, node(vcpus=4, vcpus_used=33,
                                                  cpu_allocation_ratio=8.0))


def test_total_above_int32_is_bad():
    assert 'too large' in bad(li.vcpu, node(vcpus=2 ** 31))


# --- MEMORY_MB ---

def test_memory_uses_ram_ratio():
    inv = li.memory(node(ram_allocation_ratio=1.0), RULES)['MEMORY_MB']
    assert (inv['total'], inv['max_unit'], inv['allocation_ratio']) == (65536, 65536, 1.0)


def test_memory_default_ratio():
    assert li.memory(node(), RULES)['MEMORY_MB']['allocation_ratio'] == 1.5


def test_memory_used_above_capacity_is_bad():
    assert 'memory_mb_used' in bad(li.memory, node(memory_mb=100, memory_mb_used=151))


# --- DISK_GB ---

def test_disk_max_unit_from_disk_available_least():
    assert li.disk(node(disk_available_least=120), RULES)['DISK_GB']['max_unit'] == 120


def test_disk_without_available_least_is_whole_disk():
    assert li.disk(node(), RULES)['DISK_GB']['max_unit'] == 500


@pytest.mark.parametrize('least,expected', [(900, 500), (0, 1), (-40, 1)])
def test_disk_available_least_is_clamped(least, expected):
    inv = li.disk(node(disk_available_least=least), RULES)['DISK_GB']
    assert inv['max_unit'] == expected


def test_disk_on_shared_storage_has_no_inventory_and_joins_aggregate():
    rules = li.Rules(shared_storage_hosts=('ceph-*',), shared_storage_aggregate=AGG)
    shared = node(host='ceph-12')
    assert li.disk(shared, rules) == {}
    plan = li.plan(shared, rules)
    assert 'DISK_GB' not in plan.inventories and plan.aggregates == [AGG]
    assert li.plan(node(host='local-1'), rules).aggregates == []


def test_shared_storage_matches_hypervisor_hostname_too():
    rules = li.Rules(shared_storage_hosts=('*.ceph',), shared_storage_aggregate=AGG)
    assert li.is_shared_storage(node(hypervisor_hostname='n1.ceph'), rules)


def test_disk_ratio_and_negative_disk():
    assert li.disk(node(disk_allocation_ratio=2.0), RULES)['DISK_GB'][
        'allocation_ratio'] == 2.0
    assert bad(li.disk, node(local_gb=-1)) == 'local_gb is negative (-1)'


# --- PCI ---

def test_pci_vf_pool_with_configured_max_unit():
    rules = li.Rules(pci_max_unit=(('SRIOV_NET_VF', 8),))
    blob = pci_blob([{'vendor_id': '8086', 'product_id': '154d', 'count': 255,
                      'tags': {'dev_type': 'type-VF', 'physical_network': 'p1'}}])
    assert li.pci(node(pci_stats=blob), rules) == {
        'SRIOV_NET_VF': li.record(255, max_unit=8)}


def test_pci_pools_of_one_class_are_summed_max_unit_defaults_to_total():
    blob = pci_blob([{'count': 3, 'tags': {'dev_type': 'type-PCI'}},
                     {'count': 2, 'tags': {'dev_type': 'type-PCI'}},
                     {'count': 0, 'tags': {'dev_type': 'type-VF'}}])
    assert li.pci(node(pci_stats=blob), RULES) == {'PCI_DEVICE': li.record(5)}


def test_pci_devices_by_kind_pf_is_its_own_class():
    blob = pci_blob([{'count': 2, 'tags': {'dev_type': 'type-PF'}},
                     {'count': 3, 'tags': {'dev_type': 'type-PCI'}},
                     {'count': 16, 'tags': {'dev_type': 'type-VF'}}])
    rules = li.Rules(pci_max_unit=(('CUSTOM_SRIOV_NET_PF', 1), ('SRIOV_NET_VF', 4)))
    assert li.pci(node(pci_stats=blob), rules) == {
        'CUSTOM_SRIOV_NET_PF': li.record(2, max_unit=1), 'PCI_DEVICE': li.record(3),
        'SRIOV_NET_VF': li.record(16, max_unit=4)}
    # the model before: a PF is a PCI_DEVICE
    assert li.pci(node(pci_stats=blob), PCPU_RULES) == {'PCI_DEVICE': li.record(5),
                                                         'SRIOV_NET_VF': li.record(16)}


def test_pci_resource_class_tag_and_plain_list_form():
    blob = json.dumps([{'count': 4, 'tags': {'resource_class': 'gpu-a100'}},
                       {'count': 1, 'resource_class': 'PGPU'}])
    assert li.pci(node(pci_stats=blob), RULES) == {
        'CUSTOM_GPU_A100': li.record(4), 'PGPU': li.record(1)}


def test_pci_max_unit_never_above_total():
    rules = li.Rules(pci_max_unit=(('PCI_DEVICE', 16),))
    blob = pci_blob([{'count': 2, 'tags': {'dev_type': 'type-PCI'}}])
    assert li.pci(node(pci_stats=blob), rules)['PCI_DEVICE']['max_unit'] == 2


@pytest.mark.parametrize('blob,reason', [
    ('[{"count": -1}]', 'count -1'),
    ('[{"count": 1, "tags": {"dev_type": "type-XX"}}]', 'unknown dev_type'),
    ('{nope', 'pci_stats is not valid JSON'),
    ('"text"', 'not a list'),
    ('[3]', 'not an object'),
])
def test_pci_bad_blobs(blob, reason):
    assert reason in bad(li.pci, node(pci_stats=blob))


def test_pci_empty_blob():
    assert li.pci(node(pci_stats=''), RULES) == {}
    assert li.pci(node(pci_stats='[]'), RULES) == {}


# --- NUMA ---

def _cell(cid, pcpus, pages):
    return {'id': cid, 'cpuset': [], 'pcpuset': list(range(pcpus)), 'memory': 1024,
            'mempages': [{'nova_object.data': {'size_kb': 4, 'total': 1000,
                                               'used': 0, 'reserved': 0}},
                         {'nova_object.data': {'size_kb': 2048, 'total': pages,
                                               'used': 1, 'reserved': 2}}]}


def test_numa_total_is_sum_and_max_unit_one_cell():
    blob = numa_blob([_cell(0, 4, 512), _cell(1, 6, 256)])
    assert li.numa(node(numa_topology=blob), PCPU_RULES) == {
        'PCPU': li.record(10, max_unit=6),
        'CUSTOM_HUGEPAGES_2M': li.record(768, max_unit=512, reserved=4)}


def test_numa_1g_pages_and_legacy_unwrapped_cells():
    blob = json.dumps({'cells': [{'id': 0, 'mempages': [
        {'size_kb': 1048576, 'total': 8, 'used': 0, 'reserved': 0}]}]})
    assert li.numa(node(numa_topology=blob), PCPU_RULES) == {
        'CUSTOM_HUGEPAGES_1G': li.record(8)}


def test_numa_all_pages_reserved_gives_no_inventory():
    blob = json.dumps({'cells': [{'id': 0, 'mempages': [
        {'size_kb': 2048, 'total': 8, 'used': 0, 'reserved': 8}]}]})
    assert li.numa(node(numa_topology=blob), PCPU_RULES) == {}


@pytest.mark.parametrize('blob,reason', [
    ('{"cells": [', 'numa_topology is not valid JSON'),
    ('{"foo": 1}', 'no list of cells'),
    ('{"cells": [1]}', 'not an object'),
    ('{"cells": [{"pcpuset": 3}]}', 'pcpuset is not a list'),
    ('{"cells": [{"mempages": [{"size_kb": 2048, "total": 2, "used": 3}]}]}',
     'more than total'),
    ('{"cells": [{"mempages": [{"size_kb": -2, "total": 2}]}]}', 'size_kb'),
])
def test_numa_bad_blobs(blob, reason):
    assert reason in bad(li.numa, node(numa_topology=blob), PCPU_RULES)


def _seed_cell(cid, cpus, pcpus, memory, siblings=None, socket=None):
    cell = {'id': cid, 'cpuset': cpus, 'pcpuset': pcpus, 'memory': memory}
    if siblings is not None:
        cell['siblings'] = siblings
    if socket is not None:
        cell['socket'] = socket
    return cell


def test_numa_seed_model_whole_node_totals_one_cell_max_unit():
    blob = numa_blob([
        _seed_cell(0, [0, 1, 2, 3], [4, 5, 6, 7], 4096,
                   siblings=[[0, 4], [1, 5], [2, 6], [3, 7]], socket=0),
        _seed_cell(1, [8, 9], [10, 11, 12, 13], 8192,
                   siblings=[[8, 10], [9, 11]], socket=1)])
    assert li.numa(node(numa_topology=blob), RULES) == {
        'NUMA_SOCKET': li.record(2, max_unit=1),
        # cell 0: 4 sibling pairs; cell 1: 2 pairs + 12 and 13 alone
        'NUMA_CORE': li.record(8, max_unit=4),
        'NUMA_THREAD': li.record(14, max_unit=8),
        'NUMA_MEMORY_MB': li.record(12288, max_unit=8192)}


def test_numa_seed_model_cells_of_one_socket_and_no_siblings():
    blob = numa_blob([_seed_cell(0, [0, 1], [], 1024, socket=0),
                      _seed_cell(1, [2, 3, 4], [], 1024, socket=0)])
    out = li.numa(node(numa_topology=blob), RULES)
    assert out['NUMA_SOCKET'] == li.record(1, max_unit=1)
    assert out['NUMA_CORE'] == li.record(5, max_unit=3)     # one thread per core
    assert out['NUMA_THREAD'] == li.record(5, max_unit=3)


def test_numa_seed_model_legacy_blob_without_socket_counts_cells():
    blob = numa_blob([_cell(0, 4, 512), _cell(1, 6, 256)])
    out = li.numa(node(numa_topology=blob), RULES)
    assert out == {'NUMA_SOCKET': li.record(2, max_unit=1),
                   'NUMA_CORE': li.record(10, max_unit=6),
                   'NUMA_THREAD': li.record(10, max_unit=6),
                   'NUMA_MEMORY_MB': li.record(2048, max_unit=1024)}


@pytest.mark.parametrize('blob,reason', [
    ('{"cells": [{"cpuset": 3}]}', 'cpuset is not a list'),
    ('{"cells": [{"cpuset": [-1]}]}', 'cpu -1'),
    ('{"cells": [{"cpuset": [0], "memory": -5}]}', 'memory -5'),
    ('{"cells": [{"cpuset": [0], "siblings": 4}]}', 'siblings is not a list'),
    ('{"cells": [{"cpuset": [0], "siblings": [4]}]}', 'not a list'),
    ('{"cells": [{"cpuset": [0], "socket": "x"}]}', 'socket'),
])
def test_numa_seed_bad_blobs(blob, reason):
    assert reason in bad(li.numa, node(numa_topology=blob))


def test_rules_numa_model_must_be_known():
    with pytest.raises(ValueError, match='numa_model'):
        li.Rules(numa_model='nope').check()


def test_switching_model_governs_the_other_models_classes():
    assert li.is_governed('PCPU') and li.is_governed('NUMA_CORE')
    assert li.is_governed('CUSTOM_HUGEPAGES_2M') and not li.is_governed('CUSTOM_GPU')


def test_page_class_names():
    assert [li.page_class(s) for s in (2048, 1048576, 64)] == [
        'CUSTOM_HUGEPAGES_2M', 'CUSTOM_HUGEPAGES_1G', 'CUSTOM_HUGEPAGES_64K']


# --- the whole plan ---

def test_plan_uses_hypervisor_hostname_and_given_uuid():
    plan = li.plan(node(uuid=None), RULES, uuid=UUID)
    assert (plan.uuid, plan.name) == (UUID, 'cmp1.example')
    assert sorted(plan.inventories) == ['DISK_GB', 'MEMORY_MB', 'VCPU']


@pytest.mark.parametrize('kw,reason', [
    ({'hypervisor_hostname': None}, 'hypervisor_hostname is empty'),
    ({'hypervisor_hostname': 'x' * 201}, 'longer than 200'),
    ({'uuid': 'not-a-uuid'}, 'is not a UUID'),
    ({'local_gb_used': 501, 'disk_allocation_ratio': 1.0}, 'local_gb_used'),
])
def test_plan_bad_rows(kw, reason):
    assert reason in bad(li.plan, node(**kw))


def test_bad_row_reports_its_id():
    exc = pytest.raises(li.BadComputeNode, li.plan, node(id=42, vcpus=-1), RULES).value
    assert str(exc) == 'compute node 42: vcpus is negative (-1)'


def test_managed_classes_include_the_rows_own():
    blob = pci_blob([{'count': 1, 'tags': {'resource_class': 'FPGA_X'}}])
    assert 'CUSTOM_FPGA_X' in li.managed_classes(node(pci_stats=blob), RULES)
    assert li.managed_classes(node(vcpus=-1), RULES) == set(li.LEGACY_CLASSES)


def test_normalize_class():
    assert li.normalize_class('VGPU') == 'VGPU'
    assert li.normalize_class('custom_x') == 'CUSTOM_X'
    assert li.normalize_class('a.b-c') == 'CUSTOM_A_B_C'


# --- configuration ---

def test_rules_from_conf(tmp_path):
    conf = fixtures.make_conf(tmp_path, cpu_allocation_ratio=2.0,
                              **{'compute_migration.pci_max_unit': {'sriov_net_vf': '4'}})
    rules = li.Rules.from_conf(conf)
    assert rules.cpu_allocation_ratio == 2.0
    assert rules.pci_max_unit == (('SRIOV_NET_VF', 4),)
    assert (rules.numa_model, rules.pf_resource_class) == ('seed', 'CUSTOM_SRIOV_NET_PF')
    conf = fixtures.make_conf(tmp_path, **{'compute_migration.numa_model': 'pcpu',
                                           'compute_migration.pf_resource_class': 'sriov_net_pf'})
    rules = li.Rules.from_conf(conf)
    assert (rules.numa_model, rules.pf_resource_class) == ('pcpu', 'CUSTOM_SRIOV_NET_PF')


@pytest.mark.parametrize('overrides,reason', [
    ({'ram_allocation_ratio': 0.0}, 'ram_allocation_ratio must be > 0'),
    ({'compute_migration.shared_storage_hosts': ['x*']}, 'shared_storage_aggregate'),
    ({'compute_migration.pci_max_unit': {'PCI_DEVICE': '0'}}, 'pci_max_unit'),
])
def test_rules_refuse_unusable_configuration(tmp_path, overrides, reason):
    conf = fixtures.make_conf(tmp_path, **overrides)
    with pytest.raises(ValueError, match=reason):
        li.Rules.from_conf(conf)
