"""The provider trees of Placement's gabbi fixtures, one function per fixture.

Each ``f(seeder, env)`` makes, through a :class:`tests.compat.gabbi_fixtures.Seeder`,
the providers, inventories, traits, aggregates and allocations of the
upstream fixture of that name (amounts, names and shapes as upstream's
``placement/tests/functional/fixtures/gabbits.py`` has them) and returns
the ``$ENVIRON`` values that fixture exports.  ``env`` holds the APIFixture
values already made for the file.
"""

import uuid as uuidlib


def _uuid():
    return str(uuidlib.uuid4())


def allocations(s, env):
    """One provider (VCPU 10, DISK_GB 2048), three consumers of two users."""
    out = {'ALT_USER_ID': _uuid()}
    project, user, alt_user = env['PROJECT_ID'], env['USER_ID'], out['ALT_USER_ID']
    rp = s.provider(env['RP_NAME'], uuid=env['RP_UUID'])
    s.inventory(rp, 'DISK_GB', 2048, step_size=10, min_unit=10, max_unit=1000)
    s.inventory(rp, 'VCPU', 10, max_unit=10)
    out['CONSUMER_0'] = s.allocate(rp, _uuid(), user, project, {'DISK_GB': 1000})
    out['CONSUMER_ID'] = s.allocate(rp, _uuid(), user, project, {'VCPU': 6})
    out['ALT_CONSUMER_ID'] = s.allocate(rp, _uuid(), alt_user, project,
                                        {'DISK_GB': 20, 'VCPU': 1})
    out['ALT_RP_UUID'] = _uuid()
    out['ALT_RP_NAME'] = _uuid()
    return out


def shared_storage(s, env):
    """Two computes (one with disk), two sharing disks, NUMA nodes with a PF each."""
    agg = _uuid()
    cn1, cn2 = s.provider('cn1', agg), s.provider('cn2', agg)
    ss, ss2 = s.provider('ss', agg), s.provider('ss2', agg)
    numa = {}
    for c, cn in ((1, cn1), (2, cn2)):
        for n in (1, 2):
            numa['%d_%d' % (c, n)] = s.provider('numa%d_%d' % (c, n), parent=cn)
    pf = {key: s.provider('pf' + key, parent=parent) for key, parent in numa.items()}
    out = {'AGG_UUID': agg, 'CN1_UUID': cn1, 'CN2_UUID': cn2, 'SS_UUID': ss, 'SS2_UUID': ss2}
    out.update({'NUMA%s_UUID' % k: v for k, v in numa.items()})
    out.update({'PF%s_UUID' % k: v for k, v in pf.items()})
    for cn in (cn1, cn2):
        s.inventory(cn, 'VCPU', 24, allocation_ratio=16.0)
        s.inventory(cn, 'MEMORY_MB', 128 * 1024, allocation_ratio=1.5)
    s.set_traits(cn1, 'HW_CPU_X86_SSE', 'HW_CPU_X86_SSE2')
    s.inventory(cn2, 'DISK_GB', 2000, reserved=100, allocation_ratio=1.0)
    for shared in (ss, ss2):
        s.inventory(shared, 'DISK_GB', 2000, reserved=100, allocation_ratio=1.0)
        s.set_traits(shared, 'MISC_SHARES_VIA_AGGREGATE')
    for key in ('1_1', '1_2', '2_1', '2_2'):
        s.inventory(pf[key], 'SRIOV_NET_VF', 8, allocation_ratio=1.0)
    return out


def numa_aggregates(s, env):
    """Two resourceless computes whose NUMA nodes hold VCPU; sharing disks by aggregates."""
    agg_a, agg_b, agg_c = _uuid(), _uuid(), _uuid()
    cn1 = s.provider('cn1', agg_a)
    cn2 = s.provider('cn2', agg_a, agg_b)
    ss1, ss2 = s.provider('ss1', agg_a), s.provider('ss2', agg_c)
    numa = {'1_1': s.provider('numa1_1', agg_c, parent=cn1),
            '1_2': s.provider('numa1_2', parent=cn1),
            '2_1': s.provider('numa2_1', parent=cn2),
            '2_2': s.provider('numa2_2', parent=cn2)}
    out = {'AGGA_UUID': agg_a, 'AGGB_UUID': agg_b, 'AGGC_UUID': agg_c,
           'CN1_UUID': cn1, 'CN2_UUID': cn2, 'SS1_UUID': ss1, 'SS2_UUID': ss2}
    out.update({'NUMA%s_UUID' % k: v for k, v in numa.items()})
    for rp in numa.values():
        s.inventory(rp, 'VCPU', 24, allocation_ratio=16.0)
    for ss in (ss1, ss2):
        s.inventory(ss, 'DISK_GB', 2000, reserved=100, allocation_ratio=1.0)
        s.set_traits(ss, 'MISC_SHARES_VIA_AGGREGATE')
    return out


def numa_network(s, env, cn1=None, cn2=None):
    """NUMA nodes with devices and network agents under cn1; NICs with PFs under cn2."""
    out = {}
    agg_a = out['AGGA_UUID'] = _uuid()
    ss1 = out['SS1_UUID'] = s.provider('ss1', agg_a)
    s.set_traits(ss1, 'MISC_SHARES_VIA_AGGREGATE')
    s.inventory(ss1, 'DISK_GB', 2000)
    cn1 = cn1 or s.provider('cn1', agg_a)
    s.aggregates(cn1, agg_a)
    s.set_traits(cn1, 'COMPUTE_VOLUME_MULTI_ATTACH')
    out['CN1_UUID'] = cn1
    numas = []
    for i in (0, 1):
        numa = s.provider('numa%d' % i, parent=cn1)
        s.set_traits(numa, *(['HW_NUMA_ROOT'] + (['CUSTOM_FOO'] if i else [])))
        s.inventory(numa, 'VCPU', 4)
        numas.append(numa)
        out['NUMA%d_UUID' % i] = numa
    s.inventory(numas[0], 'MEMORY_MB', 2048, min_unit=512, step_size=256)
    s.inventory(numas[1], 'MEMORY_MB', 2048, min_unit=256, max_unit=1024)
    user, project = 'numafx-user', 'numafx-project'
    s.allocate(numas[0], _uuid(), user, project, {'VCPU': 2})
    fpga = out['FPGA0_UUID'] = s.provider('fpga0', parent=numas[0])
    s.inventory(fpga, 'FPGA', 1)
    pgpu = out['PGPU0_UUID'] = s.provider('pgpu0', parent=numas[0])
    s.inventory(pgpu, 'VGPU', 8)
    for i in (0, 1):
        fpga = out['FPGA1_%d_UUID' % i] = s.provider('fpga1_%d' % i, parent=numas[1])
        s.inventory(fpga, 'FPGA', 1)
    agent = out['SRIOV_AGENT_UUID'] = s.provider('sriov_agent', parent=cn1)
    s.set_traits(agent, 'CUSTOM_VNIC_TYPE_DIRECT')
    for i in (1, 2):
        dev = out['ESN%d_UUID' % i] = s.provider('esn%d' % i, parent=agent)
        s.set_traits(dev, 'CUSTOM_PHYSNET%d' % i)
        s.inventory(dev, 'NET_BW_EGR_KILOBIT_PER_SEC', 10000 * i)
    agent = out['OVS_AGENT_UUID'] = s.provider('ovs_agent', parent=cn1)
    s.set_traits(agent, 'CUSTOM_VNIC_TYPE_NORMAL')
    dev = out['BR_INT_UUID'] = s.provider('br_int', parent=agent)
    s.set_traits(dev, 'CUSTOM_PHYSNET0')
    s.inventory(dev, 'NET_BW_EGR_KILOBIT_PER_SEC', 1000)
    out.update(_numa_network_cn2(s, cn2 or s.provider('cn2'), agg_a, user, project))
    return out


def _numa_network_cn2(s, cn2, agg_a, user, project):
    out = {'CN2_UUID': cn2}
    s.aggregates(cn2, agg_a)
    s.inventory(cn2, 'VCPU', 8)
    s.allocate(cn2, _uuid(), user, project, {'VCPU': 3})
    s.inventory(cn2, 'MEMORY_MB', 2048, min_unit=1024, step_size=128)
    s.inventory(cn2, 'DISK_GB', 1000)
    s.set_traits(cn2, 'CUSTOM_FOO')
    nics = []
    for i in (1, 2, 3):
        nic = out['NIC%d_UUID' % i] = s.provider('nic%d' % i, parent=cn2)
        s.set_traits(nic, 'CUSTOM_HW_NIC_ROOT')
        nics.append(nic)
    # (suffix, nic, physnet, VFs)
    pfs = [('1_1', 0, 1, 4), ('1_2', 0, 2, 4),
           ('2_1', 1, 1, 2), ('2_2', 1, 2, 2), ('2_3', 1, 1, 2), ('2_4', 1, 2, 2),
           ('3_1', 2, 1, 8)]
    for suffix, nic, physnet, vfs in pfs:
        pf = out['PF%s_UUID' % suffix] = s.provider('pf' + suffix, parent=nics[nic])
        s.set_traits(pf, 'CUSTOM_PHYSNET%d' % physnet)
        s.inventory(pf, 'CUSTOM_VF', vfs)
    return out


def deep_numa_network(s, env):
    """numa_network with cn1 and cn2 under two parents of one grandparent."""
    gp1 = s.provider('gp1')
    p1, p2 = s.provider('p1', parent=gp1), s.provider('p2', parent=gp1)
    cn1, cn2 = s.provider('cn1', parent=p1), s.provider('cn2', parent=p2)
    return numa_network(s, env, cn1=cn1, cn2=cn2)


def non_shared_storage(s, env):
    """Three computes with VCPU, MEMORY_MB and DISK_GB of their own."""
    out = {'AGGA_UUID': _uuid(), 'AGGB_UUID': _uuid(), 'AGGC_UUID': _uuid()}
    cns = [s.provider('cn%d' % i) for i in (1, 2, 3)]
    for i, cn in enumerate(cns, 1):
        out['CN%d_UUID' % i] = cn
    for cn in cns:
        s.inventory(cn, 'VCPU', 24)
        s.inventory(cn, 'MEMORY_MB', 128 * 1024)
        s.inventory(cn, 'DISK_GB', 2000)
    return out


def granular(s, env):
    """Three computes and three sharing providers over aggregates A, B and C."""
    s.resource_class('CUSTOM_NET_MBPS')
    agg_a, agg_b, agg_c = _uuid(), _uuid(), _uuid()
    out = {'AGGA': agg_a, 'AGGB': agg_b, 'AGGC': agg_c}
    left = out['CN_LEFT'] = s.provider('cn_left', agg_a)
    for rc, total in (('VCPU', 8), ('MEMORY_MB', 4096), ('DISK_GB', 500), ('VGPU', 8),
                      ('SRIOV_NET_VF', 8), ('CUSTOM_NET_MBPS', 4000)):
        s.inventory(left, rc, total)
    s.set_traits(left, 'HW_CPU_X86_AVX', 'HW_CPU_X86_AVX2', 'HW_GPU_API_DXVA',
                 'HW_NIC_DCB_PFC', 'CUSTOM_FOO')
    middle = out['CN_MIDDLE'] = s.provider('cn_middle', agg_a, agg_b)
    for rc, total in (('VCPU', 8), ('MEMORY_MB', 4096), ('SRIOV_NET_VF', 8),
                      ('CUSTOM_NET_MBPS', 4000)):
        s.inventory(middle, rc, total)
    s.set_traits(middle, 'HW_CPU_X86_AVX', 'HW_CPU_X86_AVX2', 'HW_CPU_X86_SSE',
                 'HW_NIC_ACCEL_TLS')
    right = out['CN_RIGHT'] = s.provider('cn_right', agg_b, agg_c)
    for rc, total in (('VCPU', 8), ('MEMORY_MB', 4096), ('DISK_GB', 500)):
        s.inventory(right, rc, total)
    s.inventory(right, 'VGPU', 8, max_unit=2)
    s.set_traits(right, 'HW_CPU_X86_MMX', 'HW_GPU_API_DXVA', 'CUSTOM_DISK_SSD')
    disk1 = out['SHR_DISK_1'] = s.provider('shr_disk_1', agg_a)
    s.inventory(disk1, 'DISK_GB', 1000)
    s.set_traits(disk1, 'MISC_SHARES_VIA_AGGREGATE', 'CUSTOM_DISK_SSD')
    disk2 = out['SHR_DISK_2'] = s.provider('shr_disk_2', agg_a, agg_b)
    s.inventory(disk2, 'DISK_GB', 1000)
    s.set_traits(disk2, 'MISC_SHARES_VIA_AGGREGATE')
    net = out['SHR_NET'] = s.provider('shr_net', agg_c)
    s.inventory(net, 'SRIOV_NET_VF', 16)
    s.inventory(net, 'CUSTOM_NET_MBPS', 40000)
    s.set_traits(net, 'MISC_SHARES_VIA_AGGREGATE')
    return out


VNIC_DIRECT = ('CUSTOM_VNIC_TYPE_DIRECT', 'CUSTOM_VNIC_TYPE_DIRECT_PHYSICAL',
               'CUSTOM_VNIC_TYPE_MACVTAP')


def _bandwidth(s, rp, kbps):
    s.inventory(rp, 'NET_BW_EGR_KILOBIT_PER_SEC', kbps)
    s.inventory(rp, 'NET_BW_IGR_KILOBIT_PER_SEC', kbps)


def neutron_qos_multisegment(s, env):
    """Four computes with an OVS and an SR-IOV agent subtree on multi-segment physnets.

    compute0 reaches CUSTOM_PHYSNET_OTHER, compute1 MSN_S1, compute2 MSN_S2;
    compute3 reaches both segments twice over, with little bandwidth.
    """
    out = {}
    plan = [('compute0', ['OTHER'], 5000, 10000), ('compute1', ['MSN_S1'], 5000, 10000),
            ('compute2', ['MSN_S2'], 5000, 10000), ('compute3', ['MSN_S1', 'MSN_S2'], 1000, 1000)]
    for name, physnets, ovs_kbps, sriov_kbps in plan:
        cn = out[name] = s.provider(name)
        for rc, total in (('VCPU', 8), ('MEMORY_MB', 4096), ('DISK_GB', 500)):
            s.inventory(cn, rc, total)
        ovs = out[name + ':ovs_agent'] = s.provider(name + ':Open vSwitch agent', parent=cn)
        s.inventory(ovs, 'NET_PACKET_RATE_KILOPACKET_PER_SEC', 1000)
        s.set_traits(ovs, 'CUSTOM_VNIC_TYPE_NORMAL')
        for i, physnet in enumerate(physnets):
            bridge = 'br-ex' + ('%d' % (i + 1) if i else '')
            br = out['%s:%s' % (name, bridge.replace('-', '_'))] = s.provider(
                '%s:Open vSwitch agent:%s' % (name, bridge), parent=ovs)
            _bandwidth(s, br, ovs_kbps)
            s.set_traits(br, 'CUSTOM_VNIC_TYPE_NORMAL', 'CUSTOM_PHYSNET_' + physnet)
        agent = s.provider(name + ':NIC Switch agent', parent=cn)
        # upstream exports compute2's agent under compute3's name as well
        out[name + ':sriov_agent'] = out.get('compute2:sriov_agent', agent)
        s.set_traits(agent, *VNIC_DIRECT)
        for i, physnet in enumerate(physnets):
            pf = out['%s:pf%d' % (name, i)] = s.provider(
                '%s:NIC Switch agent:enp129s0f%d' % (name, i), parent=agent)
            _bandwidth(s, pf, sriov_kbps)
            s.set_traits(pf, *(VNIC_DIRECT + ('CUSTOM_PHYSNET_' + physnet,)))
    return out
