"""A small fake Keystone over real HTTP, for the unified-limits reader's unit and functional tests.

It speaks just what common.unified_limits and keystoneauth1's password
plugin ask: version discovery at ``/v3``, ``POST /v3/auth/tokens`` (any
password; the token carries a catalog with this server as ``identity``),
``GET`` of endpoints, services, regions, registered limits and limits with
keystone's query filters.  ``down = True`` makes every request but
discovery and tokens answer 503 (an outage of the limits API);
``requests`` records the paths asked (for the cache tests).  The real
Keystone is in tests/keystone_service.py (integration tier).
"""

import http.server
import json
import threading
import urllib.parse

TOKEN = 'fake-token'
REGION = 'RegionOne'
SERVICE_ID = 'svc-placement'
ENDPOINT_ID = 'ep-placement-public'


class FakeKeystone:
    def __init__(self):
        self.registered = {}        # resource_name -> default
        self.project_limits = {}    # (project, resource_name) -> limit
        self.down = False
        self.broken_body = False
        self.requests = []
        self.endpoints = [
            {'id': ENDPOINT_ID, 'service_id': SERVICE_ID, 'region_id': REGION,
             'interface': 'public', 'url': 'http://placement'},
            {'id': 'ep-placement-internal', 'service_id': SERVICE_ID, 'region_id': REGION,
             'interface': 'internal', 'url': 'http://placement-internal'},
        ]
        self.services = [{'id': SERVICE_ID, 'type': 'placement', 'name': 'placement'},
                         {'id': 'svc-compute', 'type': 'compute', 'name': 'nova'}]
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                fake._get(self)

            def do_POST(self):
                fake._post(self)

        self.server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        self.url = 'http://127.0.0.1:%d' % self.server.server_address[1]
        self.v3 = self.url + '/v3'
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def limit_paths(self):
        """The limit and endpoint reads asked so far (not discovery or tokens)."""
        return [p for p in self.requests if not p.startswith(('/v3/auth', '/v3?'))
                and p not in ('/v3', '/v3/')]

    def oslo_limit_section(self, **extra):
        lines = ['[oslo_limit]', 'auth_type = password', 'auth_url = %s' % self.v3,
                 'username = berth', 'password = secret', 'user_domain_id = default',
                 'system_scope = all']
        if 'endpoint_id' not in extra and 'endpoint_service_type' not in extra:
            extra['endpoint_id'] = ENDPOINT_ID
        lines += ['%s = %s' % kv for kv in extra.items()]
        return '\n'.join(lines) + '\n'

    # -- HTTP ------------------------------------------------------------------

    @staticmethod
    def _send(handler, status, body, headers=()):
        data = json.dumps(body).encode()
        handler.send_response(status)
        handler.send_header('Content-Type', 'application/json')
        handler.send_header('Content-Length', str(len(data)))
        for k, v in headers:
            handler.send_header(k, v)
        handler.end_headers()
        handler.wfile.write(data)

    def _version(self):
        return {'id': 'v3.14', 'status': 'stable', 'updated': '2020-04-07T00:00:00Z',
                'links': [{'rel': 'self', 'href': self.v3 + '/'}],
                'media-types': [{'base': 'application/json',
                                 'type': 'application/vnd.openstack.identity-v3+json'}]}

    def _post(self, handler):
        length = int(handler.headers.get('Content-Length') or 0)
        handler.rfile.read(length)
        self.requests.append(handler.path)
        if handler.path.rstrip('/') != '/v3/auth/tokens':
            return self._send(handler, 404, {'error': {'code': 404}})
        catalog = [{'type': 'identity', 'name': 'keystone', 'id': 'svc-identity',
                    'endpoints': [{'id': 'ep-id-%s' % i, 'interface': i, 'region': REGION,
                                   'region_id': REGION, 'url': self.v3}
                                  for i in ('public', 'internal', 'admin')]}]
        body = {'token': {'methods': ['password'], 'expires_at': '2999-01-01T00:00:00.000000Z',
                          'issued_at': '2020-01-01T00:00:00.000000Z',
                          'user': {'id': 'u-berth', 'name': 'berth',
                                   'domain': {'id': 'default', 'name': 'Default'}},
                          'system': {'all': True}, 'roles': [{'id': 'r', 'name': 'reader'}],
                          'catalog': catalog}}
        self._send(handler, 201, body, headers=[('X-Subject-Token', TOKEN)])

    def _get(self, handler):
        self.requests.append(handler.path)
        url = urllib.parse.urlsplit(handler.path)
        path = url.path.rstrip('/')
        query = dict(urllib.parse.parse_qsl(url.query))
        if path in ('', '/v3'):
            return self._send(handler, 200, {'version': self._version()})
        if handler.headers.get('X-Auth-Token') != TOKEN:
            return self._send(handler, 401, {'error': {'code': 401}})
        if self.down:
            return self._send(handler, 503, {'error': {'code': 503}})
        if self.broken_body:
            return self._send(handler, 200, {'unexpected': []})
        found = self._answer(path, query)
        if found is None:
            return self._send(handler, 404, {'error': {'code': 404}})
        self._send(handler, 200, found)

    def _answer(self, path, query):
        parts = path.split('/')[2:]
        if parts[0] == 'endpoints' and len(parts) == 2:
            match = [e for e in self.endpoints if e['id'] == parts[1]]
            return {'endpoint': match[0]} if match else None
        if parts == ['endpoints']:
            return {'endpoints': [e for e in self.endpoints if all(
                e.get(k) == v for k, v in query.items())]}
        if parts == ['services']:
            return {'services': [s for s in self.services if all(
                s.get(k) == v for k, v in query.items())]}
        if parts[0] == 'regions' and len(parts) == 2:
            return {'region': {'id': parts[1]}} if parts[1] == REGION else None
        if parts == ['registered_limits']:
            if query.get('service_id') != SERVICE_ID or query.get('region_id') != REGION:
                return {'registered_limits': []}
            return {'registered_limits': [
                {'id': 'rl-%s' % n, 'service_id': SERVICE_ID, 'region_id': REGION,
                 'resource_name': n, 'default_limit': v}
                for n, v in sorted(self.registered.items())]}
        if parts == ['limits']:
            if query.get('service_id') != SERVICE_ID or query.get('region_id') != REGION:
                return {'limits': []}
            return {'limits': [
                {'id': 'l-%s-%s' % (p, n), 'service_id': SERVICE_ID, 'region_id': REGION,
                 'project_id': p, 'resource_name': n, 'resource_limit': v}
                for (p, n), v in sorted(self.project_limits.items())
                if 'project_id' not in query or query['project_id'] == p]}
        return None
