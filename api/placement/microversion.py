"""Microversions of the Placement API and their negotiation."""

import functools

SERVICE_TYPE = 'placement'
HEADER = 'OpenStack-API-Version'

# The canonical list; the last entry is the maximum.  One line per version
# says what it changed (doc/ has the long form).
VERSIONS = [
    '1.0',   # base API: providers, inventories, usages, allocations (list form)
    '1.1',   # provider aggregates
    '1.2',   # custom resource classes
    '1.3',   # member_of on GET /resource_providers
    '1.4',   # resources filter on GET /resource_providers
    '1.5',   # DELETE all inventories of a provider
    '1.6',   # traits
    '1.7',   # PUT /resource_classes/{name} is a bodiless create-or-confirm
    '1.8',   # project_id and user_id required on PUT /allocations
    '1.9',   # GET /usages
    '1.10',  # GET /allocation_candidates
    '1.11',  # allocations link on providers
    '1.12',  # dict form of allocations on PUT and in candidates
    '1.13',  # POST /allocations
    '1.14',  # nested providers, in_tree
    '1.15',  # last-modified and cache-control headers
    '1.16',  # limit on candidates
    '1.17',  # required on candidates, traits in summaries
    '1.18',  # required on GET /resource_providers
    '1.19',  # generation in aggregates payloads
    '1.20',  # POST /resource_providers returns the provider
    '1.21',  # member_of on candidates
    '1.22',  # forbidden traits
    '1.23',  # error codes
    '1.24',  # repeated member_of
    '1.25',  # granular request groups
    '1.26',  # reserved may equal total
    '1.27',  # all inventoried classes in summaries
    '1.28',  # consumer generations
    '1.29',  # nested-aware candidates
    '1.30',  # POST /reshaper
    '1.31',  # in_tree on candidates
    '1.32',  # forbidden aggregates
    '1.33',  # string group suffixes
    '1.34',  # mappings in allocation requests
    '1.35',  # root_required on candidates
    '1.36',  # same_subtree, resourceless groups
    '1.37',  # re-parenting providers
    '1.38',  # consumer types
    '1.39',  # any-of traits (in:) and repeated required
]


class InvalidVersion(ValueError):
    """The header value could not be parsed (400)."""


class UnacceptableVersion(ValueError):
    """The version parsed but is not one this service speaks (406)."""


@functools.total_ordering
class Version:
    __slots__ = ('major', 'minor')

    def __init__(self, major, minor):
        self.major = major
        self.minor = minor

    @classmethod
    def parse(cls, text):
        try:
            major, minor = text.split('.', 1)
            return cls(int(major.strip()), int(minor.strip()))
        except (ValueError, AttributeError):
            raise InvalidVersion('invalid version string: %s' % text)

    def _tuple(self):
        return (self.major, self.minor)

    def __eq__(self, other):
        return self._tuple() == _coerce(other)._tuple()

    def __lt__(self, other):
        return self._tuple() < _coerce(other)._tuple()

    def __hash__(self):
        return hash(self._tuple())

    def __str__(self):
        return '%d.%d' % self._tuple()

    __repr__ = __str__

    def matches(self, min_version=None, max_version=None):
        """True when min_version <= self <= max_version (either may be None)."""
        if min_version is not None and self < min_version:
            return False
        if max_version is not None and self > max_version:
            return False
        return True


def _coerce(value):
    return value if isinstance(value, Version) else _parse_cached(value)


@functools.lru_cache(maxsize=256)
def _parse_cached(text):
    # handlers compare against literal version strings on every item of
    # a listing (10000 providers -> 70000 comparisons); parse each once
    return Version.parse(text)


MIN_VERSION = Version.parse(VERSIONS[0])
MAX_VERSION = Version.parse(VERSIONS[-1])
_KNOWN = frozenset(Version.parse(v) for v in VERSIONS)


def extract_value(header_value):
    """The placement entry of an ``OpenStack-API-Version`` header, or None.

    Entries are scanned from last to first; the first whose service token is
    ``placement`` (any case) wins; entries that are not two tokens are skipped.
    """
    if not header_value:
        return None
    for entry in reversed(header_value.split(',')):
        parts = entry.split()
        if len(parts) == 2 and parts[0].lower() == SERVICE_TYPE:
            return parts[1]
    return None


def negotiate(header_value):
    """The Version a request asked for; raise InvalidVersion/UnacceptableVersion."""
    value = extract_value(header_value)
    if value is None:
        return MIN_VERSION
    if value == 'latest':
        return MAX_VERSION
    version = Version.parse(value)
    if version not in _KNOWN:
        raise UnacceptableVersion(
            'Unacceptable version header: %s' % value)
    return version
