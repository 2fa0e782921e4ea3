"""Quota limits from Keystone unified limits, in nova's names ([quota] limits_source = keystone).

Keystone holds one limit per resource name and project (registered limits
are the defaults, project limits override them; common.unified_limits
reads and caches them).  The names are the ones nova uses, so one set of
limits serves nova and berth alike:

* ``servers``: the number of consumers of type ``INSTANCE`` in the project;
* ``class:<RC>``: the units of resource class ``<RC>`` the project holds
  (``class:VCPU``, ``class:PCPU``, ``class:MEMORY_MB``, ``class:CUSTOM_...``);
* ``cores``: VCPU + PCPU together (nova's older name for CPUs).

Other names (nova's ``server_groups``, ``server_key_pairs``, ...) are not
berth's to count and are ignored.  A name with no registered limit is not
limited.  Keystone's limits are per project: there are no per-user limits
from this source.  The check itself is the one of objects.placement.quota,
inside the claim transaction.
"""

from __future__ import annotations

from collections.abc import Iterable
import threading
from typing import Any

from common import unified_limits
from objects.placement import quota as quota_obj

SERVERS = 'servers'
SERVERS_TYPE = 'INSTANCE'
CLASS_PREFIX = 'class:'


def to_limits(named: dict[str, int]) -> quota_obj.Limits:
    """Keystone's ``{resource_name: limit}`` as a :class:`objects.placement.quota.Limits`."""
    limits = quota_obj.Limits()
    for name, value in named.items():
        if name == SERVERS:
            limits.consumers[SERVERS_TYPE] = value
        elif name.startswith(CLASS_PREFIX) and len(name) > len(CLASS_PREFIX):
            limits.resources[name[len(CLASS_PREFIX):]] = value
        elif name in quota_obj.VIEW_CLASSES:
            limits.views[name] = value
    return limits


class KeystoneLimits:
    """A limits source for objects.placement.quota (``lock``, ``show``) backed by Keystone."""

    name = 'keystone'

    def __init__(self, reader: unified_limits.LimitReader) -> None:
        self.reader = reader

    def limits(self, ctx: Any, project_id: str,
               user_id: str | None = None) -> quota_obj.Limits:
        """The project's limits (per-user scopes have none from Keystone).

        Raises QuotaLimitsUnavailable (see common.unified_limits).
        """
        if user_id:
            return quota_obj.Limits()
        return to_limits(self.reader.limits(project_id))

    def warm_up(self) -> None:
        """Log in to Keystone and read the registered limits in the background."""
        threading.Thread(target=self.reader.warm, name='keystone-limits-warm-up',
                         daemon=True).start()

    def prefetch(self, project_ids: Iterable[str]) -> None:
        """Read (or refresh) the projects' limits before a transaction takes locks."""
        for project_id in sorted(set(project_ids)):
            self.reader.limits(project_id)


def source_for(conf: Any) -> Any:
    """The limits source ``[quota] limits_source`` names, for ``conf``'s process."""
    if conf.quota.limits_source == 'keystone':
        return KeystoneLimits(unified_limits.reader_for(conf))
    return quota_obj.TABLE
