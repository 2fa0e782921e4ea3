"""Options for adopting legacy ``compute_nodes`` capacity.

``[DEFAULT]`` allocation ratios and the ``[compute_migration]`` group.
"""

from oslo_config import cfg

from common.conf import group

GROUP_NAME = 'compute_migration'


ratio_opts = [
    cfg.FloatOpt('cpu_allocation_ratio', default=16.0,
                 help='Allocation ratio of VCPU inventory for compute nodes whose '
                      'cpu_allocation_ratio is empty (NULL or 0.0). Must be > 0.'),
    cfg.FloatOpt('ram_allocation_ratio', default=1.5,
                 help='Allocation ratio of MEMORY_MB inventory for compute nodes '
                      'whose ram_allocation_ratio is empty (NULL or 0.0). Must be > 0.'),
    cfg.FloatOpt('disk_allocation_ratio', default=1.0,
                 help='Allocation ratio of DISK_GB inventory for compute nodes '
                      'whose disk_allocation_ratio is empty (NULL or 0.0). Must be > 0.'),
]

opts = [
    cfg.IntOpt('batch_size', default=50, min=1,
               help='Rows migrated per transaction by "berth-manage db '
                    'online_data_migrations" and "berth-manage import compute-nodes".'),
    cfg.ListOpt('shared_storage_hosts', default=[],
                help='Shell-style patterns (fnmatch) of compute node host or '
                     'hypervisor_hostname values whose local_gb is shared storage '
                     '(for example a Ceph pool every node reports). Such a node '
                     'gets no DISK_GB inventory of its own; its provider joins '
                     'shared_storage_aggregate instead, where the sharing provider '
                     '(trait MISC_SHARES_VIA_AGGREGATE, with DISK_GB inventory) '
                     'lives. The legacy schema does not record shared storage, so '
                     'it has to be named here.'),
    cfg.StrOpt('shared_storage_aggregate', default=None,
               help='UUID of the placement aggregate of the sharing storage '
                    'provider. Required when shared_storage_hosts is set.'),
    cfg.DictOpt('pci_max_unit', default={},
                help='Largest number of units of a PCI resource class one consumer '
                     'may take, per class, e.g. "SRIOV_NET_VF:8,PCI_DEVICE:1". A class '
                     'not listed gets max_unit = its total.'),
    cfg.StrOpt('numa_model', default='seed', choices=[
        ('seed', 'one inventory per NUMA class on the compute node provider: '
                 'NUMA_SOCKET, NUMA_CORE, NUMA_THREAD, NUMA_MEMORY_MB, total = '
                 'the whole node, max_unit = one NUMA cell\'s share'),
        ('pcpu', 'dedicated CPUs (pcpuset) as PCPU and huge pages as '
                 'CUSTOM_HUGEPAGES_<size>, the model of berth before 2026.2')],
               help='How a compute node\'s numa_topology becomes inventory. '
                    'Changing it replaces one model\'s inventory by the other\'s '
                    'on the next capacity write of each node (refused while '
                    'allocations use the classes that go away).'),
    cfg.StrOpt('pf_resource_class', default='CUSTOM_SRIOV_NET_PF',
               help='Resource class of SR-IOV physical functions (PCI pools of '
                    'dev_type type-PF without a resource_class tag). The seed\'s '
                    'SRIOV_NET_PF is not an os-resource-classes standard class, '
                    'so Placement needs the ``CUSTOM_`` prefix; PCI_DEVICE gives the '
                    'mapping of berth before 2026.2. Type-PCI devices are '
                    'PCI_DEVICE and VFs SRIOV_NET_VF; see pci_max_unit.'),
]


GROUP = group.OptionGroup(
    GROUP_NAME, 'Legacy compute node migration', opts,
    help='How rows of a legacy (Nova-style) compute_nodes table '
         'become resource providers and inventories.',
    default_opts=ratio_opts)
register_opts = GROUP.register
list_opts = GROUP.list_opts
