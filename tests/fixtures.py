"""Test fixtures: a fresh configuration, a migrated SQLite file, a running berth."""

import os
import shutil
import threading

from oslo_utils import uuidutils
import requests

from cli import deployment
from common import context as berth_context
from common.conf import builder
from objects import bootstrap, database
from tests import dbengines

_TEMPLATE_LOCK = threading.Lock()
_TEMPLATES = {}


def make_conf(state_path, config_files=(), **overrides):
    """A fresh ConfigOpts (never the global one) for the embedded defaults on free ports.

    ``config_files`` are read first; the test overrides below still win.
    """
    defaults = {
        'state_path': str(state_path),
        # a host name of its own per deployment: in-process message queues are
        # shared by name within a test process, so a message left by one test
        # must never reach the next test's conductor
        'host': 'test-%s' % uuidutils.generate_uuid()[:8],
        'api.auth_strategy': 'noauth2',
        'api.placement_port': 0,
        'api.baremetal_port': 0,
        'api.threads': 8,
        'database.sqlite_synchronous': False,
    }
    return builder.build(config_files=[str(f) for f in config_files],
                         overrides={**defaults, **overrides})


def fresh_database(tmp_root, conf, scope='function'):
    """Point ``conf`` at a migrated database with the standard classes and traits.

    On SQLite (the default) a copy of a once-migrated file in ``conf.state_path``;
    with ``BERTH_TEST_DB=postgresql|mysql`` a clean database on this process's
    server, leased until the pytest ``scope`` (of the calling fixture) ends.
    Returns the connection URL.
    """
    if not dbengines.is_server():
        migrated_sqlite(tmp_root, conf.state_path)
        return 'sqlite:///' + os.path.join(str(conf.state_path), 'berth.sqlite')
    url = dbengines.lease(scope)
    conf.set_override('connection', url, group='database')
    return url


def database_section(conf):
    """The ``[database]`` lines of a config file for ``conf``'s database ('' for SQLite)."""
    url = conf.database.connection
    return '[database]\nconnection = %s\n' % url if url else ''


def migrated_sqlite(tmp_root, state_path):
    """Copy a once-migrated SQLite file into ``state_path`` (fast per-test schema)."""
    with _TEMPLATE_LOCK:
        template = _TEMPLATES.get(str(tmp_root))
        if template is None:
            tdir = os.path.join(str(tmp_root), 'template')
            conf = make_conf(tdir)
            db = database.open_database(conf)
            database.upgrade(db)
            bootstrap.sync_standards(berth_context.admin_context(db))
            db.dispose()
            template = os.path.join(tdir, 'berth.sqlite')
            _TEMPLATES[str(tmp_root)] = template
    os.makedirs(str(state_path), exist_ok=True)
    shutil.copy(template, os.path.join(str(state_path), 'berth.sqlite'))


class PlacementClient:
    """Minimal HTTP client for tests: microversion and token per call."""

    def __init__(self, base_url, version=None, token='admin'):
        self.base_url = base_url.rstrip('/')
        self.version = version
        self.token = token
        self.session = requests.Session()

    def request(self, method, path, version=None, token=None, headers=None,
                json=None, data=None, **kwargs):
        hdrs = {}
        if version is None:
            version = self.version
        if version:  # '' sends no version header
            hdrs['OpenStack-API-Version'] = 'placement %s' % version
        token = self.token if token is None else token
        if token:
            hdrs['X-Auth-Token'] = token
        hdrs.update(headers or {})
        return self.session.request(method, self.base_url + path, headers=hdrs,
                                    json=json, data=data, **kwargs)

    def get(self, path, **kw):
        return self.request('GET', path, **kw)

    def post(self, path, json=None, **kw):
        return self.request('POST', path, json=json, **kw)

    def put(self, path, json=None, **kw):
        return self.request('PUT', path, json=json, **kw)

    def delete(self, path, **kw):
        return self.request('DELETE', path, **kw)

    def close(self):
        self.session.close()


def start_embedded(conf):
    stack = deployment.Embedded(conf)
    stack.start()
    return stack


class BaremetalClient:
    """Minimal HTTP client for the /v1 API: Ironic version header per call, no token."""

    HEADER = 'X-OpenStack-Ironic-API-Version'

    def __init__(self, base_url, version='latest'):
        self.base_url = base_url.rstrip('/')
        self.version = version
        self.session = requests.Session()

    def request(self, method, path, version=None, headers=None, json=None, **kwargs):
        hdrs = {}
        version = self.version if version is None else version
        if version:  # '' sends no version header
            hdrs[self.HEADER] = version
        hdrs.update(headers or {})
        return self.session.request(method, self.base_url + path, headers=hdrs,
                                    json=json, **kwargs)

    def get(self, path, **kw):
        return self.request('GET', path, **kw)

    def post(self, path, json=None, **kw):
        return self.request('POST', path, json=json, **kw)

    def put(self, path, json=None, **kw):
        return self.request('PUT', path, json=json, **kw)

    def patch(self, path, json=None, **kw):
        return self.request('PATCH', path, json=json, **kw)

    def delete(self, path, **kw):
        return self.request('DELETE', path, **kw)

    def close(self):
        self.session.close()
