"""A conductor's entry in the conductor registry: register, heartbeat, sign off.

The conductor registers when it has joined the ring, heartbeats every
``[conductor] heartbeat_interval`` from its periodic worker, and marks
itself offline when it stops cleanly (objects/baremetal/conductor.py).  A
conductor that is killed or hangs simply stops heartbeating: its row stays,
and readers see it dead once ``[conductor] heartbeat_timeout`` has passed.

Registration never stops a conductor from serving: a database that cannot
be reached at start is logged, and the next heartbeat registers again (as
it does for a row an operator forgot while the conductor was hung).
"""

import logging
import threading

from common import context as berth_context
from objects.baremetal import conductor as conductor_obj

LOG = logging.getLogger('berth.' + __name__)


class Registration:
    """The registry row of conductor ``host`` over ``db`` while it runs."""

    def __init__(self, conf, host, db):
        self.host = host
        self.group = conf.conductor.conductor_group
        self.interval = conf.conductor.heartbeat_interval
        self._db = db
        self._lock = threading.Lock()      # a heartbeat never follows the sign-off
        self._signed_off = False
        if conf.conductor.heartbeat_timeout < 2 * self.interval:
            LOG.warning('[conductor] heartbeat_timeout (%ss) is under two '
                        'heartbeat_interval (%ss): conductor %s will look dead '
                        'between its heartbeats', conf.conductor.heartbeat_timeout,
                        self.interval, host)

    def _ctx(self):
        return berth_context.admin_context(self._db)

    def register(self):
        """Register online; False (logged) when the database did not take it."""
        with self._lock:
            if self._signed_off:
                return False
            try:
                conductor_obj.register(self._ctx(), self.host, self.group)
            except Exception as exc:  # the database's errors: the next beat retries
                LOG.warning('Conductor %s could not register in the conductor '
                            'registry (%s: %s); the next heartbeat tries again',
                            self.host, type(exc).__name__, exc)
                return False
        LOG.info('Conductor %s registered (group %r)', self.host, self.group)
        return True

    def heartbeat(self):
        """Stamp the heartbeat; register again when the row is gone."""
        with self._lock:
            if self._signed_off:
                return
            try:
                if conductor_obj.heartbeat(self._ctx(), self.host):
                    return
            except Exception as exc:  # the database's errors: the next beat retries
                LOG.warning('Conductor %s could not heartbeat into the conductor '
                            'registry (%s: %s)', self.host, type(exc).__name__, exc)
                return
        LOG.warning('Conductor %s is missing from the conductor registry '
                    '(forgotten while it was not heartbeating); registering again',
                    self.host)
        self.register()

    def sign_off(self):
        """Mark this conductor offline (a clean stop); no heartbeat after this."""
        with self._lock:
            if self._signed_off:
                return
            self._signed_off = True
            try:
                conductor_obj.unregister(self._ctx(), self.host)
            except Exception as exc:  # the row then dies by its heartbeat's age
                LOG.warning('Conductor %s could not mark itself offline (%s: %s)',
                            self.host, type(exc).__name__, exc)
                return
        LOG.info('Conductor %s marked offline in the conductor registry', self.host)

    def tasks(self):
        """``[(callable, spacing)]`` for the conductor's periodic worker."""
        def heartbeat_conductor_registry():
            self.heartbeat()
        return [(heartbeat_conductor_registry, self.interval)]
