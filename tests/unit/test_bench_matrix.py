"""The matrix bench's helpers: cells, /proc CPU, /metrics RPC counts, per-claim counters."""

import os

import pytest

from bench import claims_matrix, matrix


def test_parse_matrix_cells():
    assert matrix.parse_matrix('1x1, 2X3') == [(1, 1), (2, 3)]


@pytest.mark.parametrize('spec', ['', '1x', 'x3', '0x1', '2x0', '2*3', '1x1,,2x2'])
def test_parse_matrix_refuses(spec):
    with pytest.raises(ValueError):
        matrix.parse_matrix(spec)


def test_stat_cpu_reads_own_and_reaped_ticks():
    tick = os.sysconf('SC_CLK_TCK')
    # a command name with a space and a parenthesis must not shift the fields
    text = '42 (post gres) x) S 1 42 42 0 -1 4194560 10 0 0 0 %d %d %d %d 20 0 1 0' % (
        3 * tick, tick, 2 * tick, tick)
    assert matrix.stat_cpu(text) == (4.0, 3.0)


def test_tree_cpu_counts_this_process():
    assert matrix.tree_cpu(os.getpid()) > 0
    assert matrix.tree_cpu(2 ** 22 + 12345) == 0.0      # gone: nothing


METRICS = '''# HELP berth_rpc_duration_seconds Time of a conductor RPC
# TYPE berth_rpc_duration_seconds histogram
berth_rpc_duration_seconds_bucket{le="0.005",method="claim_resources_many"} 3.0
berth_rpc_duration_seconds_count{method="claim_resources_many"} 40.0
berth_rpc_duration_seconds_count{method="ping"} 2.0
berth_rpc_duration_seconds_sum{method="ping"} 0.01
berth_api_requests_total{api="placement",method="PUT",route="/x",status="204"} 9.0
'''


def test_rpc_counts_from_the_exposition():
    counts = matrix.rpc_counts(matrix.parse_prometheus(METRICS))
    assert counts == {'claim_resources_many': 40.0, 'ping': 2.0}
    assert matrix.rpc_messages(counts) == 84.0      # a call: request + reply


def test_summarise_counters_per_claim():
    before = {'rpc': {'claim_resources_many': 10.0}, 'pg_commits': 100,
              'rabbit_received': 5}
    after = {'rpc': {'claim_resources_many': 35.0, 'ping': 1.0}, 'pg_commits': 150,
             'rabbit_received': 57, 'idle_cpu_ms_per_s': {'api': 3.5}}
    out = claims_matrix.summarise_counters(before, after, 100)
    assert out['batch'] == {'claims_per_rpc_call': 4.0, 'pg_commits_per_claim': 0.5}
    assert out['rpc_msgs_per_claim'] == 0.52
    assert out['rabbit_msgs_per_claim'] == 0.52
    assert out['rpc_calls'] == {'claim_resources_many': 25, 'ping': 1}
    assert out['idle_cpu_ms_per_s'] == {'api': 3.5}


def test_summarise_counters_without_server_counts():
    empty = {'rpc': {}, 'pg_commits': None, 'rabbit_received': None}
    out = claims_matrix.summarise_counters(empty, empty, 10)
    assert out['batch'] == {'claims_per_rpc_call': None}
    assert 'rabbit_msgs_per_claim' not in out


def test_node_allocations_rpc_per_request():
    from bench import node_allocations_real
    out = node_allocations_real.rpc_per_request(
        {'create_allocations': 50.0, 'destroy_allocation': 0.0}, 200)
    assert out == {'rpc_calls': {'create_allocations': 50},
                   'rpc_msgs_per_request': 0.5,
                   'batch': {'allocations_per_rpc_call': 4.0}}
    assert node_allocations_real.rpc_per_request({}, 10)['batch'] == {
        'allocations_per_rpc_call': None}


def test_profile_summary_counts_inclusive_once_per_stack_and_self_at_the_leaf(tmp_path):
    from bench import profile_hook
    raw = tmp_path / 'cell-api-1.txt'
    raw.write_text('main;call;publish 3\nmain;call;call;poll 1\nmain;log 4\n')
    text = profile_hook.summarise([raw])
    assert '8 samples' in text
    inclusive, own = text.split('-- self')
    # a frame twice in one stack (recursion) counts once for it
    assert ' 50.0%  call' in inclusive and '100.0%  main' in inclusive
    assert ' 50.0%  log' in own and ' 37.5%  publish' in own and ' 12.5%  poll' in own
