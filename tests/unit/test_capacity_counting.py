"""objects.candidates.counting: the greedy count of how many copies of a request fit."""

from objects.candidates import counting


def test_each_demand_is_used_as_often_as_its_scarcest_class_allows():
    free = {('a', 'VCPU'): 16, ('a', 'MEMORY_MB'): 16384}
    placed = counting.greedy([('a', {('a', 'VCPU'): 4, ('a', 'MEMORY_MB'): 8192})], free)
    assert placed == {'a': 2}
    assert free == {('a', 'VCPU'): 16, ('a', 'MEMORY_MB'): 16384}   # not changed


def test_two_candidates_of_one_tree_share_its_root_pool():
    # root VCPU 12, two NUMA children with room for 2 x 8192 each
    need0 = {('r', 'VCPU'): 4, ('n0', 'MEMORY_MB'): 8192}
    need1 = {('r', 'VCPU'): 4, ('n1', 'MEMORY_MB'): 8192}
    free = {('r', 'VCPU'): 12, ('n0', 'MEMORY_MB'): 16384, ('n1', 'MEMORY_MB'): 16384}
    assert counting.greedy([('r', need0), ('r', need1)], free) == {'r': 3}


def test_a_shared_provider_is_consumed_across_trees():
    free = {('h1', 'VCPU'): 8, ('h2', 'VCPU'): 8, ('s', 'DISK_GB'): 100}
    demands = [('h1', {('h1', 'VCPU'): 1, ('s', 'DISK_GB'): 20}),
               ('h2', {('h2', 'VCPU'): 1, ('s', 'DISK_GB'): 20})]
    assert counting.greedy(demands, free) == {'h1': 5}


def test_no_room_overdrawn_or_unknown_counts_nothing():
    free = {('a', 'VCPU'): 3, ('b', 'VCPU'): -2}
    demands = [('a', {('a', 'VCPU'): 4}), ('b', {('b', 'VCPU'): 1}),
               ('c', {('c', 'VCPU'): 1}), ('d', {})]
    assert counting.greedy(demands, free) == {}


def test_top_ranks_by_fits_then_uuid_and_drops_zeros():
    placed = {'b': 2, 'a': 2, 'c': 5, 'd': 0}
    assert counting.top(placed, 10) == [{'uuid': 'c', 'fits': 5}, {'uuid': 'a', 'fits': 2},
                                        {'uuid': 'b', 'fits': 2}]
    assert counting.top(placed, 2) == [{'uuid': 'c', 'fits': 5}, {'uuid': 'a', 'fits': 2}]
