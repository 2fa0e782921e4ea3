"""Conductor membership in a tooz group and the hash ring built over it.

Conductors join the group ``berth-conductors`` and heartbeat; the API and the
conductors read the members (the API never joins) and keep a
``tooz.hashring.HashRing`` over them.  The ring is rebuilt when the group's
watchers report a join or a leave (polled every ``[coordination]
watch_interval``) and from a full read of the members every
``ring_refresh_interval``.  The ring only picks a conductor: two conductors
may briefly both think they own a key, and the database decides who wins.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import Any
import urllib.parse
import uuid

from oslo_config import cfg
import tenacity
import tooz
from tooz import coordination, hashring

from common import deadline as rpc_deadline
from common import exception, metrics, retries

LOG = logging.getLogger('berth.' + __name__)

GROUP = b'berth-conductors'
# how long start() keeps trying a backend that cannot be reached yet (restarting)
START_RETRY_SECONDS = 60
# seconds between a conductor's beats for the fence (common.deadline.beat)
TICK = 0.2


def backend_url(conf):
    """``[coordination] backend_url``, or a file backend in the state dir.

    The file backend runs its calls inline (``executor=synchronous``): this
    module serialises them anyway, and tooz's default thread pool takes a
    second to shut down.
    """
    if conf.coordination.backend_url:
        return conf.coordination.backend_url
    path = os.path.abspath(os.path.join(conf.state_path, 'coordination'))
    os.makedirs(path, exist_ok=True)
    return 'file://%s?executor=synchronous' % path


def membership_timeout(url):
    """Seconds the backend keeps a silent member (``timeout`` in the URL, else 30)."""
    try:
        return float(urllib.parse.parse_qs(urllib.parse.urlparse(url).query)
                     .get('timeout', ['30'])[0])
    except ValueError:
        return 30.0


class Ring:
    """Live conductors and the hash ring over them, kept fresh in a thread.

    :param conf: the process's ConfigOpts (``[coordination]`` options).
    :param host: this conductor's host name, or None for a reader (the API)
        that watches the group without joining it.
    """

    def __init__(self, conf: cfg.ConfigOpts, host: str | None = None) -> None:
        self.host = host
        self._url = backend_url(conf)
        self._watch_interval = conf.coordination.watch_interval
        self._refresh_interval = conf.coordination.ring_refresh_interval
        self._partitions = conf.coordination.hash_partitions
        member_id = host or 'reader-%s-%d-%s' % (conf.host, os.getpid(),
                                                 uuid.uuid4().hex[:8])
        # a conductor that has not run for this long may have lapsed from the
        # group: it writes nothing sent before (common.deadline)
        self._lapse = max(1.0, membership_timeout(self._url) / 2)
        self._fence = rpc_deadline.fence_of(host) if host else None
        self._coord = coordination.get_coordinator(self._url,
                                                   member_id.encode('utf-8'))
        self._lock = threading.Lock()          # serialises use of the coordinator
        # (members, ring), swapped as one so lock-free readers see a pair
        self._view: tuple[frozenset[str], hashring.HashRing] = (
            frozenset(), hashring.HashRing([], partitions=self._partitions))
        self._joined = False
        # the members the watchers report during one poll (None between polls)
        self._seen: set[str] | None = None
        self._capabilities: dict[str, Any] = {}
        self._heartbeats = True
        self._last_refresh = 0.0
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    # --- life cycle ---

    def start(self, retry_for: float = START_RETRY_SECONDS) -> Ring:
        """Connect to the backend, read the members and start watching them.

        A backend that cannot be reached (restarting as this process starts)
        is tried again with backoff for ``retry_for`` seconds before the
        error is raised.
        """
        self._connect(retry_for)
        self._coord.watch_join_group(GROUP, self._on_join)
        self._coord.watch_leave_group(GROUP, self._on_leave)
        self.refresh()
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name='ring-%s' % (self.host or 'reader'))
        self._thread.start()
        if self.host is not None:
            # no backend call in it: only a stopped (or starved) process skips a beat
            threading.Thread(target=self._tick, daemon=True,
                             name='ring-tick-%s' % self.host).start()
        return self

    def _connect(self, retry_for: float) -> None:
        """Start the coordinator and create the group (common.retries.coordination_start)."""
        def warn(state: tenacity.RetryCallState) -> None:
            exc = state.outcome.exception() if state.outcome else None
            LOG.warning('Coordination backend not reachable (%s: %s); trying again '
                        'in %.1fs', type(exc).__name__, exc, state.upcoming_sleep)

        retries.coordination_start(retry_for, before_sleep=warn)(self._connect_once)

    def _connect_once(self) -> None:
        started = False
        try:
            self._coord.start(start_heart=self.host is not None)
            started = True
            self._create_group()
        except Exception:    # drivers raise their client's errors too
            if started:
                self._stop_coordinator()
            raise

    def _create_group(self) -> None:
        try:
            self._coord.create_group(GROUP).get()
        except coordination.GroupAlreadyExist:
            pass

    def _stop_coordinator(self) -> None:
        try:
            self._coord.stop()
        except Exception as exc:        # already broken: nothing more to undo
            LOG.debug('Coordinator stop after a failed start: %s', exc)

    def join(self, capabilities=None):
        """Join the group as ``host`` (conductors only); peers see it on their next poll."""
        if not self.host:    # no host: a reader (its member id is reader-...)
            raise RuntimeError('a ring reader never joins the group')
        self._capabilities = dict(capabilities or {}, joined_at=time.time())
        with self._lock:
            self._join_replacing_old_incarnation()
            self._joined = True
        # messages sent to this host before it joined (a previous incarnation
        # killed meanwhile) may have gone to another conductor: never written here
        self._own_fence().close()
        self.refresh()
        LOG.info('Conductor %s joined %s', self.host, GROUP.decode())

    def _own_fence(self) -> rpc_deadline.Fence:
        """This conductor's fence: a ring that joined has a host, so it has one."""
        if self._fence is None:
            raise RuntimeError('a ring reader has no fence')
        return self._fence

    def _join_replacing_old_incarnation(self) -> None:
        """Join; a member key left by this host's previous process is removed first.

        That key (a conductor restarted after kill -9) expires with its old
        lease on its own, possibly between our look and our delete: a
        ``MemberNotJoined`` from the delete means it is already gone.  The
        policy (three joins) is common.retries.member_rejoin.
        """
        def leave_old(state: tenacity.RetryCallState) -> None:
            try:
                self._coord.leave_group(GROUP).get()
            except coordination.MemberNotJoined:
                pass    # expired meanwhile: join again

        retries.member_rejoin(before_sleep=leave_old)(
            lambda: self._coord.join_group(GROUP, capabilities=self._capabilities).get())

    def leave(self):
        """Leave the group; keeps watching, so the ring stays usable for a while."""
        with self._lock:
            if not self._joined:
                return
            self._joined = False
            self._own_fence().beat(0)    # no lapse while it serves its last calls
            try:
                self._coord.leave_group(GROUP).get()
            except coordination.ToozError as exc:
                LOG.warning('Conductor %s could not leave the group: %s', self.host, exc)
        self.refresh()
        LOG.info('Conductor %s left %s', self.host, GROUP.decode())

    def stop(self) -> None:
        """Stop watching and disconnect (leaves the group first if still in it)."""
        self.leave()
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(10)
        with self._lock:
            try:
                self._coord.stop()
            except coordination.ToozError as exc:
                LOG.warning('Coordinator stop failed: %s', exc)

    # --- questions ---

    def owner(self, key: str) -> str:
        """The host of the conductor that owns ``key`` (a str, e.g. a UUID).

        :raises exception.ServiceUnavailable: no conductor is alive.
        """
        members, ring = self._view
        if not members:
            # a conductor may have joined since the last poll: look once more
            self.refresh()
            members, ring = self._view
            if not members:
                raise exception.ServiceUnavailable(reason='no conductor is alive')
        return next(iter(ring.get_nodes(key.encode('utf-8'))))

    def members(self) -> frozenset[str]:
        """The hosts of the live conductors (a frozenset of str)."""
        return self._view[0]

    def is_alive(self, host: str) -> bool:
        """Whether ``host`` is a live conductor (a conductor is always alive to itself)."""
        return host in self._view[0]

    # --- keeping it fresh ---

    def refresh(self):
        """Rebuild the ring from a full read of the group's members."""
        with self._lock:
            try:
                raw = self._coord.get_members(GROUP).get()
            except coordination.GroupNotCreated:
                if not self._joined:     # a reader waits for a conductor to recreate it
                    LOG.warning('The conductor group is gone; keeping %d members',
                                len(self._view[0]))
                    return
                # the backend lost everything (Redis restarted without persistence)
                self._create_group()
                raw = set()
            except coordination.ToozError as exc:
                LOG.warning('Cannot read the conductor group (%s); keeping %d '
                            'members', exc, len(self._view[0]))
                return
            self._last_refresh = time.monotonic()
            found = {m.decode('utf-8') for m in raw}
            if self._joined and self.host not in found:
                self._rejoin()
            elif self._joined:
                self._publish_heartbeat()
            self._set_members(found)

    def _publish_heartbeat(self):
        """Stamp our capabilities with the time (for /status); self._lock held.

        Backends that cannot update capabilities (tooz's file driver) keep
        the ones given at join, whose ``joined_at`` is then all we know.
        """
        if not self._heartbeats:
            return
        caps = dict(self._capabilities, heartbeat_at=time.time())
        try:
            self._coord.update_capabilities(GROUP, caps).get()
        except tooz.NotImplemented:
            self._heartbeats = False
            LOG.info('The coordination backend of conductor %s cannot update '
                     'capabilities: no heartbeat timestamps on /status', self.host)
        except coordination.ToozError as exc:
            LOG.warning('Conductor %s could not publish its heartbeat: %s',
                        self.host, exc)

    def reachable(self) -> bool:
        """False once no read of the group has succeeded for three refresh intervals."""
        if not self._last_refresh:
            return False
        return time.monotonic() - self._last_refresh <= 3 * max(self._refresh_interval, 1)

    def describe(self) -> list[dict[str, Any]]:
        """``[{'host', 'capabilities'}]`` of the live members, by host.

        Each conductor's capabilities carry the ``rpc_api_version`` it speaks,
        ``joined_at`` and, where the backend can update capabilities,
        ``heartbeat_at`` (epoch seconds) refreshed every
        ``ring_refresh_interval``.  One backend read per member: for status
        pages, not for routing.
        """
        described: list[dict[str, Any]] = []
        for host in sorted(self.members()):
            with self._lock:
                try:
                    caps = self._coord.get_member_capabilities(
                        GROUP, host.encode('utf-8')).get()
                except coordination.ToozError as exc:
                    LOG.debug('No capabilities for conductor %s: %s', host, exc)
                    caps = None
            described.append({'host': host, 'capabilities': caps or {}})
        return described

    def _rejoin(self):
        """Join again after the backend forgot us; called with self._lock held.

        A member whose heartbeats did not arrive in time (a stalled process, a
        restarted backend) expires from the group while it still serves; its
        peers then stop routing to it until it joins again.
        """
        LOG.warning('Conductor %s is missing from %s (membership expired); '
                    'joining again', self.host, GROUP.decode())
        self._own_fence().close()    # its callers may have sent its calls elsewhere
        try:
            self._coord.join_group(GROUP, capabilities=self._capabilities).get()
        except coordination.MemberAlreadyExist:
            pass
        except coordination.ToozError as exc:
            LOG.warning('Conductor %s could not join %s again: %s', self.host,
                        GROUP.decode(), exc)
            return
        try:
            # a backend that lost our liveness key hides us until the next beat
            self._coord.heartbeat()
        except coordination.ToozError as exc:
            LOG.warning('Conductor %s could not heartbeat: %s', self.host, exc)

    def _tick(self):
        while not self._stopping.wait(TICK):
            if self._joined:
                self._own_fence().beat(self._lapse)

    def poll(self):
        """Apply what the watchers saw as one change; rebuild fully when a refresh is due.

        A failed watch changes nothing.  A poll whose events would leave no
        conductor at all is checked by a full read (:meth:`refresh`) instead
        of applied: tooz's polling watchers report a group the backend lost
        (Redis restarted empty) as every member leaving, where a reader
        keeps its view until the conductors recreate the group.
        """
        emptied = False
        try:
            with self._lock:
                self._seen = set(self._view[0])
                try:
                    self._coord.run_watchers()
                    seen = self._seen
                finally:
                    self._seen = None
                emptied = not seen and bool(self._view[0])
                if not emptied:
                    self._set_members(seen)
        except coordination.ToozError as exc:
            LOG.warning('Watching the conductor group failed (%s); keeping %d members',
                        exc, len(self._view[0]))
        if emptied or time.monotonic() - self._last_refresh >= self._refresh_interval:
            self.refresh()

    # the watchers fire inside run_watchers() (poll), with self._lock held
    def _on_join(self, event):
        if self._seen is not None:
            self._seen.add(event.member_id.decode('utf-8'))

    def _on_leave(self, event):
        if self._seen is not None:
            self._seen.discard(event.member_id.decode('utf-8'))

    def _set_members(self, members):
        """Swap in a ring over ``members``; called with self._lock held."""
        if self._joined:
            members = set(members) | {self.host}
        members = frozenset(members)
        old = self._view[0]
        if members == old:
            return
        self._view = (members, hashring.HashRing(sorted(members),
                                                 partitions=self._partitions))
        ring_name = self.host or 'reader'
        metrics.RING_MEMBERS.labels(ring_name).set(len(members))
        metrics.RING_REBALANCES.labels(ring_name).inc()
        added, gone = members - old, old - members
        LOG.info('Conductor ring (%s): %d members; joined %s, left %s',
                 self.host or 'reader', len(members), sorted(added), sorted(gone))

    def _run(self):
        while not self._stopping.wait(self._watch_interval):
            try:
                self.poll()
            except Exception:  # never let the ring thread die
                LOG.exception('Conductor ring refresh failed')
