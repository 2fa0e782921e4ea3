"""Pings of every conductor for the status page, in parallel and within one bound.

One at a time, a status page with N conductors took N times the ping
timeout while they did not answer, and much longer while the broker was
away (every send retried its connection): /status.json then outlived its
client.  Here every ping runs at once and the answer is given after the
ping timeout plus a little, whatever is still out (a ping that did not
answer by then says so; its thread ends by itself).
"""

from __future__ import annotations

import concurrent.futures
import time
from typing import Any

import oslo_messaging as messaging

from common import exception, rpc
from conductor.rpcapi import version as rpc_version

# seconds the answer waits beyond the ping timeout for the pings still out
SLACK = 0.5
# most pings in flight at once
PARALLEL = 16


def _ping(client: Any, ctx: Any, host: str, timeout: float) -> tuple[float | None, str | None]:
    cctxt = client.prepare(server=host, version=rpc_version.PING, timeout=timeout)
    start = time.monotonic()
    try:
        with rpc.translate_errors(host, 'ping'):
            cctxt.call(ctx, 'ping')
    except (exception.BerthException, messaging.MessagingException) as exc:
        return None, str(exc)
    return round((time.monotonic() - start) * 1000, 1), None


def ping_all(client: Any, ctx: Any, hosts: list[str], timeout: float
             ) -> dict[str, tuple[float | None, str | None]]:
    """``{host: (ping_ms, ping_error)}``, answered within ``timeout`` + SLACK seconds."""
    if not hosts:
        return {}
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=min(PARALLEL, len(hosts)),
                                                 thread_name_prefix='berth-ping')
    try:
        futures = {host: pool.submit(_ping, client, ctx, host, timeout) for host in hosts}
        concurrent.futures.wait(futures.values(), timeout=timeout + SLACK)
        return {host: (future.result() if future.done() else
                       (None, 'no answer within %ss' % timeout))
                for host, future in futures.items()}
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def age(now: float, stamp: float | None) -> float | None:
    return None if stamp is None else round(max(0.0, now - stamp), 1)
