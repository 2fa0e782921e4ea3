"""Pure rules turning one legacy compute node row into a provider and its inventories.

Nothing here touches the database: :func:`plan` takes a :class:`LegacyNode`
and :class:`Rules` and returns a :class:`ProviderPlan` (provider name, uuid,
inventory records keyed by resource class, aggregates to join), or raises
:class:`BadComputeNode` naming the row and what is wrong with it.

Conventions (Nova's, where Nova had one):

* an allocation ratio of NULL or 0.0 is "not set" and comes from the
  ``[DEFAULT] <x>_allocation_ratio`` option; a negative ratio is an error;
* a legacy ``*_used`` value may exceed the physical total when the node is
  over-committed, so "used > total" means used above the capacity
  (total x allocation ratio);
* a class with a total of 0 gets no inventory (Placement needs total >= 1);
* a node whose disk is shared storage (``[compute_migration]
  shared_storage_hosts``) gets no DISK_GB; it joins the sharing provider's
  aggregate (``shared_storage_aggregate``) instead.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import re
from typing import Any

import os_resource_classes as orc
from oslo_config import cfg
from oslo_utils import uuidutils

from objects.legacy import numa_rules
from objects.legacy import rule_helpers as rh

MAX_INT = 2147483647
NAME_MAX = 200

# what a PCI pool's dev_type becomes when it names no resource_class tag
# (a physical function: Rules.pf_resource_class)
PCI_DEV_TYPES = {'type-VF': orc.SRIOV_NET_VF, 'type-PCI': orc.PCI_DEVICE,
                 'vdpa': orc.PCI_DEVICE}
PF_DEV_TYPE = 'type-PF'
# the seed's PF class; not in os-resource-classes, so Placement needs CUSTOM_
SRIOV_NET_PF = 'CUSTOM_SRIOV_NET_PF'


BadComputeNode = rh.BadComputeNode
record = rh.record


@dataclasses.dataclass
class LegacyNode:
    """The capacity columns of one ``compute_nodes`` row."""
    id: int
    uuid: str | None = None
    host: str | None = None
    hypervisor_hostname: str | None = None
    vcpus: int = 0
    memory_mb: int = 0
    local_gb: int = 0
    vcpus_used: int = 0
    memory_mb_used: int = 0
    local_gb_used: int = 0
    cpu_allocation_ratio: float | None = None
    ram_allocation_ratio: float | None = None
    disk_allocation_ratio: float | None = None
    disk_available_least: int | None = None
    pci_stats: str | None = None
    numa_topology: str | None = None

    @classmethod
    def from_row(cls, row: Any) -> LegacyNode:
        """From any row/mapping having the compute_nodes column names."""
        m = row._mapping if hasattr(row, '_mapping') else row
        return cls(**{f.name: m.get(f.name) for f in dataclasses.fields(cls)})


@dataclasses.dataclass(frozen=True)
class Rules:
    """The configuration the rules depend on (see common/conf/compute.py)."""
    cpu_allocation_ratio: float = 16.0
    ram_allocation_ratio: float = 1.5
    disk_allocation_ratio: float = 1.0
    shared_storage_hosts: tuple = ()
    shared_storage_aggregate: str | None = None
    pci_max_unit: tuple = ()   # ((resource class, max_unit), ...)
    numa_model: str = numa_rules.SEED
    pf_resource_class: str = SRIOV_NET_PF

    @classmethod
    def from_conf(cls, conf: cfg.ConfigOpts) -> Rules:
        """Rules from a ConfigOpts; ValueError for a configuration that cannot work."""
        mig = conf.compute_migration
        rules = cls(conf.cpu_allocation_ratio, conf.ram_allocation_ratio,
                    conf.disk_allocation_ratio, tuple(mig.shared_storage_hosts),
                    mig.shared_storage_aggregate,
                    tuple(sorted((normalize_class(k), int(v))
                                 for k, v in mig.pci_max_unit.items())),
                    mig.numa_model, normalize_class(mig.pf_resource_class))
        rules.check()
        return rules

    def check(self) -> None:
        for name in ('cpu_allocation_ratio', 'ram_allocation_ratio',
                     'disk_allocation_ratio'):
            if getattr(self, name) <= 0:
                raise ValueError('[DEFAULT] %s must be > 0' % name)
        if self.shared_storage_hosts and not uuidutils.is_uuid_like(
                self.shared_storage_aggregate):
            raise ValueError('[compute_migration] shared_storage_aggregate must be '
                             'an aggregate UUID when shared_storage_hosts is set')
        for rc, value in self.pci_max_unit:
            if value < 1:
                raise ValueError('[compute_migration] pci_max_unit of %s must be >= 1'
                                 % rc)
        if self.numa_model not in numa_rules.MODELS:
            raise ValueError('[compute_migration] numa_model must be one of %s'
                             % ', '.join(numa_rules.MODELS))


@dataclasses.dataclass
class ProviderPlan:
    """What one legacy row becomes."""
    uuid: str
    name: str
    inventories: dict        # resource class -> inventory record (six fields)
    aggregates: list


def normalize_class(name: str) -> str:
    """A standard class name as is, anything else as a valid CUSTOM_ name."""
    name = str(name).strip().upper()
    if name in orc.STANDARDS or name.startswith(orc.CUSTOM_NAMESPACE):
        body = name
    else:
        body = orc.CUSTOM_NAMESPACE + name
    return re.sub(r'[^A-Z0-9_]', '_', body)[:255]


def is_shared_storage(node: LegacyNode, rules: Rules) -> bool:
    """True when the node's host or hypervisor_hostname matches shared_storage_hosts."""
    names = [n for n in (node.host, node.hypervisor_hostname) if n]
    return any(fnmatch.fnmatchcase(n, pat)
               for pat in rules.shared_storage_hosts for n in names)


def ratio(node: LegacyNode, field: str, default: float) -> float:
    """The row's ratio, the configured one when NULL/0.0; BadComputeNode when < 0."""
    value = getattr(node, field)
    if value is None or value == 0:
        return float(default)
    if value < 0:
        raise BadComputeNode(node.id, '%s is %s, must be > 0' % (field, value))
    return float(value)


def _count(node, field):
    value = getattr(node, field)
    value = 0 if value is None else value
    if not isinstance(value, int) or isinstance(value, bool):
        raise BadComputeNode(node.id, '%s is not an integer: %r' % (field, value))
    if value < 0:
        raise BadComputeNode(node.id, '%s is negative (%d)' % (field, value))
    if value > MAX_INT:
        raise BadComputeNode(node.id, '%s is too large (%d)' % (field, value))
    return value


def _check_used(node, total_field, used_field, alloc_ratio):
    total, used = _count(node, total_field), _count(node, used_field)
    if used > total * alloc_ratio:
        raise BadComputeNode(
            node.id, '%s (%d) is more than %s (%d) x allocation ratio %g'
            % (used_field, used, total_field, total, alloc_ratio))
    return total


def vcpu(node: LegacyNode, rules: Rules) -> dict[str, dict[str, int | float]]:
    """{VCPU: total=vcpus, max_unit=vcpus, ratio=cpu_allocation_ratio} (nothing for 0)."""
    r = ratio(node, 'cpu_allocation_ratio', rules.cpu_allocation_ratio)
    total = _check_used(node, 'vcpus', 'vcpus_used', r)
    return {orc.VCPU: record(total, allocation_ratio=r)} if total else {}


def memory(node: LegacyNode, rules: Rules) -> dict[str, dict[str, int | float]]:
    """{MEMORY_MB: total=memory_mb, max_unit=memory_mb, ratio=ram_allocation_ratio}."""
    r = ratio(node, 'ram_allocation_ratio', rules.ram_allocation_ratio)
    total = _check_used(node, 'memory_mb', 'memory_mb_used', r)
    return {orc.MEMORY_MB: record(total, allocation_ratio=r)} if total else {}


def disk(node: LegacyNode, rules: Rules) -> dict[str, dict[str, int | float]]:
    """{DISK_GB: total=local_gb, max_unit from disk_available_least} unless shared.

    disk_available_least is the largest disk an instance can still get; it is
    capped at local_gb, and a value below 1 (over-committed disk) gives 1.
    """
    r = ratio(node, 'disk_allocation_ratio', rules.disk_allocation_ratio)
    total = _check_used(node, 'local_gb', 'local_gb_used', r)
    if not total or is_shared_storage(node, rules):
        return {}
    least = node.disk_available_least
    max_unit = total if least is None else max(1, min(int(least), total))
    return {orc.DISK_GB: record(total, max_unit=max_unit, allocation_ratio=r)}


def _pci_pools(node):
    data = rh.unwrap(rh.load_json(node, 'pci_stats'))
    if data is None:
        return []
    if isinstance(data, dict):
        data = data.get('objects', [])
    if not isinstance(data, list):
        raise BadComputeNode(node.id, 'pci_stats is not a list of device pools')
    pools = [rh.unwrap(p) for p in data]
    if not all(isinstance(p, dict) for p in pools):
        raise BadComputeNode(node.id, 'pci_stats has a pool that is not an object')
    return pools


def _pci_class(node, pool, pf_class):
    tags = pool.get('tags') or {}
    if not isinstance(tags, dict):
        raise BadComputeNode(node.id, 'pci_stats pool tags are not an object')
    explicit = tags.get('resource_class') or pool.get('resource_class')
    if explicit:
        return normalize_class(explicit)
    dev_type = tags.get('dev_type') or pool.get('dev_type') or 'type-PCI'
    if dev_type == PF_DEV_TYPE:
        return pf_class
    if dev_type in PCI_DEV_TYPES:
        return PCI_DEV_TYPES[dev_type]
    raise BadComputeNode(node.id, 'pci_stats pool has unknown dev_type %r' % dev_type)


def pci(node: LegacyNode, rules: Rules) -> dict[str, dict[str, int | float]]:
    """One inventory per PCI class: total = devices in its pools, max_unit as configured."""
    totals: dict[str, int] = {}
    for pool in _pci_pools(node):
        count = pool.get('count', 0)
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise BadComputeNode(node.id, 'pci_stats pool count %r is not a count '
                                          'of devices' % (count,))
        rc = _pci_class(node, pool, rules.pf_resource_class)
        totals[rc] = totals.get(rc, 0) + count
    limits = dict(rules.pci_max_unit)
    return {rc: record(total, max_unit=min(limits.get(rc, total), total))
            for rc, total in sorted(totals.items()) if total}


def numa(node: LegacyNode, rules: Rules) -> dict[str, dict[str, int | float]]:
    """NUMA inventories in the configured model (objects.legacy.numa_rules)."""
    return numa_rules.numa(node, rules.numa_model)


page_class = numa_rules.page_class


RULES = (vcpu, memory, disk, pci, numa)

# classes a legacy row governs even when its plan has none of them (a node
# whose PCI pool went away loses that inventory on the next update)
# (either NUMA model's classes too: switching [compute_migration] numa_model
# replaces one model's inventory by the other's on the next write)
LEGACY_CLASSES = frozenset({orc.VCPU, orc.MEMORY_MB, orc.DISK_GB, orc.PCPU,
                            orc.SRIOV_NET_VF, orc.PCI_DEVICE, SRIOV_NET_PF}
                           | numa_rules.SEED_CLASSES)


def is_governed(rc: str) -> bool:
    """Whether a legacy row governs class ``rc`` whatever its plan says."""
    return rc in LEGACY_CLASSES or numa_rules.is_numa_class(rc)
# stands in for the uuid a not yet migrated row will get, to validate it
PLACEHOLDER_UUID = '00000000-0000-4000-8000-000000000000'


def _name(node):
    name = node.hypervisor_hostname
    if not name or not str(name).strip():
        raise BadComputeNode(node.id, 'hypervisor_hostname is empty')
    if len(name) > NAME_MAX:
        raise BadComputeNode(node.id, 'hypervisor_hostname is longer than %d '
                                      'characters' % NAME_MAX)
    return name


def plan(node: LegacyNode, rules: Rules, uuid: str | None = None) -> ProviderPlan:
    """The ProviderPlan of ``node``; BadComputeNode when the row is impossible.

    ``uuid`` is used when the row has none yet (the migration gives it one).
    """
    node_uuid = node.uuid or uuid
    if node_uuid is None or not uuidutils.is_uuid_like(node_uuid):
        raise BadComputeNode(node.id, 'uuid %r is not a UUID' % (node_uuid,))
    name = _name(node)
    inventories = {}
    for rule in RULES:
        inventories.update(rule(node, rules))
    aggregates = []
    if is_shared_storage(node, rules):
        aggregates.append(rules.shared_storage_aggregate)
    return ProviderPlan(node_uuid, name, inventories, aggregates)


def managed_classes(node: LegacyNode, rules: Rules) -> set[str]:
    """The classes a (valid) row governs; other inventory of the provider is left alone."""
    try:
        return set(plan(node, rules, uuid=node.uuid or PLACEHOLDER_UUID)
                   .inventories) | LEGACY_CLASSES
    except BadComputeNode:
        return set(LEGACY_CLASSES)
