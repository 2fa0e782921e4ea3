"""The reply queue of a calling process, set up in the background so no call waits on it unbounded.

oslo.messaging creates a process's reply queue on its first RPC call
(``_get_reply_q``), inside kombu's connection retry loop, which never gives
up while the broker is away: an API process (a fresh ``berth-api``, a
gunicorn worker just forked) that had made no call yet hung its request for
as long as the outage lasted, and sent the write when the broker returned,
minutes after its client had given up.

:class:`ReplyListener` sets the queue up in a daemon thread as the process
starts (and keeps trying while the broker is away).  A call waits for it at
most its own timeout (common.deadline.StampingTransport) and otherwise fails
as undeliverable, which the API answers 503 ``berth.service_unavailable``;
nothing is sent, so nothing can be written later.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

LOG = logging.getLogger('berth.' + __name__)

# seconds between two attempts after a set-up that failed outright
RETRY_DELAY = 1.0


class ReplyListener:
    """Sets up the reply queue of ``transport``'s driver in a daemon thread.

    A driver without a reply queue of its own (the in-process and fake
    transports) is ready at once.
    """

    def __init__(self, transport: Any, retry_delay: float = RETRY_DELAY) -> None:
        self.ready = threading.Event()
        self.retry_delay = retry_delay
        self._setup = getattr(getattr(transport, '_driver', None), '_get_reply_q', None)
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None
        if self._setup is None:
            self.ready.set()

    def start(self) -> ReplyListener:
        """Start setting the queue up (once); returns self."""
        if not self.ready.is_set() and self._thread is None:
            self._thread = threading.Thread(target=self._run, daemon=True,
                                            name='berth-reply-queue')
            self._thread.start()
        return self

    def _run(self) -> None:
        setup, started = self._setup, time.monotonic()
        while setup is not None and not self._stopped.is_set():
            try:
                setup()
            except Exception as exc:      # kombu's and the socket's: try again
                LOG.warning('Cannot set up the RPC reply queue yet: %s', exc)
                self._stopped.wait(self.retry_delay)
                continue
            self.ready.set()
            LOG.info('RPC reply queue ready after %.1fs', time.monotonic() - started)
            return

    def wait(self, timeout: float) -> bool:
        """Whether the queue is ready, waiting at most ``timeout`` seconds for it."""
        return self.ready.wait(max(0.0, timeout))

    def stop(self) -> None:
        self._stopped.set()
