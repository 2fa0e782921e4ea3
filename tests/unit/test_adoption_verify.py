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


class _Side:
    """An endpoint edge whose read of a path waits for the other side's read of it."""

    def __init__(self, label, started, other):
        self.label, self.started, self.other = label, started, other

    def read(self, path):
        self.started[(self.label, path)].set()
        # both services work at once: the other side's read of the same path
        # is in flight before either answers
        assert self.started[(self.other, path)].wait(5), (self.label, path)
        return 200, {'path': path, 'links': [{'href': self.label}]}


def test_both_sides_read_one_path_together_and_report_in_path_order():
    import collections
    import threading
    started = collections.defaultdict(threading.Event)
    verifier = av.Verifier(_Side('placement', started, 'berth'),
                           _Side('berth', started, 'placement'), workers=1)
    paths = ['/p%d' % i for i in range(20)]
    answers = verifier._both('x', paths)
    assert list(answers) == paths
    assert verifier.report.reads == 20 and verifier.report.differences == []


def test_keyed_lists_compare_as_dicts_and_equal_answers_are_equal():
    left = {'resource_providers': [{'uuid': 'u2', 'traits': ['B', 'A']}, {'uuid': 'u1'}]}
    right = {'resource_providers': [{'uuid': 'u1'}, {'uuid': 'u2', 'traits': ['A', 'B']}]}
    assert av._canonical(left) == av._canonical(right) == {
        'resource_providers': {'u1': {'uuid': 'u1'},
                               'u2': {'uuid': 'u2', 'traits': ['A', 'B']}}}
    # a uuid twice in one answer is not collapsed: the list stays a list
    twice = {'resource_providers': [{'uuid': 'u1', 'g': 2}, {'uuid': 'u1', 'g': 1}]}
    assert av._canonical(twice) == {'resource_providers': [{'g': 1, 'uuid': 'u1'},
                                                           {'g': 2, 'uuid': 'u1'}]}


def test_the_union_of_both_lists_is_by_uuid_and_linear():
    import time
    many = [{'uuid': 'u%06d' % i, 'generation': 1} for i in range(20000)]
    answer = (200, {'resource_providers': many},
              200, {'resource_providers': many[::-1] + [{'uuid': 'only-berth'}]})
    started = time.monotonic()
    union = av._union_items(answer, 'resource_providers')
    assert len(union) == 20001 and union[0] is many[0] and union[-1] == {'uuid': 'only-berth'}
    assert time.monotonic() - started < 5
