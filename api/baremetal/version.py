"""Ironic API microversions served by berth and their negotiation."""

from api.common import microversion

HEADER = 'X-OpenStack-Ironic-API-Version'
MIN_HEADER = 'X-OpenStack-Ironic-API-Minimum-Version'
MAX_HEADER = 'X-OpenStack-Ironic-API-Maximum-Version'

Version = microversion.Version
MIN_VERSION = Version(1, 1)
# 1.52 allocations, 1.57 allocation PATCH, 1.58 backfill, 1.60 allocation owner,
# 1.65 node lessee (settable, filterable, matched by allocations like owner);
# 1.66-1.115: doc/source/ironic-microversions.md says what each brings
MAX_VERSION = Version(1, 115)

CONDUCTOR_GROUP = '1.46'
ALLOCATIONS = '1.52'
ALLOCATION_PATCH = '1.57'
BACKFILL = '1.58'
ALLOCATION_OWNER = '1.60'
LESSEE = '1.65'
NETWORK_DATA = '1.66'
DEPLOY_STEPS = '1.69'
DISABLE_RAMDISK = '1.70'
DEPLOY_VERBS = '1.73'
BOOT_MODE = '1.75'
CHANGE_BOOT_MODE = '1.76'
DRIVER_FIELDS = '1.77'
NODE_HISTORY = '1.78'
NODE_INVENTORY = '1.81'
SHARDS = '1.82'
CHILD_NODES = '1.83'
# 1.84 /v1/continue_inspection: out of scope, still 'not supported by berth'
# the ``unhold`` verb; Ironic's 406 below it follows its state check, and no
# berth node is ever in a hold state: the answer is that check's 400 at every version
UNHOLD = '1.85'
FIRMWARE_INTERFACE = '1.86'
SERVICE = '1.87'
# 1.88-1.94 (ports, virtual media, runbooks) are bumped but 1.91: from it a
# '.json' path suffix is part of the name (api/baremetal/json_suffix.py)
DOT_JSON = '1.91'
# a ``runbook`` on the provision endpoint: berth has none, so it is not found
RUNBOOKS = '1.92'
DISABLE_POWER_OFF = '1.95'
# 1.96, 1.97 bumped; 1.98 decodes RFC 6901 escapes (~0, ~1) in a patch path's
# top-level member before Ironic's allowed-field check
PATCH_ESCAPES = '1.98'
# 1.99-1.103 bumped (ports, portgroups)
INSTANCE_NAME = '1.104'
# 1.105, 1.106 bumped (ports, portgroups); 1.107 x-openstack-request-id on every
# answer: berth always sent it (with openstack-request-id), at every version
SERVICE_DISABLE_RAMDISK = '1.108'
NODE_HEALTH = '1.109'
# the ``abort`` verb (1.13); 1.110 lets Ironic abort ``wait call-back``, a state
# berth's nodes never enter: abort is Ironic's state check 400 from every state
ABORT = '1.13'
DEPLOYWAIT_ABORT = '1.110'
# 1.111, 1.112 bumped (portgroups, runbooks); node history detail fields
# stored since 1.78 and shown from these versions
HISTORY_PROJECT = '1.113'
# 1.114 bumped (firmware components)
HISTORY_FIELDS = '1.115'


class InvalidVersion(ValueError):
    """Unparseable header (400)."""


class UnacceptableVersion(ValueError):
    """A version outside [MIN_VERSION, MAX_VERSION] (406)."""


def negotiate(value):
    """The requested Version: none means the minimum, ``latest`` the maximum."""
    if not value:
        return MIN_VERSION
    value = value.strip()
    if value.lower() == 'latest':
        return MAX_VERSION
    try:
        version = Version.parse(value)
    except microversion.InvalidVersion:
        raise InvalidVersion('Invalid value for %s header: %s' % (HEADER, value))
    if version.major != 1 or not version.matches(MIN_VERSION, MAX_VERSION):
        raise UnacceptableVersion(
            'Version %s was requested but the minor version is not supported by '
            'this service. The supported version range is: [%s, %s].'
            % (value, MIN_VERSION, MAX_VERSION))
    return version
