"""What a catch-up reads: the providers and consumers that may have changed since the last run.

A full comparison reads every inventory, trait link, consumer and
allocation on both sides; at 100,000 providers (800,000 consumers, 2.4
million allocations) that is most of a catch-up's time, whatever changed.
A catch-up reads both sides' small tables, providers and aggregate links in
full (deletions, renames and re-parenting, and aggregate links that
Placement before microversion 1.19 changed without moving a generation,
are compared as before), every consumer's uuid and generation (as two
lists: :func:`changed_keys`), and whole rows only of these:

* the inventories and trait links of providers new, gone, or whose
  **generation** differs from berth's: Placement moves a provider's
  generation with every write of its inventories, traits, aggregates and
  allocations;
* the consumer rows and allocations of consumers new, gone, or whose
  **generation** differs: Placement moves a consumer's generation with
  every write of its allocations (which is where its project, user and
  type change), and deletes the consumer with its last allocation;
* what the generations cannot tell, by the source's row ids above the
  highest ones the last run recorded: a provider or consumer deleted and
  made again with the same uuid (its generation may come back to the same
  number), and an inventory or allocation row written without a
  generation moving (by hand, in SQL); and berth's consumers holding
  allocations on a provider that went or came back.

Both sides read exactly the same rows, so the diff is the one a full
comparison finds among them; the rows outside them are equal by the rules
above.  When more than a quarter of the providers (or consumers) qualify,
their rows are read in full, which is cheaper than long ``IN`` lists.
``--full`` compares everything, as the first import does: for a source
changed by hand rather than through Placement's API.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from objects.adoption import state as state_mod
from objects.adoption import target as target_mod

# the tables a catch-up may read in part
PARTIAL = ('inventories', 'resource_provider_traits', 'consumers', 'allocations')
# above this share of providers (consumers) qualifying, their rows are read in full
FULL_SHARE = 0.25


def scope(bconn: sa.engine.Connection, reader: Any, dst: state_mod.State,
          ids: target_mod.Ids, marks: dict[str, int]) -> tuple[set | None, set | None]:
    """(provider uuids, consumer uuids) whose detail rows to read; None: every one.

    ``reader`` holds the source's base read (source.Reader.base), ``dst``
    and ``ids`` berth's (target.read_base), ``marks`` the source's highest
    ids recorded by the last run.
    """
    src = reader.st
    old_rps, new_rps = dst.resource_providers, src.resource_providers
    providers = {u for u, row in new_rps.items()
                 if u not in old_rps or old_rps[u][1] != row[1]}
    gone = old_rps.keys() - new_rps.keys()
    providers |= gone
    written_rps, written_consumers = reader.written_since(marks)
    providers |= written_rps
    new_cs = reader.consumer_generations
    consumers = changed_keys(new_cs, ids.consumer_generations)
    consumers |= written_consumers
    # a provider that went (or came back under its uuid) takes berth's allocations on it
    consumers |= target_mod.consumers_on(bconn, ids, gone | (written_rps & old_rps.keys()))
    return (_or_all(providers, len(new_rps)), _or_all(consumers, len(new_cs)))


def _or_all(keys: set, total: int) -> set | None:
    return None if len(keys) > FULL_SHARE * max(total, 1) else keys


def changed_keys(new: list[tuple], old: list[tuple]) -> set:
    """The keys (first items) of the ``(key, value)`` pairs on one side only.

    New keys, keys gone, keys whose value differs.  At 100,000 providers
    these are 800,000 consumers' (uuid, generation) on each side, read in
    no particular order: one set of one side against the other's pairs
    (about 0.3 s at that size), exact.  A sum of the pairs' hashes was
    tried as a shortcut and dropped: CPython's tuple hash is close to linear
    in small integers, so two consumers exchanging generations summed the
    same (tests/unit/test_adoption_state.py).
    """
    return {k for k, _ in set(new).symmetric_difference(old)}
