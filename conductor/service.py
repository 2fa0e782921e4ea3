"""One conductor: RPC server, ring membership, bounded workers and periodic tasks.

Start order: the RPC server first (so the conductor answers before anyone
routes to it), then the conductor registry (conductor/periodic/registry.py:
listed before any ring names it), the claim path's warm-up
(conductor/warm_up.py), the group join, then the periodic tasks.
Stop order (graceful): leave the group, mark itself offline in the
registry, keep serving for ``grace`` seconds (one ring refresh, so peers
whose ring still names this conductor are answered), stop taking messages,
finish the work in flight, stop the periodic tasks, and disconnect.
"""

import logging
import os
import threading

from common import heap, rpc
from conductor import manager as conductor_manager
from conductor import periodic, service_versions, warm_up
from conductor import ring as conductor_ring
from conductor import workers as conductor_workers
from conductor.periodic import registry as conductor_registry
from conductor.rpcapi import version as rpc_version

LOG = logging.getLogger('berth.' + __name__)


class ConductorService:
    """A conductor of host ``host`` over ``db``.

    :param conf: the process's ConfigOpts.
    :param host: unique name of this conductor (ring member and RPC server).
    :param db: the process's database (db.api.Database).
    :param transport: an RPC transport to share (``berth serve``); by default
        the conductor opens one from ``[DEFAULT] transport_url`` and closes it
        on stop.
    """

    def __init__(self, conf, host, db, transport=None):
        self.conf = conf
        self.host = host
        self.db = db
        self._transport = transport
        self._own_transport = transport is None
        self.ring = None
        self.workers = None
        self.manager = None
        self._server = None
        self._periodic = None
        self.registration = None
        self._stopped = threading.Event()

    def start(self, on_phase=None):
        """Start serving; ``on_phase(text)`` is told what each step waits for."""
        conf = self.conf
        phase = on_phase or (lambda text: None)
        if self._transport is None:
            self._transport = rpc.get_transport(conf)
        phase('connecting to the coordination backend')
        self.ring = conductor_ring.Ring(conf, host=self.host).start()
        self.workers = conductor_workers.Workers(
            self.host, conf.conductor.workers, conf.conductor.admission_wait)
        self.manager = conductor_manager.ConductorManager(
            conf, self.host, self.db, self.ring, self.workers)
        self._server = rpc.get_server(self._transport, self.host, [self.manager],
                                      self.db)
        phase('connecting to the message broker')
        self._server.start(override_pool_size=self.workers.rpc_pool_size)
        self.registration = conductor_registry.Registration(conf, self.host, self.db)
        self.registration.register()
        phase('preparing the claim path')
        warm_up.warm(self.db)       # before the ring routes a claim here
        if self._own_transport:
            # a process of its own (berth-conductor, not berth serve's API beside
            # it): its long-lived heap is built; keep it out of full collections
            heap.settle()
        phase('joining the conductor group')
        self.ring.join(dict(service_versions.capabilities(), host=self.host,
                            pid=os.getpid(), rpc_api_version=rpc_version.RPC_API_VERSION))
        self._periodic = periodic.PeriodicRunner(
            self.manager.periodic_tasks() + self.registration.tasks(),
            name='periodic-%s' % self.host)
        self._periodic.start()
        LOG.info('Conductor %s started (%d workers)', self.host, conf.conductor.workers)
        return self

    def stop(self, grace=None):
        """Stop gracefully; ``grace`` defaults to one ring refresh interval."""
        if self._stopped.is_set() or self._server is None:
            return
        self._stopped.set()
        if grace is None:
            grace = self.conf.coordination.ring_refresh_interval
        # a start that failed part of the way left some parts None: stop the rest
        if self.ring is not None:
            self.ring.leave()
        if self.registration is not None:
            self.registration.sign_off()     # listed, not alive, from now on
        if grace > 0 and self.ring is not None:
            LOG.info('Conductor %s left the ring; serving %.1fs more for peers '
                     'with an older ring', self.host, grace)
            threading.Event().wait(grace)
        self._server.stop()
        self._server.wait()      # the calls in flight finish here
        timeout = self.conf.conductor.graceful_shutdown_timeout
        if not self.workers.wait_idle(timeout):
            LOG.warning('Conductor %s: %d background tasks still running after %ss',
                        self.host, self.workers.busy, timeout)
        if self._periodic is not None:
            self._periodic.stop()
        self.workers.shutdown()
        self.manager.notifier.cleanup()
        if self.ring is not None:
            self.ring.stop()
        if self._own_transport and self._transport is not None:
            self._transport.cleanup()
        LOG.info('Conductor %s stopped', self.host)
