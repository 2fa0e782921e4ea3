"""Client side of the conductor RPC API (used by the API and by peers).

Every method pins the lowest RPC version it needs and is routed by a key to
the conductor that owns it on the hash ring (``prepare(server=owner)``); the
version history lives in :mod:`conductor.rpcapi.version`.
"""

import logging
import time

import oslo_messaging as messaging

from common import exception, rpc
from conductor import ring as conductor_ring
from conductor.rpcapi import allocation_batch
from conductor.rpcapi import version as rpc_version

LOG = logging.getLogger(__name__)

# seconds a waiting create_allocation call allows beyond its ``wait``
ALLOCATION_REPLY_MARGIN = 2.0


class ConductorAPI:
    """Typed RPC calls to the conductors; routing by ring, versions capped by conf.

    :param conf: the process's ConfigOpts.
    :param transport: an oslo.messaging RPC transport (see common.rpc).
    :param ring: anything with ``owner(key) -> host`` (conductor.ring.Ring).
    """

    def __init__(self, conf, transport, ring):
        self.conf = conf
        self.ring = ring
        self.version_cap = conf.upgrade_levels.conductor or rpc_version.RPC_API_VERSION
        self.client = rpc.get_client(transport, rpc_version.RPC_API_VERSION,
                                     self.version_cap,
                                     timeout=conf.conductor.rpc_timeout,
                                     retry=conf.conductor.rpc_send_retries)
        # whether create_allocation may wait (1.4); the cap is fixed per process
        self._allocation_wait = self.can_send_version('1.4')
        # concurrent waiting calls to one conductor share one message (1.5)
        self._batcher = None
        if self.can_send_version('1.5'):
            self._batcher = allocation_batch.AllocationBatcher(self._create_allocations)

    def can_send_version(self, version):
        """Whether every conductor is new enough for ``version`` (rolling upgrades)."""
        return self.client.can_send_version(version)

    def _prepare(self, routing_key, version):
        server = self.ring.owner(routing_key)
        return server, self.client.prepare(server=server, version=version)

    def _call(self, ctx, routing_key, method, version, **kwargs):
        """``call`` ``method`` on the owner of ``routing_key``; wait for its answer."""
        server, cctxt = self._prepare(routing_key, version)
        with rpc.translate_errors(server, method):
            return cctxt.call(ctx, method, **kwargs)

    def _cast(self, ctx, routing_key, method, version, **kwargs):
        """``cast`` ``method`` to the owner of ``routing_key``; do not wait."""
        server, cctxt = self._prepare(routing_key, version)
        with rpc.translate_errors(server, method):
            cctxt.cast(ctx, method, **kwargs)

    # --- the RPC API (one short method per RPC method) ---

    def ping(self, ctx, routing_key):
        """Ask the owner of ``routing_key`` who it is: ``{'host', 'members'}``."""
        return self._call(ctx, routing_key, 'ping', '1.0')

    def conductors(self, ctx, ping_timeout=1):
        """The live conductors, each pinged: for status pages, not for routing.

        ``[{'host', 'rpc_api_version', 'joined_age', 'heartbeat_age',
        'ping_ms', 'ping_error'}]`` by host; ages in seconds (None when the
        coordination backend does not publish them); a conductor that does
        not answer within ``ping_timeout`` seconds has ``ping_error``.
        """
        now = time.time()
        found = []
        for member in self.ring.describe():
            caps = member['capabilities']
            entry = {'host': member['host'],
                     'rpc_api_version': caps.get('rpc_api_version'),
                     'joined_age': _age(now, caps.get('joined_at')),
                     'heartbeat_age': _age(now, caps.get('heartbeat_at')),
                     'ping_ms': None, 'ping_error': None}
            cctxt = self.client.prepare(server=member['host'], version='1.0',
                                        timeout=ping_timeout)
            start = time.monotonic()
            try:
                with rpc.translate_errors(member['host'], 'ping'):
                    cctxt.call(ctx, 'ping')
                entry['ping_ms'] = round((time.monotonic() - start) * 1000, 1)
            except (exception.BerthException, messaging.MessagingException) as exc:
                entry['ping_error'] = str(exc)
            found.append(entry)
        return found

    def allocation_owner(self, allocation_uuid):
        """The conductor that will own a new node allocation (its affinity host)."""
        return self.ring.owner(allocation_uuid)

    def create_allocation(self, ctx, allocation_id, host, wait=0):
        """Hand node allocation ``allocation_id`` to its affinity ``host``.

        ``wait`` <= 0 (or a conductor older than 1.4): a cast, None.
        Otherwise a call that waits up to ``wait`` seconds for the outcome:
        ``{'state', 'node_uuid', 'last_error', 'updated_at'}``, or None when
        it is not known in time (a slow, busy or dead conductor, or one that
        failed unexpectedly: the row stays ``allocating`` and that conductor,
        its re-drive or the orphan takeover finishes it).  Raises
        ServiceUnavailable only when the message could not be sent.
        """
        if wait <= 0 or not self._allocation_wait:
            cctxt = self.client.prepare(server=host, version='1.1')
            with rpc.translate_errors(host, 'create_allocation'):
                cctxt.cast(ctx, 'create_allocation', allocation_id=allocation_id)
            return None
        if self._batcher is not None:
            return self._batcher.run(ctx, host, allocation_id, wait)
        return self._wait_for(ctx, host, 'create_allocation', '1.4', wait,
                              [allocation_id], allocation_id=allocation_id)

    def _create_allocations(self, ctx, host, allocation_ids, wait):
        """One call (1.5) for several allocations of ``host``: a result per id."""
        results = self._wait_for(ctx, host, 'create_allocations', '1.5', wait,
                                 allocation_ids, allocation_ids=allocation_ids)
        if results is None:
            return [None] * len(allocation_ids)
        return results

    def _wait_for(self, ctx, host, method, version, wait, ids, **kwargs):
        """Call ``method`` waiting up to ``wait``; None when not answered (see above)."""
        # the conductor answers after ``wait`` at the latest; the margin
        # covers the trip, so a timeout here means a conductor in trouble
        cctxt = self.client.prepare(server=host, version=version,
                                    timeout=wait + ALLOCATION_REPLY_MARGIN)
        with rpc.translate_errors(host, method):
            try:
                return cctxt.call(ctx, method, wait=wait, **kwargs)
            except messaging.MessagingTimeout:
                LOG.warning('Conductor %s did not answer allocations %s in time; '
                            'they stay allocating', host, ids)
            except messaging.RemoteError as exc:
                LOG.warning('Conductor %s failed on allocations %s (%s); they stay '
                            'allocating', host, ids, exc.exc_type)
        return None

    def destroy_allocation(self, ctx, allocation_uuid):
        """Delete a node allocation (NodeLocked / NodeInvalidState cross typed)."""
        return self._call(ctx, allocation_uuid, 'destroy_allocation', '1.1',
                          allocation_uuid=allocation_uuid)

    def claim_resources(self, ctx, tree, consumers):
        """Replace the allocations of ``consumers`` on the owner of ``tree``.

        ``tree`` is the root uuid of the first provider named (sorted);
        ``consumers`` is a list of plain dicts (see objects.placement.allocation.replace).
        """
        return self._call(ctx, tree, 'claim_resources', '1.2', tree=tree,
                          consumers=consumers)

    def delete_allocations(self, ctx, tree, consumer_uuid):
        """Remove every allocation of one consumer (routed like its claims)."""
        return self._call(ctx, tree, 'delete_allocations', '1.2', tree=tree,
                          consumer_uuid=consumer_uuid)

    def reshape(self, ctx, tree, inventories, consumers):
        """Apply a POST /reshaper body atomically (plain dicts, see objects.placement.reshaper)."""
        return self._call(ctx, tree, 'reshape', '1.2', tree=tree,
                          inventories=inventories, consumers=consumers)

    def schedule_and_claim(self, ctx, request, consumers, weigher=None,
                           distinct_roots=False):
        """Search, weigh and claim in one call, on the owner of the first consumer.

        ``request`` is objects.candidates.request.to_primitive(ResourceRequest);
        ``consumers`` plain dicts (uuid, project_id, user_id, consumer_type).
        Returns ``[{'consumer_uuid', 'allocations'}]``.
        """
        return self._call(ctx, consumers[0]['uuid'], 'schedule_and_claim', '1.3',
                          request=request, consumers=consumers, weigher=weigher,
                          distinct_roots=distinct_roots)


def _age(now, stamp):
    return None if stamp is None else round(max(0.0, now - stamp), 1)


class APIConductorClient(ConductorAPI):
    """A ConductorAPI that owns its transport and ring reader (API processes)."""

    def __init__(self, conf, transport=None):
        self._own_transport = transport is None
        if transport is None:
            transport = rpc.get_transport(conf)
        self.transport = transport
        super().__init__(conf, transport, conductor_ring.Ring(conf).start())

    def stop(self):
        self.ring.stop()
        if self._own_transport:
            self.transport.cleanup()
