"""Options of the ``[oslo_limit]`` group: how berth reads Keystone unified limits.

The names are oslo.limit's own (``endpoint_id``, ``endpoint_service_type``,
..., plus keystoneauth1's auth, session and adapter options), so an
``[oslo_limit]`` section written for nova or glance works unchanged.  berth
does not use the oslo.limit library itself (it reads only the global
configuration object); it reads the limits with keystoneauth1 (common.unified_limits).
The keystoneauth1 options are there only when keystoneauth1 is installed
(berth's ``[keystone]`` extra).
"""

from oslo_config import cfg

from common.conf import group

try:
    from keystoneauth1 import loading as ks_loading
except ImportError:    # pragma: no cover - the [keystone] extra is not installed
    ks_loading = None  # type: ignore[assignment]  # callers test for None: extra absent

_SAME = (' Same option as oslo.limit\'s, so a section written for another '
         'service carries over.')

opts = [
    cfg.StrOpt('endpoint_id',
               help='The id of berth\'s (placement\'s) endpoint in the '
                    'Keystone catalog; its service and region select the '
                    'limits. When unset the endpoint is looked up by '
                    'endpoint_service_type/endpoint_service_name, '
                    'endpoint_region_name and endpoint_interface.' + _SAME),
    cfg.StrOpt('endpoint_service_name',
               help='Service name for the endpoint lookup.' + _SAME),
    cfg.StrOpt('endpoint_service_type',
               help='Service type for the endpoint lookup (e.g. '
                    'placement).' + _SAME),
    cfg.StrOpt('endpoint_region_name',
               help='Region of the endpoint for the lookup.' + _SAME),
    cfg.StrOpt('endpoint_interface', default='publicURL',
               choices=['public', 'publicURL', 'internal', 'internalURL',
                        'admin', 'adminURL'],
               help='Interface of the endpoint for the lookup (a "URL" '
                    'suffix is ignored).' + _SAME),
]

HELP = ('Keystone unified limits ([quota] limits_source = keystone). The '
        'option names are oslo.limit\'s; the credentials are a keystoneauth1 '
        'auth plugin (auth_type, auth_url, username, ..., system_scope = '
        'all: the user needs to read endpoints and limits, e.g. the reader '
        'role on the system).')


def _ksa_opts():
    if ks_loading is None:
        return []
    return (ks_loading.get_session_conf_options()
            + ks_loading.get_auth_common_conf_options()
            + ks_loading.get_auth_plugin_conf_options('password')
            + ks_loading.get_adapter_conf_options(include_deprecated=False))


GROUP = group.OptionGroup('oslo_limit', 'Keystone unified limits', opts, help=HELP)


def register_opts(conf):
    """berth's endpoint options and keystoneauth1's session, auth and adapter ones.

    The options of the chosen auth plugin are registered when it is loaded
    (common.unified_limits).
    """
    GROUP.register(conf)
    if ks_loading is not None:
        ks_loading.register_session_conf_options(conf, GROUP.name)
        ks_loading.register_auth_conf_options(conf, GROUP.name)
        ks_loading.register_adapter_conf_options(conf, GROUP.name, include_deprecated=False)


def list_opts():
    return [(GROUP._group(), GROUP.opts + _ksa_opts())]
