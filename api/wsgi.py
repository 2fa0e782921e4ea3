"""WSGI entry points for gunicorn, uwsgi or mod_wsgi: ``api.wsgi:application``.

The configuration file comes from ``BERTH_CONFIG_FILE`` (default
/etc/berth/berth.conf).  ``application`` serves the Placement API,
``baremetal_application`` the bare-metal /v1 API; the process also needs
to reach the conductors over ``[DEFAULT] transport_url`` for allocation writes.
"""

import gc
import json
import logging
import os
import threading

from api.baremetal import app as baremetal_app
from api.common import startup
from api.placement import app as placement_app
from common import rpc, rpc_keys
from common.conf import builder
from conductor import rpcapi
from objects import database

LOG = logging.getLogger('berth.' + __name__)


class StartupRefused(Exception):
    """The configuration cannot serve anyone; ``str(exc)`` is the one-line reason."""


def init_application(config_files=None, factory=None):
    """The Placement app (or ``factory(conf, db, conductor=...)``'s) from the config.

    Raises StartupRefused (before opening anything) for a configuration
    the console entry points refuse too: keystone without a usable
    ``[keystone_authtoken]``.  With noauth2 (and not ``[api]
    allow_insecure_noauth``) the app answers only requests that reached
    the server on a loopback address: the WSGI server, not berth, chose
    the address it listens on.
    """
    factory = factory or placement_app.loadapp
    if config_files is None:
        config_files = [os.environ.get('BERTH_CONFIG_FILE', builder.DEFAULT_CONFIG_FILE)]
    conf = builder.build(config_files=config_files)
    builder.setup_logging(conf)
    reason = startup.keystone_error(conf) or rpc_keys.startup_error(conf)
    if reason:
        raise StartupRefused(reason)
    rpc.slow_amqp_polls()      # replies are handed on whatever the poll timeout
    app = factory(conf, database.open_database(conf),
                  conductor=rpcapi.APIConductorClient(conf))
    if conf.api.auth_strategy == 'noauth2' and not conf.api.allow_insecure_noauth:
        app = _LoopbackOnly(app, conf)
    elif conf.api.auth_strategy == 'noauth2':
        LOG.warning('auth_strategy = noauth2 with allow_insecure_noauth: anyone '
                    'who can reach the server is an administrator.')
    return app


def _local_address(environ):
    """The server address the request arrived on, when the server tells it."""
    sock = environ.get('gunicorn.socket')
    if sock is not None:
        try:
            return sock.getsockname()[0]
        except (OSError, IndexError, TypeError):
            return None
    return environ.get('SERVER_ADDR')


class _LoopbackOnly:
    """noauth2 under a WSGI server: a request that arrived on a non-loopback
    address is refused (503, the reason in the body), never served as admin."""

    def __init__(self, app, conf):
        self._app = app
        self._conf = conf
        self._warned = False

    def __call__(self, environ, start_response):
        address = _local_address(environ)
        if address is not None and not startup.is_loopback(address):
            reason = startup.noauth_bind_error(self._conf, host=address)
            if not self._warned:
                self._warned = True
                LOG.error(reason)
            return _refuse(start_response, reason)
        return self._app(environ, start_response)


def _refuse(start_response, reason):
    body = json.dumps({'errors': [{'status': 503, 'title': 'Service Unavailable',
                                   'detail': reason}]}).encode()
    start_response('503 Service Unavailable', [('Content-Type', 'application/json'),
                                               ('Content-Length', str(len(body)))])
    return [body]


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
        self._refusal = None

    def __call__(self, environ, start_response):
        if self._refusal is not None:
            return _refuse(start_response, self._refusal)
        if self._app is None:
            with self._lock:
                if self._refusal is not None:
                    return _refuse(start_response, self._refusal)
                if self._app is None:
                    try:
                        self._app = self._init()
                    except StartupRefused as exc:
                        # logged once, answered to every request: never a
                        # 500 with an empty body
                        self._refusal = str(exc)
                        LOG.error('berth refuses to serve: %s', exc)
                        return _refuse(start_response, self._refusal)
                    # what is loaded by now lives as long as the worker: keep
                    # it out of the collector's full passes, which the
                    # thousands of objects of a large answer trigger often
                    gc.freeze()
        return self._app(environ, start_response)


application = _Lazy()
baremetal_application = _Lazy(init_baremetal_application)
