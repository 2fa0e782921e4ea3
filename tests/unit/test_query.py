"""The shared query-string grammars (api.placement.query)."""

import pytest

from api.placement import errors, fault, microversion, query

A = 'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa'
B = 'bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb'
C = 'cccccccc-cccc-cccc-cccc-cccccccccccc'


def v(text):
    return microversion.Version.parse(text)


def _bad(fn, *args):
    with pytest.raises(fault.BadRequest) as info:
        fn(*args)
    return info.value


# --- resources ------------------------------------------------------------------

def test_resources_simple():
    assert query.parse_resources('VCPU:2,MEMORY_MB:1024') == {'VCPU': 2, 'MEMORY_MB': 1024}


def test_resources_last_amount_wins_and_spaces():
    assert query.parse_resources('VCPU:2, VCPU: 3') == {'VCPU': 3}


@pytest.mark.parametrize('value', ['', '   ', 'VCPU', 'VCPU:1,', 'VCPU:1:2', ':1',
                                   'VCPU:x', 'VCPU:0', 'VCPU:-1', 'VCPU:1.5',
                                   'VCPU:1,,DISK_GB:1'])
def test_resources_bad(value):
    exc = _bad(query.parse_resources, value)
    assert exc.status == 400
    assert exc.code == errors.DEFAULT


def test_resources_messages_name_the_key():
    assert 'resources1' in _bad(query.parse_resources, '', 'resources1').detail
    # Placement's two texts: a non-integer, then an integer below one
    assert 'positive integer' in _bad(query.parse_resources, 'VCPU:x').detail
    assert ('Requested resource VCPU requires amount >= 1. Got: 0.'
            == _bad(query.parse_resources, 'VCPU:0').detail)
    # the bad item is named, not the whole value ("Got: ." after a trailing comma)
    assert _bad(query.parse_resources, 'DISK_GB:500,').detail.endswith('Got: .')


# --- required -------------------------------------------------------------------

def test_required_plain():
    assert query.parse_required(['A,B'], v('1.18')) == ([{'A'}, {'B'}], set())


def test_required_whitespace_stripped():
    assert query.parse_required([' A , B '], v('1.18')) == ([{'A'}, {'B'}], set())


@pytest.mark.parametrize('value', ['', ' ', 'A,,B', 'A,', '!', 'A,!', '!!'])
def test_required_empty_items(value):
    _bad(query.parse_required, [value], v('1.39'))


def test_forbidden_from_1_22():
    _bad(query.parse_required, ['A,!B'], v('1.21'))
    assert query.parse_required(['A,!B'], v('1.22')) == ([{'A'}], {'B'})


def test_double_bang_is_one():
    assert query.parse_required(['!!X'], v('1.22')) == ([], {'X'})


def test_below_1_39_only_last_occurrence():
    assert query.parse_required(['A', 'B'], v('1.38')) == ([{'B'}], set())
    # an earlier occurrence is ignored, even when malformed
    assert query.parse_required(['in:A,B', 'C'], v('1.38')) == ([{'C'}], set())


def test_in_prefix_below_1_39_is_400():
    exc = _bad(query.parse_required, ['in:A,B'], v('1.38'))
    assert '1.39' in exc.detail


def test_any_of_and_repetition_from_1_39():
    required, forbidden = query.parse_required(['in:A,B', 'C,!D'], v('1.39'))
    assert required == [{'A', 'B'}, {'C'}]
    assert forbidden == {'D'}


def test_in_with_spaces():
    assert query.parse_required([' in: A , B '], v('1.39')) == ([{'A', 'B'}], set())


@pytest.mark.parametrize('value', ['in:', 'in:A,,B', 'in:A,'])
def test_in_empty_items(value):
    _bad(query.parse_required, [value], v('1.39'))


def test_bang_inside_in_is_400():
    exc = _bad(query.parse_required, ['in:A,!B'], v('1.39'))
    assert 'in:' in exc.detail


def test_required_duplicate_sets_collapse():
    assert query.parse_required(['A', 'A'], v('1.39')) == ([{'A'}], set())


def test_required_accepts_a_single_string():
    assert query.parse_required('A', v('1.18')) == ([{'A'}], set())


def test_required_key_in_message():
    assert 'required_X' in _bad(query.parse_required, [''], v('1.39'),
                                'required_X').detail


# --- root_required --------------------------------------------------------------

def test_root_required():
    assert query.parse_root_required('A,!B') == ({'A'}, {'B'})
    _bad(query.parse_root_required, 'in:A,B')
    _bad(query.parse_root_required, 'A,,B')
    assert _bad(query.parse_root_required, 'A,!A').code == errors.QUERY_BAD_VALUE


# --- member_of ------------------------------------------------------------------

def test_member_of_single_and_in():
    assert query.parse_member_of([A], v('1.3')) == ([{A}], set())
    assert query.parse_member_of(['in:%s,%s' % (A, B)], v('1.3')) == ([{A, B}], set())


def test_member_of_normalises_uuids():
    dashless_upper = A.replace('-', '').upper()
    assert query.parse_member_of([dashless_upper], v('1.3')) == ([{A}], set())


@pytest.mark.parametrize('value', ['', 'in:', 'nope', 'in:%s,nope' % A,
                                   'in:%s,!%s' % (A, B), '%s,%s' % (A, B),
                                   'in:%s,' % A])
def test_member_of_bad(value):
    _bad(query.parse_member_of, [value], v('1.39'))


def test_comma_without_in_message():
    assert "'in:'" in _bad(query.parse_member_of, ['%s,%s' % (A, B)], v('1.24')).detail


def test_repeat_from_1_24():
    exc = _bad(query.parse_member_of, [A, B], v('1.23'))
    assert 'Multiple member_of' in exc.detail
    assert query.parse_member_of([A, 'in:%s,%s' % (B, C)], v('1.24')) == (
        [{A}, {B, C}], set())


@pytest.mark.parametrize('value', ['!' + A, '!in:%s,%s' % (A, B)])
def test_forbidden_aggregates_from_1_32(value):
    _bad(query.parse_member_of, [value], v('1.31'))


def test_forbidden_aggregates_merge():
    got = query.parse_member_of(['!' + A, '!in:%s,%s' % (B, C), 'in:%s,%s' % (A, B)],
                                v('1.32'))
    assert got == ([{A, B}], {A, B, C})


def test_forbidden_with_comma_needs_in():
    _bad(query.parse_member_of, ['!%s,%s' % (A, B)], v('1.32'))


def test_contradiction_is_not_an_error():
    assert query.parse_member_of([A, '!' + A], v('1.32')) == ([{A}], {A})


def test_single_string_accepted():
    assert query.parse_member_of(A, v('1.3')) == ([{A}], set())


# --- in_tree and uuids ----------------------------------------------------------

def test_in_tree():
    assert query.parse_in_tree(' %s ' % A.upper()) == A
    assert query.parse_in_tree(A.replace('-', '')) == A
    assert 'in_tree1' in _bad(query.parse_in_tree, 'nope', 'in_tree1').detail
    _bad(query.parse_in_tree, '')


def test_normalize_uuid():
    assert query.normalize_uuid(A.upper()) == A
    assert query.normalize_uuid('x') is None
    assert query.normalize_uuid(None) is None


# --- a whole group --------------------------------------------------------------

def test_build_group():
    group = query.build_group(v('1.39'), suffix='1', resources='VCPU:1',
                              required=['in:A,B', '!C'], member_of=['!' + A, B],
                              in_tree=C)
    assert group.suffix == '1'
    assert group.resources == {'VCPU': 1}
    assert group.required == [{'A', 'B'}]
    assert group.forbidden == {'C'}
    assert group.member_of == [{B}]
    assert group.forbidden_aggs == {A}
    assert group.in_tree == C
    assert group.trait_names == {'A', 'B', 'C'}


def test_build_group_keys_carry_the_suffix():
    exc = _bad(query.build_group, v('1.39'), '_X', 'VCPU:0')
    assert 'VCPU' in exc.detail
    exc = _bad(query.build_group, v('1.39'), '_X', None, None, None, 'nope')
    assert 'in_tree_X' in exc.detail


def test_build_group_empty():
    group = query.build_group(v('1.0'))
    assert group.resources == {} and group.required == [] and group.in_tree is None
