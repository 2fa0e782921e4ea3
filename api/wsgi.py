"""WSGI entry point for gunicorn, uwsgi or mod_wsgi: ``api.wsgi:application``.

The configuration file comes from ``BERTH_CONFIG_FILE`` (default
/etc/berth/berth.conf).  The Placement API is served; the process also needs
to reach the conductors over ``[DEFAULT] transport_url`` for allocation writes.
"""

import os

from oslo_config import cfg
from oslo_log import log as oslo_log

from api.placement import app as placement_app
from common import conf as berth_conf
from conductor import rpcapi
from objects import database


def init_application(config_files=None):
    conf = cfg.ConfigOpts()
    berth_conf.register_opts(conf)
    oslo_log.register_options(conf)
    if config_files is None:
        config_files = [os.environ.get('BERTH_CONFIG_FILE', '/etc/berth/berth.conf')]
    conf([], project='berth', default_config_files=[f for f in config_files
                                                    if os.path.exists(f)])
    oslo_log.setup(conf, 'berth')
    return placement_app.loadapp(conf, database.open_database(conf),
                                 conductor=rpcapi.APIConductorClient(conf))


class _Lazy:
    """Build the app on first request, in the worker process (after fork)."""

    def __init__(self):
        self._app = None

    def __call__(self, environ, start_response):
        if self._app is None:
            self._app = init_application()
        return self._app(environ, start_response)


application = _Lazy()
