"""Keystone unified limits read over HTTP with keystoneauth1, with a bounded cache.

``[quota] limits_source = keystone`` takes quota limits from Keystone:
registered limits (``GET /v3/registered_limits?service_id=&region_id=``) are
the defaults and a project's limits (``GET /v3/limits?...&project_id=``)
override them.  The service and region are those of berth's endpoint,
found by ``[oslo_limit] endpoint_id`` or looked up by service type/name,
region and interface, as oslo.limit does; the option names are oslo.limit's.
oslo.limit itself is not used: it reads only oslo.config's global object.

Cache: the registered limits and each project's limits are kept for
``[quota] limits_cache_ttl`` seconds; at most ``limits_cache_size``
projects (least recently used dropped).  When Keystone cannot be read, a
value read less than ``limits_stale_max_age`` seconds ago is still used
(with a warning); otherwise :class:`common.exception.QuotaLimitsUnavailable`
(503): a claim is refused rather than let through unlimited.

A limit of -1 is Keystone's "unlimited": such a name is left out.
"""

from __future__ import annotations

import collections
import logging
import threading
import time
import urllib.parse
import weakref

from common import exception

LOG = logging.getLogger('berth.' + __name__)
GROUP = 'oslo_limit'
UNLIMITED = -1
# seconds for one HTTP request to Keystone when [oslo_limit] timeout is unset:
# a claim waits for it (before its transaction), so it must not hang
DEFAULT_TIMEOUT = 10


class _Unreadable(Exception):
    """Keystone could not be read (the reason is the message)."""


class _Entry:
    __slots__ = ('at', 'value')

    def __init__(self, at, value):
        self.at = at
        self.value = value


class LimitReader:
    """The effective limits ``{resource_name: limit}`` of projects, from Keystone.

    :param get: ``get(path) -> (status, json body)`` for a ``/v3``-relative
        path; by default keystoneauth1 from ``[oslo_limit]``.
    :param clock: monotonic seconds (tests pass a fake one).
    """

    def __init__(self, conf, get=None, clock=time.monotonic):
        quota = conf.quota
        self.ttl = quota.limits_cache_ttl
        self.stale_max_age = max(quota.limits_stale_max_age, self.ttl)
        self.size = quota.limits_cache_size
        self._options = conf[GROUP]
        self._conf = conf
        self._get = get
        self._clock = clock
        self._lock = threading.Lock()
        self._endpoint = None          # (service_id, region_id) once found
        self._registered = None        # _Entry of {name: default}
        self._projects = collections.OrderedDict()   # project -> _Entry
        self._reading = {}             # key -> lock: one read per key at a time

    # -- public ----------------------------------------------------------------

    def limits(self, project_id: str) -> dict[str, int]:
        """Registered defaults overridden by the project's limits (-1 names left out).

        Raises QuotaLimitsUnavailable when Keystone cannot be read and
        nothing young enough is cached.
        """
        registered = self._cached(None, lambda: self._read_registered(), project_id)
        own = self._cached(project_id, lambda: self._read_project(project_id), project_id)
        merged = dict(registered)
        merged.update(own)
        return {name: n for name, n in merged.items() if n != UNLIMITED}

    def warm(self):
        """Log in, find the endpoint and read the registered limits now (errors logged).

        A conductor calls it once at start so its first claims do not
        wait for all of that.
        """
        try:
            self._cached(None, self._read_registered, None)
        except exception.QuotaLimitsUnavailable as exc:
            LOG.warning('Keystone limits not readable at start: %s', exc.message)

    def forget(self, project_id=None):
        """Drop the cached limits of one project (None: everything)."""
        with self._lock:
            if project_id is None:
                self._registered = None
                self._projects.clear()
            else:
                self._projects.pop(project_id, None)

    # -- cache -----------------------------------------------------------------

    def _lookup(self, key):
        with self._lock:
            if key is None:
                return self._registered
            entry = self._projects.get(key)
            if entry is not None:
                self._projects.move_to_end(key)
            return entry

    def _store(self, key, entry):
        with self._lock:
            if key is None:
                self._registered = entry
                return
            self._projects[key] = entry
            self._projects.move_to_end(key)
            while len(self._projects) > self.size:
                self._projects.popitem(last=False)

    def _cached(self, key, read, project_id):
        entry = self._lookup(key)
        if entry is not None and self._clock() - entry.at < self.ttl:
            return entry.value
        # claims of one project arriving together wait for one read
        with self._lock:
            reading = self._reading.setdefault(key, threading.Lock())
        with reading:
            try:
                return self._read_through(key, read, project_id)
            finally:
                with self._lock:
                    self._reading.pop(key, None)

    def _read_through(self, key, read, project_id):
        now = self._clock()
        entry = self._lookup(key)
        if entry is not None and now - entry.at < self.ttl:
            return entry.value          # read by the thread we waited for
        try:
            try:
                value = read()
            except (KeyError, TypeError, ValueError) as exc:
                raise _Unreadable('unexpected answer from Keystone: %r' % exc)
        except _Unreadable as exc:
            if entry is not None and now - entry.at < self.stale_max_age:
                LOG.warning('Keystone limits unreadable (%s); using the %s limits read '
                            '%.0f s ago', exc, 'registered' if key is None else
                            'project %s' % key, now - entry.at)
                return entry.value
            LOG.error('Keystone limits of project %s unreadable and none cached young '
                      'enough: %s', project_id, exc)
            raise exception.QuotaLimitsUnavailable(project=project_id, reason=str(exc))
        self._store(key, _Entry(now, value))
        return value

    # -- Keystone ----------------------------------------------------------------

    def _request(self, path):
        if self._get is None:
            self._get = _keystoneauth_get(self._conf)
        try:
            status, body = self._get(path)
        except _Unreadable:
            raise
        except Exception as exc:      # keystoneauth1: connection, auth, discovery ...
            raise _Unreadable('%s: %s' % (type(exc).__name__, str(exc).splitlines()[0]
                                          if str(exc) else ''))
        if status != 200:
            raise _Unreadable('GET /v3%s answered %s' % (path, status))
        return body

    def _find_endpoint(self):
        if self._endpoint is not None:
            return self._endpoint
        opts = self._options
        if opts.endpoint_id:
            body = self._request('/endpoints/%s' % urllib.parse.quote(opts.endpoint_id))
            endpoint = body['endpoint']
        else:
            endpoint = self._lookup_endpoint(opts)
        self._endpoint = (endpoint['service_id'], endpoint.get('region_id'))
        return self._endpoint

    def _lookup_endpoint(self, opts):
        if not (opts.endpoint_service_type or opts.endpoint_service_name):
            raise _Unreadable('[oslo_limit] needs endpoint_id, or endpoint_service_type '
                              'or endpoint_service_name')
        services = self._request('/services' + _query(
            type=opts.endpoint_service_type, name=opts.endpoint_service_name))['services']
        if len(services) != 1:
            raise _Unreadable('%d services match [oslo_limit] endpoint_service_type/'
                              'endpoint_service_name (need exactly one)' % len(services))
        region_id = None
        if opts.endpoint_region_name:
            region_id = self._request('/regions/%s' % urllib.parse.quote(
                opts.endpoint_region_name))['region']['id']
        interface = opts.endpoint_interface
        interface = interface[:-3] if interface.endswith('URL') else interface
        endpoints = self._request('/endpoints' + _query(
            service_id=services[0]['id'], region_id=region_id,
            interface=interface))['endpoints']
        if len(endpoints) != 1:
            raise _Unreadable('%d endpoints match the [oslo_limit] lookup (need '
                              'exactly one)' % len(endpoints))
        return endpoints[0]

    def _read_registered(self):
        service_id, region_id = self._find_endpoint()
        body = self._request('/registered_limits' + _query(
            service_id=service_id, region_id=region_id))
        return {r['resource_name']: int(r['default_limit'])
                for r in body['registered_limits']}

    def _read_project(self, project_id):
        service_id, region_id = self._find_endpoint()
        body = self._request('/limits' + _query(
            service_id=service_id, region_id=region_id, project_id=project_id))
        # keystone filters by project_id; a domain-level limit has none
        return {r['resource_name']: int(r['resource_limit']) for r in body['limits']
                if r.get('project_id') == project_id}


def _query(**params):
    present = {k: v for k, v in params.items() if v is not None}
    return ('?' + urllib.parse.urlencode(sorted(present.items()))) if present else ''


def _keystoneauth_get(conf):
    """``get(path)`` through keystoneauth1 from ``[oslo_limit]`` (identity v3)."""
    try:
        from keystoneauth1 import adapter, loading
        from keystoneauth1 import exceptions as ks_exc
    except ImportError:
        raise _Unreadable('keystoneauth1 is not installed (berth\'s [keystone] extra)')
    opts = conf[GROUP]
    try:
        auth = loading.load_auth_from_conf_options(conf, GROUP)
        session = loading.load_session_from_conf_options(
            conf, GROUP, auth=auth, timeout=opts.timeout or DEFAULT_TIMEOUT)
    except (ks_exc.ClientException, ValueError) as exc:
        raise _Unreadable('[oslo_limit] cannot be used: %s' % str(exc).splitlines()[0])
    if auth is None:
        raise _Unreadable('[oslo_limit] has no auth_type')
    client = adapter.Adapter(
        session, auth=auth, service_type=opts.service_type or 'identity',
        service_name=opts.service_name, interface=opts.valid_interfaces,
        region_name=opts.region_name, endpoint_override=opts.endpoint_override,
        version='3.0', connect_retries=opts.connect_retries,
        connect_retry_delay=opts.connect_retry_delay,
        status_code_retries=opts.status_code_retries,
        status_code_retry_delay=opts.status_code_retry_delay,
        retriable_status_codes=opts.retriable_status_codes)

    def get(path):
        resp = client.get(path, raise_exc=False)
        return resp.status_code, (resp.json() if resp.status_code == 200 else None)
    return get


# id(conf) -> LimitReader, dropped when the conf is collected
_READERS: dict[int, LimitReader] = {}
_READERS_LOCK = threading.Lock()


def _drop(key):
    with _READERS_LOCK:
        _READERS.pop(key, None)


def reader_for(conf) -> LimitReader:
    """The process's one :class:`LimitReader` of ``conf`` (its cache is shared).

    A ConfigOpts is a mapping (unhashable), so readers are kept by ``id``
    and forgotten when their conf is garbage collected.
    """
    key = id(conf)
    with _READERS_LOCK:
        reader = _READERS.get(key)
        if reader is None or reader._conf is not conf:
            reader = _READERS[key] = LimitReader(conf)
            weakref.finalize(conf, _drop, key)
        return reader
