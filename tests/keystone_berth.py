"""berth behind keystonemiddleware, validating tokens of a real Keystone (tests.keystone_service).

``config_text`` is what an operator would write: ``[api] auth_strategy =
keystone``, a ``[keystone_authtoken]`` logging in as the matrix's service user
(no memcached: keystonemiddleware caches in process) and an ``[oslo_limit]``
section naming the placement endpoint, for unified limits.
"""

import os

from tests import fixtures, keystone_identity


def config_text(keystone, matrix):
    return ('[api]\nauth_strategy = keystone\n\n'
            + keystone_identity.authtoken_section(keystone.v3, matrix.service) + '\n'
            + keystone_identity.oslo_limit_section(keystone.v3, matrix.service,
                                                   matrix.placement_endpoint_id))


def make_conf(state_path, keystone, matrix, **overrides):
    """A test ConfigOpts (tests.fixtures.make_conf) read from a keystone config file.

    The file is written next to ``state_path`` as ``berth-keystone.conf``.
    """
    state_path = str(state_path)
    path = os.path.join(os.path.dirname(state_path.rstrip('/')) or '.', 'berth-keystone.conf')
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write(config_text(keystone, matrix))
    overrides.setdefault('api.auth_strategy', 'keystone')
    return fixtures.make_conf(state_path, config_files=[path], **overrides)


def start_berth(tmp_root, state_path, keystone, matrix, scope='function', **overrides):
    """An embedded berth (API + conductors) on a fresh database, auth by Keystone.

    ``tmp_root`` is pytest's base temp dir (the migrated-schema template lives
    there); ``scope`` is the pytest scope the database lease lasts for.  The
    caller stops the returned stack.
    """
    conf = make_conf(state_path, keystone, matrix, **overrides)
    fixtures.fresh_database(tmp_root, conf, scope=scope)
    return fixtures.start_embedded(conf)
