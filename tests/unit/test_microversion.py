import pytest

from api.placement import microversion as mv


@pytest.mark.parametrize('header,expected', [
    (None, '1.0'),
    ('', '1.0'),
    ('placement 1.5', '1.5'),
    ('PLACEMENT 1.5', '1.5'),
    ('placement latest', '1.39'),
    ('compute 2.1, placement 1.12', '1.12'),
    ('placement 1.12, placement 1.14', '1.14'),
    ('placement 1.12, compute 2.1', '1.12'),
    ('placement 1.05', '1.5'),
    ('placement  1.7 ', '1.7'),
    ('garbage', '1.0'),
    ('compute 2.1', '1.0'),
])
def test_negotiate(header, expected):
    assert str(mv.negotiate(header)) == expected


@pytest.mark.parametrize('value', ['pony.horse', '1.2.3', '1', 'LATEST', '1.x'])
def test_invalid(value):
    with pytest.raises(mv.InvalidVersion):
        mv.negotiate('placement %s' % value)


def test_an_entry_is_split_once_as_placement_splits_it():
    # microversion-parse (Placement's parser) splits an entry into its service
    # and the rest: "placement 1.2 extra" asks for "1.2 extra" (400), it is not
    # skipped as an entry of three tokens
    with pytest.raises(mv.InvalidVersion, match='invalid version string: 1.2 extra'):
        mv.negotiate('placement 1.2 extra')
    assert str(mv.negotiate('placement 1.2 extra, placement 1.3')) == '1.3'


def test_a_listed_version_is_the_one_listed_object():
    assert mv.negotiate('placement latest') is mv.negotiate('placement 1.39')
    assert mv.negotiate(None) == mv.MIN_VERSION


@pytest.mark.parametrize('value', ['0.5', '1.40', '2.0'])
def test_unacceptable(value):
    with pytest.raises(mv.UnacceptableVersion):
        mv.negotiate('placement %s' % value)


def test_version_ordering_and_matches():
    v = mv.Version.parse('1.14')
    assert v > '1.9' and v < '1.15' and v == '1.14'
    assert v.matches('1.14') and v.matches('1.0', '1.14')
    assert not v.matches('1.15') and not v.matches(None, '1.13')


def test_versions_list_is_contiguous():
    assert mv.VERSIONS == ['1.%d' % i for i in range(40)]


def test_named_versions_are_listed_versions():
    names = {k: v for k, v in vars(mv).items() if k.isupper() and isinstance(v, mv.Version)}
    assert len(names) > 40
    assert all(str(v) in mv.VERSIONS for v in names.values())


_ANY_OF = {'resources': {'VCPU': 1}, 'required': ['C', 'in:A,B']}


def test_claims_parse_at_their_own_version_not_the_newest(monkeypatch):
    """POST /claims reads its resource request at CLAIMS_REQUEST: a new (or
    here, pretend-older) newest microversion does not change its grammar."""
    from api.placement.handlers import claim
    monkeypatch.setattr(mv, 'MAX_VERSION', mv.Version(1, 21))
    assert claim.parse_request(_ANY_OF).groups[0].required == [{'C'}, {'A', 'B'}]


def test_claims_grammar_follows_its_declared_version(monkeypatch):
    from api.placement import fault
    from api.placement.handlers import claim
    monkeypatch.setattr(mv, 'CLAIMS_REQUEST', mv.Version(1, 38))   # before any-of traits
    with pytest.raises(fault.BadRequest, match='in:'):
        claim.parse_request(_ANY_OF)
