"""Strategies for request headers: microversions, identities, media types, junk."""

import functools

from hypothesis import strategies as st

from api.placement import microversion

# what a real HTTP server can hand a WSGI app: latin-1 text without CR/LF
HEADER_TEXT = st.text(st.characters(min_codepoint=0x20, max_codepoint=0xff,
                                    blacklist_characters='\x7f'), max_size=40)

GARBAGE_VERSIONS = ['', ' ', 'latest', 'LATEST', ' latest ', '1', '1.', '.1', '1.0.0',
                    '01.01', '1.01', '1.-1', '-1.0', '2.0', '0.9', '1.999',
                    '1.99999999999999999999', '1.2147483648', 'v1.1', '1,1', '1.1 1.2',
                    'a.b', '１.１', '1.\u0661']


def _versions(minor_max):
    return ['1.%d' % i for i in range(minor_max + 1)]


@functools.cache
def _placement_valid(low):
    return st.sampled_from(_versions(len(microversion.VERSIONS) - 1)[low:] + ['latest'])


_HOSTILE_VERSION = st.one_of(st.sampled_from(GARBAGE_VERSIONS), HEADER_TEXT)
_PREFIXES = st.sampled_from(['compute ', 'placement', 'placement  ', 'PLACEMENT ', '',
                             'placement 1.20, compute '])


@st.composite
def placement_version(draw, low=0):
    """``{'OpenStack-API-Version': ...}``: mostly a valid version from 1.``low``
    on, sometimes a hostile value or header, or (``low`` 0) none."""
    kind = draw(st.integers(0, 9))
    if kind == 0 and low == 0:
        return {}
    if kind < 8:
        return {'OpenStack-API-Version': 'placement %s' % draw(_placement_valid(low))}
    if kind == 8:
        return {'OpenStack-API-Version': 'placement %s' % draw(_HOSTILE_VERSION)}
    return {'OpenStack-API-Version': draw(_PREFIXES) + draw(_placement_valid(low))}


@st.composite
def baremetal_version(draw):
    """``{'X-OpenStack-Ironic-API-Version': ...}`` within, around or beside 1.1-1.60."""
    kind = draw(st.integers(0, 9))
    if kind == 0:
        return {}
    if kind < 8:
        value = draw(st.sampled_from(_versions(60) + ['latest', '1.52', '1.57', '1.58',
                                                      '1.60']))
    else:
        value = draw(st.one_of(st.sampled_from(GARBAGE_VERSIONS + ['1.61', '1.0']),
                               HEADER_TEXT))
    return {'X-OpenStack-Ironic-API-Version': value}


ROLES = st.lists(st.sampled_from(['admin', 'reader', 'member', 'service', 'ADMIN',
                                  '', ' ', 'manager']), max_size=3).map(','.join)


@st.composite
def identity(draw):
    """noauth2 identity headers: mostly the admin, else users, roles, scopes, junk."""
    kind = draw(st.integers(0, 9))
    if kind < 6:
        return {'X-Auth-Token': 'admin'}
    headers = {}
    token = draw(st.one_of(st.sampled_from(['admin', 'user:fuzz-project', 'other:proj',
                                            ':', ':proj', 'admin:', 'service']),
                           HEADER_TEXT))
    if draw(st.integers(0, 5)):
        headers['X-Auth-Token'] = token
    if draw(st.booleans()):
        headers['X-Roles'] = draw(st.one_of(ROLES, HEADER_TEXT))
    if draw(st.integers(0, 3)) == 0:
        headers['OpenStack-System-Scope'] = draw(st.sampled_from(['all', '', 'x']))
    if draw(st.integers(0, 3)) == 0:
        headers['X-Project-Id'] = draw(st.one_of(st.just('fuzz-project'), HEADER_TEXT))
    return headers


@st.composite
def extra_headers(draw):
    """Media types, request ids and the occasional hostile header."""
    headers = {}
    if draw(st.integers(0, 5)) == 0:
        headers['Content-Type'] = draw(st.one_of(st.sampled_from([
            'text/plain', 'application/json; charset=latin-1', 'application/xml',
            'application/json-patch+json', 'multipart/form-data', '', ';;']),
            HEADER_TEXT))
    if draw(st.integers(0, 5)) == 0:
        headers['Accept'] = draw(st.one_of(st.sampled_from([
            'text/html', 'application/json', '*/*', 'application/xml;q=1',
            'text/plain;q=0']), HEADER_TEXT))
    if draw(st.integers(0, 7)) == 0:
        headers['X-OpenStack-Request-Id'] = draw(st.one_of(
            st.just('req-00000000-0000-4000-8000-000000000000'), HEADER_TEXT))
    if draw(st.integers(0, 9)) == 0:
        headers['Content-Length'] = draw(st.sampled_from(['-1', 'x', '99999999999',
                                                          '1.5', ' 3']))
    if draw(st.integers(0, 9)) == 0:
        headers[draw(st.sampled_from(['If-None-Match', 'X-Identity-Status', 'Origin',
                                      'Transfer-Encoding']))] = draw(HEADER_TEXT)
    return headers
