"""Microversions of the Placement API, the names of those handlers compare, and their negotiation.

Handlers test ``req.version.matches(microversion.NAME)`` with the names below,
never with a literal; a new microversion gets a line in VERSIONS and a name.
"""

import functools

import microversion_parse

from api.common.microversion import InvalidVersion, Version

__all__ = ['InvalidVersion', 'Version']

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


class UnacceptableVersion(ValueError):
    """The version parsed but is not one this service speaks (406)."""


# --- the versions handlers, schemas and routes compare with -------------------
AGGREGATES = Version(1, 1)
CUSTOM_RESOURCE_CLASSES = Version(1, 2)
PROVIDERS_MEMBER_OF = Version(1, 3)
PROVIDERS_RESOURCES = Version(1, 4)
DELETE_ALL_INVENTORIES = Version(1, 5)
TRAITS = Version(1, 6)
RESOURCE_CLASS_PUT_CREATES = Version(1, 7)
USAGES = Version(1, 9)
ALLOCATION_CANDIDATES = Version(1, 10)
PROVIDER_ALLOCATIONS_LINK = Version(1, 11)
ALLOCATIONS_DICT = Version(1, 12)
POST_ALLOCATIONS = Version(1, 13)
NESTED_PROVIDERS = Version(1, 14)
CACHE_HEADERS = Version(1, 15)
CANDIDATES_LIMIT = Version(1, 16)
CANDIDATES_REQUIRED = Version(1, 17)
PROVIDERS_REQUIRED = Version(1, 18)
AGGREGATES_GENERATION = Version(1, 19)
POST_PROVIDER_BODY = Version(1, 20)
CANDIDATES_MEMBER_OF = Version(1, 21)
FORBIDDEN_TRAITS = Version(1, 22)
ERROR_CODES = Version(1, 23)
MULTI_MEMBER_OF = Version(1, 24)
GRANULAR = Version(1, 25)
RESERVED_EQUALS_TOTAL = Version(1, 26)
SUMMARY_ALL_CLASSES = Version(1, 27)
CONSUMER_GENERATIONS = Version(1, 28)
NESTED_CANDIDATES = Version(1, 29)
RESHAPER = Version(1, 30)
CANDIDATES_IN_TREE = Version(1, 31)
FORBIDDEN_AGGREGATES = Version(1, 32)
STRING_SUFFIXES = Version(1, 33)
MAPPINGS = Version(1, 34)
ROOT_REQUIRED = Version(1, 35)
SAME_SUBTREE = Version(1, 36)
REPARENT = Version(1, 37)
CONSUMER_TYPES = Version(1, 38)
ANY_OF_TRAITS = Version(1, 39)

# berth's extensions serve every microversion but parse what they share
# with Placement at a version of their own, so a new microversion changes
# them only when this line does: POST /claims reads its resource request
# as GET /allocation_candidates does at
CLAIMS_REQUEST = Version(1, 39)
# and GET /capacity reads its query string as GET /allocation_candidates at
CAPACITY_REQUEST = Version(1, 39)

MIN_VERSION = Version.parse(VERSIONS[0])
MAX_VERSION = Version.parse(VERSIONS[-1])
# each listed version's one Version object, by its text
_LISTED = {v: Version.parse(v) for v in VERSIONS}


def extract_value(header_value):
    """The placement entry of an ``OpenStack-API-Version`` header, or None.

    microversion-parse reads it: entries from last to first, the first whose
    service token is ``placement`` (any case) wins.
    """
    if not header_value:
        return None
    return microversion_parse.get_version({HEADER: header_value}, SERVICE_TYPE)


# per header text: the library parses the first and last of VERSIONS on each
# call (20-30 us); clients send a few texts over and over (a refusal is not kept)
@functools.lru_cache(maxsize=256)
def negotiate(header_value):
    """The Version a request asked for; raise InvalidVersion/UnacceptableVersion.

    microversion-parse decides it as it does for Placement: none asked is
    the first of VERSIONS, ``latest`` the last, any other must be listed.
    """
    headers = {HEADER: header_value} if header_value else {}
    try:
        found = microversion_parse.extract_version(headers, SERVICE_TYPE, VERSIONS)
    except TypeError:           # not major.minor
        raise InvalidVersion('invalid version string: %s'
                             % extract_value(header_value)) from None
    except ValueError as exc:   # major.minor, not listed: 'Unacceptable version header: …'
        raise UnacceptableVersion(str(exc)) from None
    return _LISTED[str(found)]
