"""The fuzzing harness: both WSGI apps driven in process over a real migrated SQLite
file and real in-process conductors; every answer checked for 5xx, every rejected
request checked to have changed nothing (all tables, before and after)."""

import json
import os
import sqlite3
import time
import urllib.parse

from hypothesis import HealthCheck, given, settings
import webob

from api.baremetal import app as baremetal_app
from api.placement import app as placement_app

ADMIN = {'X-Auth-Token': 'admin'}
JSON = 'application/json'


class Snapshot:
    """Every row of every table of the SQLite file, read over a connection of its own.

    ``PRAGMA data_version`` on that connection changes exactly when another
    connection commits, so a full read is only needed after a commit.
    """

    def __init__(self, path):
        self.conn = sqlite3.connect(path, check_same_thread=False)
        self.version = None
        self.rows = None
        self.refresh()

    def _data_version(self):
        return self.conn.execute('PRAGMA data_version').fetchone()[0]

    def _read(self):
        tables = [r[0] for r in self.conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return {t: self.conn.execute('SELECT * FROM "%s" ORDER BY rowid' % t).fetchall()
                for t in tables}

    def refresh(self):
        self.version = self._data_version()
        self.rows = self._read()

    def changes(self):
        """Tables whose rows differ from the last refresh ({} when none); refreshes."""
        if self._data_version() == self.version:
            return {}
        before = self.rows
        self.refresh()
        return {t: (before.get(t), rows) for t, rows in self.rows.items()
                if before.get(t) != rows}

    def close(self):
        self.conn.close()


class Failure(AssertionError):
    pass


class Harness:
    """Sends requests to the in-process apps and checks each answer."""

    def __init__(self, stack):
        self.stack = stack
        conf = stack.conf
        self.apps = {
            'placement': placement_app.loadapp(conf, stack.db, stack.conductor_api),
            'baremetal': baremetal_app.loadapp(conf, stack.db, stack.conductor_api),
        }
        self.max_body = conf.api.max_request_body_size
        self.snapshot = Snapshot(os.path.join(conf.state_path, 'berth.sqlite'))
        self.count = 0
        self.statuses = {}

    def close(self):
        self.snapshot.close()

    def raw(self, api, method, path, body=None, headers=None):
        """One request; the webob response (no checks)."""
        req = webob.Request.blank(path, method=method)
        req.headers.update(headers or {})
        if body is not None:
            req.body = body
            if 'Content-Type' not in (headers or {}):
                req.content_type = JSON
        return req.get_response(self.apps[api])

    def call(self, api, method, path, body=None, headers=None):
        """One request, checked: no 5xx, and nothing changed unless it succeeded."""
        resp = self.raw(api, method, path, body, headers)
        self.count += 1
        self.statuses[resp.status_int] = self.statuses.get(resp.status_int, 0) + 1
        where = '%s %s %s' % (api, method, path[:300])
        if resp.status_int >= 500:
            raise Failure('%s answered %s: %s\nheaders=%r\nbody=%r' % (
                where, resp.status, resp.body[:2000], headers,
                None if body is None else body[:2000]))
        if resp.status_int < 300 and api == 'baremetal' and method == 'POST':
            self._settle_node_allocations()
        changes = self.snapshot.changes()
        if resp.status_int >= 400 and changes:
            raise Failure('%s was rejected (%s) but changed tables %s\nbody=%r\n%r' % (
                where, resp.status, sorted(changes), None if body is None else body[:500],
                changes))
        return resp

    def _settle_node_allocations(self, timeout=30):
        """Wait until the conductors finished every cast node allocation."""
        deadline = time.monotonic() + timeout
        while self.snapshot.conn.execute(
                "SELECT count(*) FROM node_allocations WHERE state = 'allocating'"
        ).fetchone()[0]:
            if time.monotonic() > deadline:
                raise Failure('node allocations left allocating')
            time.sleep(0.01)

    def json(self, api, method, path, data, headers=None):
        """A well-formed JSON request as admin (for seeding); asserts success."""
        hdrs = dict(ADMIN, **(headers or {}))
        body = None if data is None else json.dumps(data).encode()
        resp = self.call(api, method, path, body, hdrs)
        assert resp.status_int < 400, (path, resp.status, resp.body)
        return resp.json_body if resp.body and resp.content_type == JSON else None


def quote(segment):
    """A path segment as a client would send it (percent-encoded UTF-8)."""
    return urllib.parse.quote(segment.encode('utf-8', 'surrogatepass'), safe='')


def query(pairs):
    """A query string from (key, value) pairs, repeated keys allowed."""
    return '&'.join('%s=%s' % (quote(k), quote(v)) for k, v in pairs)


def settings_for(budget):
    """Reproducible hypothesis settings for ``budget`` examples (one request each)."""
    return settings(max_examples=budget, derandomize=True, deadline=None,
                    database=None, suppress_health_check=list(HealthCheck),
                    print_blob=True)


def run(fuzz, api, requests, budget):
    """Send ``budget`` requests drawn from ``requests``; assert each one's checks."""
    @settings_for(budget)
    @given(requests)
    def one(request):
        method, path, body, headers = request
        fuzz.call(api, method, path, body, headers)

    one()
    print('\n%s: %d requests, statuses %s' % (api, fuzz.count, dict(sorted(
        fuzz.statuses.items()))))
    # the tier's request count is part of its contract (hypothesis could stop
    # early only if it ran out of distinct inputs)
    assert fuzz.count >= budget, fuzz.count
