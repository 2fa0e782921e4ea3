"""OpenStackClient plugin hooks: the `berth` API name, its version option, its client.

OSC reads API_NAME, API_VERSION_OPTION and API_VERSIONS, calls
build_option_parser() to add ``--os-berth-api-version`` and make_client() the
first time a command uses ``self.app.client_manager.berth``.  The commands
live in the ``openstack.berth.v1`` group (the major version of the option).
"""

import logging

from osc_lib import exceptions, utils

from berthclient import http, version

LOG = logging.getLogger(__name__)

API_NAME = 'berth'
API_VERSION_OPTION = 'os_berth_api_version'
API_VERSIONS = {v: 'berthclient.http.SessionClient' for v in version.SUPPORTED}
DEFAULT_API_VERSION = version.NEGOTIATE


def check_api_version(check_version):
    """Refuse a malformed or unknown version before any command runs.

    Returns True: the version was checked here, OSC need not warn about it.
    """
    if check_version not in API_VERSIONS:
        raise exceptions.CommandError(
            'berth API version %s is not supported; use %s (the highest both '
            'sides know) or one of 1.0 to %s'
            % (check_version, version.NEGOTIATE, version.MAX))
    return True


def make_client(instance):
    """A SessionClient on the Placement endpoint of the catalog (service type placement)."""
    ks_filter = {'service_type': http.SERVICE_TYPE,
                 'region_name': instance._region_name,
                 'interface': instance.interface}
    LOG.debug('Instantiating the berth client')
    return http.SessionClient(session=instance.session, ks_filter=ks_filter,
                              api_version=instance._api_version[API_NAME])


def build_option_parser(parser):
    parser.add_argument(
        '--os-berth-api-version',
        metavar='<berth-api-version>',
        default=utils.env('OS_BERTH_API_VERSION', default=version.NEGOTIATE),
        help='Placement microversion of the requests to berth\'s extensions; '
             '%s (default) negotiates the highest both sides know '
             '(Env: OS_BERTH_API_VERSION)' % version.NEGOTIATE)
    return parser
