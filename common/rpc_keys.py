"""Which RPC signing keys a berth process may start with, and how to make one.

Safe as shipped (doc/source/rpc.md, "Authentication"): a process that talks
to the conductors over a message broker signs (berth-api, berth-manage) or
verifies (the conductors) every message, so it needs ``[rpc] signing_key``.
Without one it refuses to start, in one line that says how to make a key
(``berth-manage rpc generate-key``) and where to put it; only ``[rpc]
allow_unsigned = true`` runs it unsigned (trust mode ``unsigned``, a
WARNING).  The in-process transport of ``berth serve`` needs no key (trust
mode ``embedded``).

A key is refused, in every process, when it is shorter than :data:`MIN_KEY`
characters or when it is one of the example values berth's documentation
and sample files print (:data:`KNOWN_EXAMPLES`): a copied example is a key
everyone has.  tests/unit/test_rpc_keys.py scans those files so that a new
example cannot become an accepted key.
"""

import hashlib
import secrets

from common.conf import rpc as rpc_conf

# shortest key accepted, in characters
MIN_KEY = 32
# bytes of randomness in a generated key (64 URL-safe characters)
GENERATED_BYTES = 48
# transports that only reach the process itself (no key needed)
IN_PROCESS = ('inproc:', 'kombu+memory:', 'fake:')

GENERATE = 'berth-manage rpc generate-key'

# SHA-256 of every key value berth's docs, samples and release notes show as
# an example (never a key to run with); tests/unit/test_rpc_keys.py keeps it
# complete
KNOWN_EXAMPLES = frozenset(hashlib.sha256(value.encode('utf-8')).hexdigest() for value in (
    'SECRET-AT-LEAST-32-CHARACTERS',
    'NOVAS-KEY-AT-LEAST-32-CHARACTERS',
    'PASTE-THE-OUTPUT-OF-berth-manage-rpc-generate-key',
    'PASTE-THE-SERVICES-OWN-KEY-FROM-berth-manage-rpc-generate-key',
))


class Refused(ValueError):
    """This process must not start with its ``[rpc]`` options (one line)."""


def is_example(value):
    """Whether ``value`` is a key berth's docs or samples print."""
    return hashlib.sha256(value.encode('utf-8')).hexdigest() in KNOWN_EXAMPLES


def key_error(option, value):
    """Why ``value`` (of option ``option``) is not a key to run with, or None."""
    if len(value) < MIN_KEY:
        return ('%s is shorter than %d characters; make a key with "%s"'
                % (option, MIN_KEY, GENERATE))
    if is_example(value):
        return ('%s is an example value from berth\'s documentation, known to '
                'everyone; make a key with "%s"' % (option, GENERATE))
    return None


def in_process_url(url):
    """Whether transport ``url`` only reaches this process (None/'': no,
    oslo.messaging's default is RabbitMQ on localhost)."""
    return bool(url) and str(url).startswith(IN_PROCESS)


def error(group, in_process):
    """Why a process with ``[rpc]`` options ``group`` must not start, or None.

    :param in_process: whether its transport only reaches the process itself.
    """
    if group.signing_key:
        reason = key_error('[rpc] signing_key', group.signing_key)
        if reason:
            return reason
    for name, value in sorted((group.service_keys or {}).items()):
        reason = value and key_error('[rpc] service_keys key of %s' % name, value)
        if reason:
            return reason
    if group.signing_key or in_process or group.allow_unsigned:
        return None
    return ('[rpc] signing_key is not set and the RPC transport is a message broker: '
            'every conductor would obey any message on the bus. Make a key with "%s" '
            'and set it as [rpc] signing_key in the configuration of every berth '
            'process (berth-api, berth-conductor, berth-manage); or, on an isolated '
            'broker only, set [rpc] allow_unsigned = true' % GENERATE)


def check(group, in_process):
    """Raise :class:`Refused` when :func:`error` has a reason."""
    reason = error(group, in_process)
    if reason:
        raise Refused(reason)


def startup_error(conf, url=None):
    """The one-line reason a process with ``conf`` must not start, or None.

    ``url``: the transport it will use (default ``[DEFAULT] transport_url``,
    oslo.messaging's RabbitMQ on localhost when unset).
    """
    from common import rpc  # noqa: PLC0415 -- it imports this module
    rpc.register_opts(conf)
    try:
        group = conf.rpc
    except Exception:       # a ConfigOpts built without berth's options
        rpc_conf.register_opts(conf)
        group = conf.rpc
    url = conf.transport_url if url is None else url
    return error(group, in_process_url(url))


def generate():
    """A fresh random key (64 URL-safe characters)."""
    return secrets.token_urlsafe(GENERATED_BYTES)
