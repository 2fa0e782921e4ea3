"""bench/limited_tail: the region's limited queries parsed as the API does, the tail split."""

import os

from bench import limited_tail, region, serve_process


def test_request_of_granular_query():
    request = limited_tail.request_of(region.query('granular limit=50', 3001))
    groups = {g.suffix: g for g in request.groups}
    assert set(groups) == {'_NUMA', '_NIC', '_ROOT'}
    assert groups['_NUMA'].resources == {'VCPU': 1, 'MEMORY_MB': 257}
    assert groups['_NIC'].resources == {'NET_BW_EGR_KILOBIT_PER_SEC': 1001}
    assert groups['_ROOT'].resources == {}
    assert groups['_ROOT'].required == [{'HW_CPU_X86_AVX2'}]
    assert request.same_subtree == [['_NUMA', '_NIC', '_ROOT']]
    assert request.group_policy == 'none'
    assert request.limit == 50


def test_request_of_unsuffixed_query():
    request = limited_tail.request_of(region.query('limit=50', 7001))
    (group,) = request.groups
    assert group.suffix == ''
    assert group.resources == {'VCPU': 1, 'MEMORY_MB': 257, 'DISK_GB': 11}
    assert request.limit == 50


def _row(wall, req_cpu=1.0, req_wait=0.0, srv_wait=0.0, other_cpu=0.0, client_wait=0.0):
    return {'wall': wall, 'req_cpu': req_cpu, 'req_wait': req_wait, 'srv_wait': srv_wait,
            'other_cpu': other_cpu, 'client_wait': client_wait, 'slices': 1}


def test_attribute_splits_the_slowest_requests_excess():
    rows = [_row(1.0) for _ in range(39)]
    rows.append(_row(6.0, req_cpu=2.0, req_wait=3.0, srv_wait=3.5, client_wait=0.5))
    found = limited_tail.attribute(rows)
    assert found['requests'] == 2
    # the slowest two: 6.0 and a 1.0 (the median): 5 ms over it
    assert found['excess_ms'] == 5.0
    parts = found['parts_ms']
    assert parts['request_thread_runqueue_wait'] == 3.0
    assert parts['other_server_threads_runqueue_wait'] == 0.5
    assert parts['request_thread_extra_cpu'] == 1.0
    assert parts['client_runqueue_wait'] == 0.5
    assert parts['rest'] == 0.0
    assert round(sum(parts.values()), 1) == 5.0


def test_region_runqueue_wait_of_a_process():
    assert serve_process.runqueue_ns(os.getpid()) >= 0
    assert serve_process.runqueue_ns(2 ** 22 + 1) == 0      # no such process
