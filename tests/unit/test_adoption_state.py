"""The import's pure parts: diffs by natural key, provider trees from Placement rows."""

import collections

from objects.adoption import catch_up, source, state

Row = collections.namedtuple('Row', 'id uuid name generation parent_provider_id')


def _state(**tables):
    st = state.State()
    for name, value in tables.items():
        setattr(st, name, value)
    return st


def test_diff_sorts_inserts_updates_deletes_and_skips_unchanged():
    old = _state(resource_providers={'a': ('a', 1, None, 'a'), 'b': ('b', 2, None, 'b'),
                                     'c': ('c', 0, None, 'c')},
                 traits={'CUSTOM_X', 'CUSTOM_Y'},
                 allocations={('c1', 'a', 'VCPU'): 1, ('c1', 'b', 'VCPU'): 2})
    new = _state(resource_providers={'a': ('a', 1, None, 'a'), 'b': ('b', 3, None, 'b'),
                                     'd': ('d', 5, None, 'd')},
                 traits={'CUSTOM_Y', 'CUSTOM_Z'},
                 allocations={('c1', 'a', 'VCPU'): 1, ('c1', 'b', 'VCPU'): 4,
                              ('c2', 'd', 'VCPU'): 1})
    ch = state.diff(old, new)
    rps = ch['resource_providers']
    assert (rps.inserted, rps.updated, rps.deleted) == (['d'], ['b'], ['c'])
    assert (ch['traits'].inserted, ch['traits'].deleted) == (['CUSTOM_Z'], ['CUSTOM_X'])
    assert ch['allocations'].updated == [('c1', 'b', 'VCPU')]
    assert ch['allocations'].inserted == [('c2', 'd', 'VCPU')]
    assert state.summary(ch)['resource_providers'] == (1, 1, 1)
    assert state.diff(new, new) == {t: state.Change([], [], []) for t in state.TABLES}


def test_touched_providers_are_those_whose_children_change_but_not_deleted_ones():
    old = _state(resource_providers={'a': ('a', 1, None, 'a'), 'b': ('b', 1, None, 'b'),
                                     'c': ('c', 1, None, 'c'), 'gone': ('g', 1, None, 'gone')},
                 inventories={('a', 'VCPU'): (1, 0, 1, 1, 1, 1.0),
                              ('gone', 'VCPU'): (1, 0, 1, 1, 1, 1.0)},
                 resource_provider_traits={('b', 'CUSTOM_X')})
    new = _state(resource_providers={'a': ('a', 1, None, 'a'), 'b': ('b', 1, None, 'b'),
                                     'c': ('c', 1, None, 'c')},
                 inventories={('a', 'VCPU'): (2, 0, 1, 2, 1, 1.0)})
    assert state.touched_providers(state.diff(old, new)) == {'a', 'b'}


def test_provider_rows_null_generation_null_root_and_broken_chains():
    rows = [Row(1, 'root', 'root', None, None), Row(2, 'kid', 'kid', 3, 1),
            Row(3, 'grandkid', 'gk', 1, 2), Row(4, 'lost', 'lost', 0, 99),
            Row(5, 'under-lost', 'ul', 0, 4), Row(6, 'nameless', None, 0, None),
            Row(7, 'loop-a', 'la', 0, 8), Row(8, 'loop-b', 'lb', 0, 7)]
    problems = []
    out, nulls = source._providers(rows, problems)
    assert out == {'root': ('root', 0, None, 'root'), 'kid': ('kid', 3, 'root', 'root'),
                   'grandkid': ('gk', 1, 'kid', 'root')}
    assert nulls == 1
    text = '\n'.join(problems)
    assert 'provider lost: parent provider id 99 is missing' in text
    assert 'provider under-lost: under provider lost' in text
    assert 'provider nameless has no name' in text
    assert 'loop-a' in text and 'loop-b' in text
    assert len(problems) == 5


def test_diff_finds_an_updated_value_among_many_equal_ones_and_a_key_made_again():
    before = {'c%d' % i: ('p', 'u', None, 1) for i in range(1000)}
    after = dict(before, c500=('p', 'u', None, 2), new=('p', 'u', None, 1))
    del after['c7']
    ch = state.diff(_state(consumers=before), _state(consumers=after))['consumers']
    assert (ch.inserted, ch.updated, ch.deleted) == (['new'], ['c500'], ['c7'])
    # a value equal but for its type (1 and 1.0, as drivers may return) is no update
    ch = state.diff(_state(allocations={('c', 'a', 'VCPU'): 1}),
                    _state(allocations={('c', 'a', 'VCPU'): 1.0}))['allocations']
    assert len(ch) == 0


def test_changed_keys_new_gone_and_moved_in_any_order():
    old = [('c%d' % i, i % 5) for i in range(2000)]
    assert catch_up.changed_keys(list(reversed(old)), old) == set()
    new = [(k, 7 if k == 'c100' else g) for k, g in old if k != 'c3'] + [('c9999', 1)]
    assert catch_up.changed_keys(new, old) == {'c3', 'c9999', 'c100'}
    # same length, a key gone and one new
    swapped = old[:-1] + [('other', old[-1][1])]
    assert catch_up.changed_keys(swapped, old) == {old[-1][0], 'other'}
    # the same keys, two generations exchanged: the sum of the values is the same
    moved = list(old)
    moved[0], moved[1] = ('c0', old[1][1]), ('c1', old[0][1])
    assert catch_up.changed_keys(moved, old) == {'c0', 'c1'}
    assert catch_up.changed_keys([], old) == {k for k, _ in old}
    assert catch_up.changed_keys(old, []) == {k for k, _ in old}
