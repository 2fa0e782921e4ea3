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
import time

from common import heap, rpc
from conductor import manager as conductor_manager
from conductor import periodic, service_versions, warm_up
from conductor import ring as conductor_ring
from conductor import workers as conductor_workers
from conductor.periodic import registry as conductor_registry
from conductor.rpcapi import version as rpc_version

LOG = logging.getLogger('berth.' + __name__)

# seconds each fixed step of a stop may take (stop listening, the periodic
# tasks, the notifier, the coordination client, the broker connections): the
# stop bound is ring_refresh_interval + graceful_shutdown_timeout + 10 s
STEP_SECONDS = 2.0


def _left(deadline):
    return max(0.0, deadline - time.monotonic())


def _bounded(what, func, seconds, host):
    """Run ``func()`` for at most ``seconds`` (then leave it in a daemon thread); finished?"""
    def run():
        try:
            func()
        except Exception:      # a stop goes on whatever one step raised
            LOG.exception('Conductor %s: could not %s', host, what)
    step = threading.Thread(target=run, daemon=True, name='stop-step')
    step.start()
    step.join(seconds)
    if not step.is_alive():
        return True
    LOG.warning('Conductor %s: could not %s within %.1fs (the message broker '
                'gone?); stopping without it', host, what, seconds)
    return False


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
        self.ring: conductor_ring.Ring | None = None
        self.workers: conductor_workers.Workers | None = None
        self.manager: conductor_manager.ConductorManager | None = None
        self._server = None
        self._periodic: periodic.PeriodicRunner | None = None
        self.registration: conductor_registry.Registration | None = None
        self._stopped = threading.Event()
        self.left_behind = False     # a stop left threads at work (see stop())

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
        # set before the server, so never None once it is
        assert self.workers is not None and self.manager is not None
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
        # every step is bounded: with the broker gone a listener cannot close
        # and a reply cannot be sent (oslo.messaging retries them until the
        # broker returns); what is left running is in daemon threads, and the
        # process exits after this (doc/source/operations.md: the stop bound)
        deadline = time.monotonic() + self.conf.conductor.graceful_shutdown_timeout
        done = [_bounded('stop taking messages', self._server.stop, STEP_SECONDS,
                         self.host),
                # the calls in flight finish here, or their threads are left behind
                _bounded('finish the calls in flight', self._server.wait,
                         _left(deadline), self.host)]
        if not self.workers.wait_idle(_left(deadline)):
            done.append(False)
            LOG.warning('Conductor %s: %d background tasks still running after %ss',
                        self.host, self.workers.busy,
                        self.conf.conductor.graceful_shutdown_timeout)
        if self._periodic is not None:
            self._periodic.stop(timeout=STEP_SECONDS)
        self.workers.shutdown(wait=self.workers.busy == 0)
        done.append(_bounded('close the notifier', self.manager.notifier.cleanup,
                             STEP_SECONDS, self.host))
        if self.ring is not None:
            done.append(_bounded('leave the coordination backend', self.ring.stop,
                                 STEP_SECONDS, self.host))
        if self._own_transport and self._transport is not None:
            done.append(_bounded('close the broker connections', self._transport.cleanup,
                                 STEP_SECONDS, self.host))
        # threads still at work (a reply waiting for the broker) must not hold
        # the process's exit: its command exits at once (cli/conductor.py)
        self.left_behind = not all(done)
        LOG.info('Conductor %s stopped', self.host)
