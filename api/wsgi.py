"""WSGI entry points for gunicorn, uwsgi or mod_wsgi: ``api.wsgi:application``.

The configuration file comes from ``BERTH_CONFIG_FILE`` (default
/etc/berth/berth.conf).  ``application`` serves the Placement API,
``baremetal_application`` the bare-metal /v1 API; the process also needs
to reach the conductors over ``[DEFAULT] transport_url`` for allocation writes.
"""

import gc
import os
import threading

from api.baremetal import app as baremetal_app
from api.placement import app as placement_app
from common.conf import builder
from conductor import rpcapi
from objects import database


def init_application(config_files=None, factory=None):
    """The Placement app (or ``factory(conf, db, conductor=...)``'s) from the config."""
    factory = factory or placement_app.loadapp
    if config_files is None:
        config_files = [os.environ.get('BERTH_CONFIG_FILE', builder.DEFAULT_CONFIG_FILE)]
    conf = builder.build(config_files=config_files)
    builder.setup_logging(conf)
    return factory(conf, database.open_database(conf),
                   conductor=rpcapi.APIConductorClient(conf))


def init_baremetal_application(config_files=None):
    """The bare-metal (Ironic /v1) app: ``api.wsgi:baremetal_application``."""
    return init_application(config_files, factory=baremetal_app.loadapp)


class _Lazy:
    """Build the app on first request, in the worker process (after fork).

    Threaded workers (gunicorn gthread, uwsgi threads) send their first
    requests concurrently: the app is built once, under a lock, or every
    racing thread would open its own database pool, broker connection and
    ring watcher and leak all but one.
    """

    def __init__(self, init=init_application):
        self._app = None
        self._init = init
        self._lock = threading.Lock()

    def __call__(self, environ, start_response):
        if self._app is None:
            with self._lock:
                if self._app is None:
                    self._app = self._init()
                    # what is loaded by now lives as long as the worker: keep
                    # it out of the collector's full passes, which the
                    # thousands of objects of a large answer trigger often
                    gc.freeze()
        return self._app(environ, start_response)


application = _Lazy()
baremetal_application = _Lazy(init_baremetal_application)
