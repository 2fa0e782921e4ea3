"""Keystone's REST API for tests: tokens, the tenant matrix, the catalog and unified limits.

Plain ``requests`` against ``/v3`` (no python-keystoneclient).  Administration
uses a system-scoped token of the bootstrap admin (Keystone's defaults need
``role:admin and system_scope:all`` for domains, services and limits).

The tenant matrix (``build_matrix``)::

    domain  berth-tenants
      project A: a-member (member), a-reader (reader)
      project B: b-member (member), b-reader (reader)
      domain-member: member on the domain itself, token scoped to the domain
    domain  Default
      project admin:   project-admin (the bootstrap admin, project-scoped)
      system all:      system-admin (the bootstrap admin), system-reader (reader)
      project service: service = user "berth" (service; reader on system all,
                       which oslo.limit needs to read endpoints and limits)
    catalog: service "placement" (type placement) with a public endpoint in REGION
"""

import dataclasses
import uuid

import requests

PASSWORD = 'Tenant-Passw0rd-%s' % uuid.uuid4().hex[:8]
SERVICE_USER = 'berth'
SERVICE_PROJECT = 'service'


class KeystoneRequestError(Exception):
    """Keystone answered an administrative request with an error (status and body inside)."""


@dataclasses.dataclass
class Principal:
    """One user and the scope its tokens carry (exactly one of project/domain/system)."""

    name: str
    user_id: str
    username: str
    password: str
    user_domain_id: str
    project_id: str = None
    domain_id: str = None
    system: bool = False
    roles: tuple = ()


class Identity:
    """Tokens and administration against one Keystone's ``/v3``."""

    def __init__(self, v3_url, admin_user, admin_password, region='RegionOne'):
        self.v3 = v3_url.rstrip('/')
        self.region = region
        self.http = requests.Session()
        self._admin = (admin_user, admin_password)
        self._admin_token = None
        self._role_ids = {}

    # -- tokens ------------------------------------------------------------

    def issue(self, username, password, user_domain_id='default', project_id=None,
              domain_id=None, system=False):
        """POST /v3/auth/tokens; returns (token, token body).  Unscoped when no scope is given."""
        auth = {'identity': {'methods': ['password'], 'password': {'user': {
            'name': username, 'password': password, 'domain': {'id': user_domain_id}}}}}
        if project_id:
            auth['scope'] = {'project': {'id': project_id}}
        elif domain_id:
            auth['scope'] = {'domain': {'id': domain_id}}
        elif system:
            auth['scope'] = {'system': {'all': True}}
        resp = self.http.post(self.v3 + '/auth/tokens', json={'auth': auth}, timeout=30)
        if resp.status_code != 201:
            raise KeystoneRequestError('token for %s: %s %s'
                                       % (username, resp.status_code, resp.text))
        return resp.headers['X-Subject-Token'], resp.json()['token']

    def admin_token(self):
        """A system-scoped token of the bootstrap admin (cached)."""
        if self._admin_token is None:
            self._admin_token = self.issue(*self._admin, system=True)[0]
        return self._admin_token

    # -- administration ----------------------------------------------------

    def call(self, method, path, json=None, expect=(200, 201, 204)):
        """An admin request to ``/v3`` + ``path``; the JSON answer (None for 204)."""
        resp = self.http.request(method, self.v3 + path, json=json, timeout=30,
                                 headers={'X-Auth-Token': self.admin_token()})
        if resp.status_code not in expect:
            raise KeystoneRequestError('%s %s: %s %s' % (method, path, resp.status_code,
                                                         resp.text))
        return resp.json() if resp.content else None

    def _find(self, collection, key, **query):
        found = self.call('GET', '/%s' % collection + _query(query))[key]
        return found[0] if found else None

    def _ensure(self, collection, key, body, **query):
        """Create one ``key`` object in ``collection``; on 409 the existing one. (id, created)."""
        resp = self.call('POST', '/' + collection, {key: body}, expect=(201, 409))
        if resp and key in resp:
            return resp[key]['id'], True
        return self._find(collection, collection, **query)['id'], False

    def ensure_domain(self, name):
        return self._ensure('domains', 'domain', {'name': name}, name=name)[0]

    def ensure_project(self, name, domain_id='default'):
        return self._ensure('projects', 'project', {'name': name, 'domain_id': domain_id},
                            name=name, domain_id=domain_id)[0]

    def ensure_user(self, name, password, domain_id='default'):
        """A user with this password (reset when the user exists)."""
        user_id, created = self._ensure('users', 'user', {
            'name': name, 'password': password, 'domain_id': domain_id},
            name=name, domain_id=domain_id)
        if not created:
            self.call('PATCH', '/users/%s' % user_id, {'user': {'password': password}})
        return user_id

    def role_id(self, name):
        if name not in self._role_ids:
            found = self._find('roles', 'roles', name=name)
            self._role_ids[name] = found['id'] if found else self.call(
                'POST', '/roles', {'role': {'name': name}})['role']['id']
        return self._role_ids[name]

    def grant(self, role, user_id, project_id=None, domain_id=None, system=False):
        """A role assignment on a project, a domain or the whole system (idempotent)."""
        if project_id:
            target = '/projects/%s' % project_id
        elif domain_id:
            target = '/domains/%s' % domain_id
        elif system:
            target = '/system'
        else:
            raise ValueError('grant needs a project, a domain or system')
        self.call('PUT', '%s/users/%s/roles/%s' % (target, user_id, self.role_id(role)))

    def ensure_service(self, service_type, name, url, interfaces=('public', 'internal')):
        """A catalog service with endpoints at ``url``: (service id, public endpoint id).

        When it exists, its endpoints' URL is updated to ``url``.
        """
        found = self._find('services', 'services', type=service_type)
        service_id = found['id'] if found else self.call('POST', '/services', {'service': {
            'type': service_type, 'name': name}})['service']['id']
        have = {e['interface']: e for e in self.call(
            'GET', '/endpoints' + _query({'service_id': service_id}))['endpoints']}
        for interface in interfaces:
            if interface in have:
                self.call('PATCH', '/endpoints/%s' % have[interface]['id'],
                          {'endpoint': {'url': url}})
            else:
                have[interface] = self.call('POST', '/endpoints', {'endpoint': {
                    'service_id': service_id, 'interface': interface, 'url': url,
                    'region_id': self.region}})['endpoint']
        return service_id, have['public']['id']

    # -- unified limits ------------------------------------------------------

    def set_registered_limit(self, service_id, resource_name, default_limit):
        """Create or update the registered (default) limit in this region; its id."""
        found = self._find('registered_limits', 'registered_limits', service_id=service_id,
                           region_id=self.region, resource_name=resource_name)
        if found:
            self.call('PATCH', '/registered_limits/%s' % found['id'],
                      {'registered_limit': {'default_limit': default_limit}})
            return found['id']
        return self.call('POST', '/registered_limits', {'registered_limits': [{
            'service_id': service_id, 'region_id': self.region,
            'resource_name': resource_name, 'default_limit': default_limit}]}
        )['registered_limits'][0]['id']

    def set_project_limit(self, project_id, service_id, resource_name, resource_limit):
        """Create or update a project's limit (an override of the registered one); its id.

        Keystone refuses a project limit without a registered limit of that name.
        """
        found = self._find('limits', 'limits', project_id=project_id, service_id=service_id,
                           region_id=self.region, resource_name=resource_name)
        if found:
            self.call('PATCH', '/limits/%s' % found['id'],
                      {'limit': {'resource_limit': resource_limit}})
            return found['id']
        return self.call('POST', '/limits', {'limits': [{
            'project_id': project_id, 'service_id': service_id, 'region_id': self.region,
            'resource_name': resource_name, 'resource_limit': resource_limit}]}
        )['limits'][0]['id']

    def delete_project_limit(self, limit_id):
        self.call('DELETE', '/limits/%s' % limit_id)

    def delete_registered_limit(self, registered_limit_id):
        """Keystone refuses (403) while a project limit of that name exists."""
        self.call('DELETE', '/registered_limits/%s' % registered_limit_id)

    def limits(self, service_id, project_id=None):
        """{resource_name: limit}: registered defaults overridden by ``project_id``'s limits."""
        query = {'service_id': service_id, 'region_id': self.region}
        found = {r['resource_name']: r['default_limit'] for r in self.call(
            'GET', '/registered_limits' + _query(query))['registered_limits']}
        if project_id:
            found.update({r['resource_name']: r['resource_limit'] for r in self.call(
                'GET', '/limits' + _query(dict(query, project_id=project_id)))['limits']})
        return found


def _query(params):
    return ('?' + '&'.join('%s=%s' % kv for kv in sorted(params.items()))) if params else ''


class TenantMatrix:
    """The users of the tenant matrix and tokens for them (see the module docstring).

    ``token(name)`` mints (and caches) a token for a principal; ``headers(name)``
    is ``{'X-Auth-Token': token}``.  ``projects`` maps 'A', 'B', 'service',
    'admin' to project ids; ``principals`` maps names to :class:`Principal`.
    """

    def __init__(self, identity):
        self.identity = identity
        self.domain_id = None
        self.projects = {}
        self.principals = {}
        self.placement_service_id = None
        self.placement_endpoint_id = None
        self._tokens = {}

    def token(self, name, fresh=False):
        if fresh or name not in self._tokens:
            self._tokens[name] = self.issue(name)[0]
        return self._tokens[name]

    def issue(self, name):
        """A new token for ``name``: (token, token body)."""
        p = self.principals[name]
        return self.identity.issue(p.username, p.password, p.user_domain_id,
                                   project_id=p.project_id, domain_id=p.domain_id,
                                   system=p.system)

    def headers(self, name):
        return {'X-Auth-Token': self.token(name)}

    @property
    def service(self):
        """The service user berth's keystonemiddleware (and oslo.limit) log in as."""
        return self.principals['service']


def build_matrix(identity, admin_user, admin_password, placement_url):
    """Create (idempotently) the tenant matrix and the placement catalog entry."""
    matrix = TenantMatrix(identity)
    ident = identity
    dom = matrix.domain_id = ident.ensure_domain('berth-tenants')
    admin_id = ident._find('users', 'users', name=admin_user)['id']
    matrix.projects = {'A': ident.ensure_project('project-a', dom),
                       'B': ident.ensure_project('project-b', dom),
                       'service': ident.ensure_project(SERVICE_PROJECT),
                       'admin': ident._find('projects', 'projects', name='admin')['id']}

    def add(name, role, project=None, domain=None, system=False, user_domain=dom,
            username=None, password=PASSWORD, user_id=None):
        username = username or name
        if user_id is None:
            user_id = ident.ensure_user(username, password, user_domain)
        project_id = matrix.projects[project] if project else None
        ident.grant(role, user_id, project_id=project_id, domain_id=domain, system=system)
        matrix.principals[name] = Principal(
            name=name, user_id=user_id, username=username, password=password,
            user_domain_id=user_domain, project_id=project_id, domain_id=domain,
            system=system, roles=(role,))
        return user_id

    for side in ('A', 'B'):
        add('%s-member' % side.lower(), 'member', project=side)
        add('%s-reader' % side.lower(), 'reader', project=side)
    add('domain-member', 'member', domain=dom)
    add('system-admin', 'admin', system=True, user_domain='default', username=admin_user,
        password=admin_password, user_id=admin_id)
    add('project-admin', 'admin', project='admin', user_domain='default',
        username=admin_user, password=admin_password, user_id=admin_id)
    add('system-reader', 'reader', system=True, user_domain='default')
    service_id = add('service', 'service', project='service', user_domain='default',
                     username=SERVICE_USER)
    ident.grant('reader', service_id, system=True)    # oslo.limit reads endpoints/limits
    matrix.placement_service_id, matrix.placement_endpoint_id = ident.ensure_service(
        'placement', 'placement', placement_url)
    return matrix


def authtoken_section(keystone_v3, service):
    """``[keystone_authtoken]`` for berth's keystonemiddleware, logging in as ``service``."""
    return '\n'.join([
        '[keystone_authtoken]',
        'auth_type = password',
        'www_authenticate_uri = %s' % keystone_v3,
        'auth_url = %s' % keystone_v3,
        'username = %s' % service.username,
        'password = %s' % service.password,
        'user_domain_id = %s' % service.user_domain_id,
        'project_name = %s' % SERVICE_PROJECT,
        'project_domain_id = default',
        'interface = public',
        'service_token_roles_required = true',
        '']) + '\n'


def oslo_limit_section(keystone_v3, service, endpoint_id):
    """``[oslo_limit]`` for oslo.limit: the service user, system-scoped reader, and the endpoint."""
    return '\n'.join([
        '[oslo_limit]',
        'auth_type = password',
        'auth_url = %s' % keystone_v3,
        'username = %s' % service.username,
        'password = %s' % service.password,
        'user_domain_id = %s' % service.user_domain_id,
        'system_scope = all',
        'endpoint_id = %s' % endpoint_id,
        '']) + '\n'
