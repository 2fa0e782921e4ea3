"""The comparison rules of ``berth-manage verify placement`` (cli/adoption_verify.py)."""

from cli import adoption_verify as av


def _diffs(left, right, canonical=av._canonical):
    return [d.line() for d in av.compare('/x', canonical(left), canonical(right))]


def test_sets_compare_without_their_order_and_links_are_left_out():
    left = {'traits': ['B', 'A'], 'links': [{'href': 'http://a/x'}],
            'resource_provider_generation': 3}
    right = {'traits': ['A', 'B'], 'links': [{'href': 'http://b/x'}],
             'resource_provider_generation': 3}
    assert _diffs(left, right) == []


def test_a_difference_names_its_place_and_both_values():
    assert _diffs({'inventories': {'VCPU': {'total': 8}}, 'resource_provider_generation': 1},
                  {'inventories': {'VCPU': {'total': 9}}, 'resource_provider_generation': 2}
                  ) == ['/x /inventories/VCPU/total: placement=8 berth=9',
                        '/x /resource_provider_generation: placement=1 berth=2']


def test_providers_are_matched_by_uuid_and_a_missing_one_is_absent():
    left = {'resource_providers': [{'uuid': 'u1', 'generation': 1},
                                   {'uuid': 'u2', 'generation': 0}]}
    right = {'resource_providers': [{'uuid': 'u2', 'generation': 0}]}
    assert _diffs(left, right) == [
        '/x /resource_providers/u1: placement={"generation": 1, "uuid": "u1"} '
        'berth=<absent>']


def test_allocation_candidates_compare_as_sets():
    req_a = {'allocations': {'rp1': {'resources': {'VCPU': 1}}},
             'mappings': {'': ['rp1']}}
    req_b = {'allocations': {'rp2': {'resources': {'VCPU': 1}}},
             'mappings': {'': ['rp2']}}
    summaries = {'rp1': {'traits': ['Y', 'X']}, 'rp2': {'traits': []}}
    left = {'allocation_requests': [req_a, req_b], 'provider_summaries': summaries}
    right = {'allocation_requests': [req_b, req_a],
             'provider_summaries': {'rp2': {'traits': []}, 'rp1': {'traits': ['X', 'Y']}}}
    assert _diffs(left, right, av._candidates_canonical) == []
    right['allocation_requests'] = [req_a]
    lines = _diffs(left, right, av._candidates_canonical)
    assert len(lines) == 1 and 'rp2' in lines[0] and lines[0].endswith(
        'placement=true berth=<absent>')


def test_usage_reads_cover_projects_users_and_the_types_they_hold():
    owners = [(200, {'project_id': 'p', 'user_id': 'u', 'consumer_type': 'INSTANCE'},
               200, {'project_id': 'p', 'user_id': 'u', 'consumer_type': 'MIGRATION'})]
    reads = av._usage_reads(owners)
    assert reads == [
        '/usages?project_id=p',
        '/usages?project_id=p&consumer_type=INSTANCE',
        '/usages?project_id=p&consumer_type=MIGRATION',
        '/usages?project_id=p&consumer_type=all',
        '/usages?project_id=p&consumer_type=unknown',
        '/usages?project_id=p&user_id=u',
        '/usages?project_id=p&user_id=u&consumer_type=INSTANCE',
        '/usages?project_id=p&user_id=u&consumer_type=MIGRATION']
    assert av._usage_reads(owners, typed=False) == [
        '/usages?project_id=p', '/usages?project_id=p&user_id=u']


def test_candidate_reads_come_from_held_and_offered_combinations():
    owners = [(200, {'allocations': {'rp1': {'resources': {'VCPU': 2}},
                                     'rp2': {'resources': {'DISK_GB': 10}}}}, 200, {})]
    reads = av._candidate_reads(owners, {'rp1': ['MEMORY_MB', 'VCPU'], 'rp3': []},
                                ['CUSTOM_X'])
    assert reads == [
        '/allocation_candidates?resources=DISK_GB%3A10%2CVCPU%3A2',
        '/allocation_candidates?resources=MEMORY_MB%3A1%2CVCPU%3A1',
        '/allocation_candidates?resources=DISK_GB%3A10%2CVCPU%3A2&required=CUSTOM_X',
        '/allocation_candidates?resources=DISK_GB%3A10%2CVCPU%3A2&required=%21CUSTOM_X',
        '/allocation_candidates?resources=MEMORY_MB%3A1%2CVCPU%3A1&required=CUSTOM_X',
        '/allocation_candidates?resources=MEMORY_MB%3A1%2CVCPU%3A1&required=%21CUSTOM_X']
