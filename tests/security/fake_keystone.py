"""A fake Keystone v3 identity server on loopback: the process edge keystonemiddleware talks to.

It answers version discovery, issues a token to the service user (password
auth) and validates the user tokens it was given; anything else is a 404.
"""

import datetime
import http.server
import json
import threading

SERVICE_PASSWORD = 'S3rvice-Passw0rd-do-not-log'


def _when(delta):
    when = datetime.datetime.now(datetime.UTC) + delta
    return when.strftime('%Y-%m-%dT%H:%M:%S.000000Z')


class FakeKeystone:
    """``tokens`` maps a user token to (user, project, roles)."""

    def __init__(self):
        self.tokens = {}
        self.service_logins = 0
        self.validations = 0
        self._server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self):
        return 'http://127.0.0.1:%d' % self._server.server_address[1]

    def start(self):
        self._thread.start()
        return self

    def stop(self):
        self._server.shutdown()
        self._server.server_close()

    def _token_body(self, user, project, roles):
        endpoints = [{'id': 'e-%s' % iface, 'interface': iface, 'region': 'RegionOne',
                      'region_id': 'RegionOne', 'url': self.url + '/v3'}
                     for iface in ('public', 'internal', 'admin')]
        return {'token': {
            'methods': ['password'], 'expires_at': _when(datetime.timedelta(hours=1)),
            'issued_at': _when(datetime.timedelta(0)), 'audit_ids': ['a' * 22],
            'user': {'id': user, 'name': user,
                     'domain': {'id': 'default', 'name': 'Default'}},
            'project': {'id': project, 'name': project,
                        'domain': {'id': 'default', 'name': 'Default'}},
            'roles': [{'id': 'r-' + r, 'name': r} for r in roles],
            'catalog': [{'type': 'identity', 'name': 'keystone', 'id': 'identity',
                         'endpoints': endpoints}]}}

    def _handler(self):
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep the test output clean
                pass

            def _send(self, status, body=None, headers=None):
                data = json.dumps(body).encode() if body is not None else b''
                self.send_response(status)
                self.send_header('Content-Type', 'application/json')
                self.send_header('Content-Length', str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def _version(self):
                return {'id': 'v3.14', 'status': 'stable', 'updated': '2020-01-01T00:00:00Z',
                        'links': [{'rel': 'self', 'href': fake.url + '/v3/'}],
                        'media-types': [{'base': 'application/json',
                                         'type': 'application/vnd.openstack.identity-v3+json'}]}

            def do_GET(self):
                path = self.path.rstrip('/')
                if path == '':
                    return self._send(300, {'versions': {'values': [self._version()]}})
                if path == '/v3':
                    return self._send(200, {'version': self._version()})
                if path == '/v3/auth/tokens':
                    fake.validations += 1
                    found = fake.tokens.get(self.headers.get('X-Subject-Token'))
                    if found is None:
                        return self._send(404, {'error': {'code': 404,
                                                          'message': 'not found'}})
                    return self._send(200, fake._token_body(*found),
                                      {'X-Subject-Token': self.headers['X-Subject-Token']})
                return self._send(404, {'error': {'code': 404, 'message': 'not found'}})

            def do_POST(self):
                length = int(self.headers.get('Content-Length') or 0)
                body = json.loads(self.rfile.read(length) or b'{}')
                if self.path.rstrip('/') != '/v3/auth/tokens':
                    return self._send(404, {'error': {'code': 404}})
                user = body['auth']['identity']['password']['user']
                if user.get('password') != SERVICE_PASSWORD:
                    return self._send(401, {'error': {'code': 401,
                                                      'message': 'bad password'}})
                fake.service_logins += 1
                return self._send(201, fake._token_body('berth', 'service', ['service']),
                                  {'X-Subject-Token': 'service-token'})

        return Handler


def authtoken_config(identity_url):
    """The ``[keystone_authtoken]`` section pointing at the fake identity server."""
    return '\n'.join([
        '[keystone_authtoken]',
        'www_authenticate_uri = %s/v3' % identity_url,
        'auth_url = %s/v3' % identity_url,
        'auth_type = password',
        'username = berth',
        'password = %s' % SERVICE_PASSWORD,
        'project_name = service',
        'user_domain_name = Default',
        'project_domain_name = Default',
        'interface = public',
        'service_token_roles_required = true',
        '']) + '\n'
