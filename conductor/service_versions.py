"""Which berth release each conductor runs: recorded at join, read back here (one place).

A conductor records its release (``common.version``, e.g. ``0.1.1`` or
``0.1.1.dev3``) in its tooz group capabilities under ``CAPABILITY`` beside
``rpc_api_version``.  Releases before 0.1.1 recorded no release: a member
without one runs 0.1.0 or older.  ``berth-manage status`` and
``berth-manage db contract`` read the members through :func:`older_than`.
The API processes do not join the group, so they are not seen here.
"""

from __future__ import annotations

import re

from common import version as berth_version

CAPABILITY = 'version'
# what a member that records no release runs at most
UNRECORDED = '0.1.0 or older'


def capabilities() -> dict:
    """What a conductor adds to its group capabilities at join."""
    return {CAPABILITY: berth_version.version_string()}


def release(version: str) -> tuple[int, ...]:
    """The release a version string belongs to: ``0.1.1.dev3`` -> ``(0, 1, 1)``."""
    found = re.match(r'\d+(?:\.\d+)*', version or '')
    return tuple(int(p) for p in found.group(0).split('.')) if found else ()


def older_than(described: list[dict], minimum: str) -> list[tuple[str, str]]:
    """``[(host, version)]`` of the members (``Ring.describe()``) below ``minimum``'s release.

    A member that recorded no release is older than any release that records one.
    """
    floor = release(minimum)
    found = []
    for member in described:
        recorded = (member.get('capabilities') or {}).get(CAPABILITY)
        if not recorded or release(recorded) < floor:
            found.append((member['host'], recorded or UNRECORDED))
    return found


def this_release() -> str:
    """The running code's version (what every service must run before a contract)."""
    return berth_version.version_string()
