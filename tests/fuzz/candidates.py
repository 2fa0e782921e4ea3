"""Strategies for the allocation-candidates request language in a query string."""

from hypothesis import strategies as st

from tests.fuzz import jsonfuzz, world

SUFFIXES = st.one_of(st.sampled_from(['', '', '1', '2', '10', '_COMPUTE', '_NIC', 'x',
                                      '0', '01', '-', '_' * 65, 'a' * 64, '_é']),
                     jsonfuzz.TEXT)
CLASSES = st.sampled_from(['VCPU', 'MEMORY_MB', 'DISK_GB', world.CUSTOM_RC,
                           'SRIOV_NET_VF', 'CUSTOM_NOPE', 'vcpu', 'VCPU '])
AMOUNTS = st.one_of(st.sampled_from(['1', '2', '0', '-1', '1.5', '', 'x', '2147483648',
                                     '99999999999999999999', ' 1', '1e3']),
                    st.integers(1, 100000).map(str))
TRAITS = st.sampled_from(['HW_CPU_X86_AVX', world.CUSTOM_TRAIT, 'CUSTOM_NOPE',
                          'HW_CPU_X86_SSE', 'bogus', ''])
AGGS = st.one_of(st.sampled_from([world.AGG, 'b0000000-0000-4000-8000-00000000000f',
                                  'not-a-uuid', '']), st.uuids().map(str))


@st.composite
def _resources(draw):
    parts = draw(st.lists(st.one_of(
        st.tuples(CLASSES, AMOUNTS).map(':'.join), jsonfuzz.TEXT), min_size=0, max_size=4))
    return ','.join(parts)


@st.composite
def _required(draw):
    terms = draw(st.lists(st.one_of(
        TRAITS, TRAITS.map(lambda t: '!' + t),
        st.lists(TRAITS, min_size=0, max_size=3).map(lambda ts: 'in:' + ','.join(ts)),
        st.lists(TRAITS, min_size=0, max_size=3).map(lambda ts: '!in:' + ','.join(ts))),
        min_size=1, max_size=3))
    return ','.join(terms)


@st.composite
def _member_of(draw):
    aggs = ','.join(draw(st.lists(AGGS, min_size=0, max_size=3)))
    return draw(st.sampled_from(['', 'in:', '!', '!in:', 'in:!'])) + aggs


def _same_subtree():
    return st.lists(SUFFIXES, min_size=0, max_size=3).map(','.join)


_VALUES = {
    'resources': _resources(),
    'required': _required(),
    'member_of': _member_of(),
    'in_tree': st.one_of(st.sampled_from(world.PROVIDERS), AGGS),
    'group_policy': st.sampled_from(['none', 'isolate', 'NONE', '', 'x']),
    'root_required': _required(),
    'same_subtree': _same_subtree(),
    'limit': st.one_of(AMOUNTS, st.sampled_from(['1', '5', '1000000'])),
}
_GRANULAR = ('resources', 'required', 'member_of', 'in_tree')


@st.composite
def _pair(draw):
    key = draw(st.sampled_from(sorted(_VALUES) + ['junk']))
    if key == 'junk':
        return draw(jsonfuzz.TEXT), draw(jsonfuzz.TEXT)
    value = draw(jsonfuzz.TEXT if draw(st.integers(0, 9)) == 0 else _VALUES[key])
    if key in _GRANULAR and draw(st.booleans()):
        key += draw(SUFFIXES)
    return key, value


_VALID_RESOURCES = st.lists(st.tuples(
    st.sampled_from(['VCPU', 'MEMORY_MB', 'DISK_GB', world.CUSTOM_RC, 'SRIOV_NET_VF']),
    st.integers(1, 64).map(str)).map(':'.join), min_size=1, max_size=3,
    unique_by=lambda s: s.split(':')[0]).map(','.join)


@st.composite
def _well_formed(draw):
    """A request that parses (mostly): unsuffixed resources, then extra terms."""
    pairs = [('resources', draw(_VALID_RESOURCES))]
    for key in draw(st.lists(st.sampled_from(['required', 'member_of', 'in_tree',
                                              'limit', 'root_required', 'granular']),
                             max_size=3)):
        if key == 'granular':
            suffix = draw(st.sampled_from(['1', '_NIC', '2']))
            pairs.append(('resources' + suffix, draw(_VALID_RESOURCES)))
            pairs.append(('group_policy', draw(st.sampled_from(['none', 'isolate']))))
        else:
            pairs.append((key, draw(_VALUES[key])))
    return pairs


def query():
    """(key, value) pairs of GET /allocation_candidates, repeated keys allowed."""
    return st.one_of(_well_formed(), st.lists(_pair(), min_size=0, max_size=8))
