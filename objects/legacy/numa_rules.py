"""NUMA topology of a legacy compute node as inventories, in two models.

``[compute_migration] numa_model`` picks one (see doc/source/operations.md):

* ``seed`` (the default, the seed's model): one inventory per NUMA class on
  the compute node's own provider, ``total`` = the whole node, ``min_unit``
  1 and ``max_unit`` = one NUMA cell's share (the largest cell):
  NUMA_SOCKET (sockets; a cell never spans two, so ``max_unit`` 1),
  NUMA_CORE (cores: a group of thread siblings counts once), NUMA_THREAD
  (hardware threads: ``cpuset`` and ``pcpuset``) and NUMA_MEMORY_MB (the
  cells' ``memory``).
* ``pcpu``: dedicated CPUs (``pcpuset``) as PCPU and huge pages as
  CUSTOM_HUGEPAGES_<size>, the model berth used before.
"""

from __future__ import annotations

from typing import Any

import os_resource_classes as orc

from objects.legacy import rule_helpers as rh

SEED = 'seed'
PCPU = 'pcpu'
MODELS = (SEED, PCPU)
# the classes either model may have written (dropped when a row stops having them)
SEED_CLASSES = frozenset({orc.NUMA_SOCKET, orc.NUMA_CORE, orc.NUMA_THREAD,
                          orc.NUMA_MEMORY_MB})
HUGEPAGES_PREFIX = 'CUSTOM_HUGEPAGES_'


def cells(node: Any) -> list[dict]:
    """The cells of the row's numa_topology ([] when there is none)."""
    data = rh.unwrap(rh.load_json(node, 'numa_topology'))
    if data is None:
        return []
    found = data.get('cells') if isinstance(data, dict) else None
    if not isinstance(found, list):
        raise rh.BadComputeNode(node.id, 'numa_topology has no list of cells')
    found = [rh.unwrap(c) for c in found]
    if not all(isinstance(c, dict) for c in found):
        raise rh.BadComputeNode(node.id, 'numa_topology has a cell that is not an object')
    return found


def page_class(size_kb: int) -> str:
    """The class of huge pages of ``size_kb``: CUSTOM_HUGEPAGES_2M, _1G, _<n>K."""
    if size_kb % 1048576 == 0:
        return HUGEPAGES_PREFIX + '%dG' % (size_kb // 1048576)
    if size_kb % 1024 == 0:
        return HUGEPAGES_PREFIX + '%dM' % (size_kb // 1024)
    return HUGEPAGES_PREFIX + '%dK' % size_kb


def _cpu_list(node, cell, field):
    value = cell.get(field) or []
    if not isinstance(value, list):
        raise rh.BadComputeNode(node.id, 'numa_topology %s is not a list' % field)
    return [rh.count(node, cpu, 'cpu') for cpu in value]


def pcpu_model(node: Any) -> dict[str, dict[str, int | float]]:
    """PCPU from each cell's pcpuset, huge pages from its mempages.

    total = sum over the cells, max_unit = the largest cell (one consumer
    cannot span cells); reserved pages are reserved; 4 KiB pages are plain
    MEMORY_MB and are left out.
    """
    pcpus: list[int] = []
    pages: dict[int, list[tuple[int, int]]] = {}   # page size -> (total, reserved) per cell
    for cell in cells(node):
        pcpus.append(len(_cpu_list(node, cell, 'pcpuset')))
        for page in cell.get('mempages') or []:
            page = rh.unwrap(page)
            if not isinstance(page, dict):
                raise rh.BadComputeNode(node.id, 'numa_topology mempage is not an object')
            size = rh.count(node, page.get('size_kb'), 'size_kb')
            if size <= 4:
                continue
            total = rh.count(node, page.get('total', 0), 'page total')
            used = rh.count(node, page.get('used', 0), 'pages used')
            reserved = rh.count(node, page.get('reserved', 0), 'pages reserved')
            if used + reserved > total:
                raise rh.BadComputeNode(node.id, '%d KiB pages: used %d + reserved %d '
                                                 'is more than total %d'
                                        % (size, used, reserved, total))
            pages.setdefault(size, []).append((total, reserved))
    out = {}
    if sum(pcpus):
        out[orc.PCPU] = rh.record(sum(pcpus), max_unit=max(pcpus))
    for size, per_cell in sorted(pages.items()):
        total = sum(t for t, _ in per_cell)
        reserved = sum(r for _, r in per_cell)
        if total - reserved > 0:
            out[page_class(size)] = rh.record(total, max_unit=max(t for t, _ in per_cell),
                                              reserved=reserved)
    return out


def _cores(node, cell, threads):
    """Cores of a cell: each sibling group once, a thread in none counts alone."""
    siblings = cell.get('siblings') or []
    if not isinstance(siblings, list):
        raise rh.BadComputeNode(node.id, 'numa_topology siblings is not a list')
    groups = 0
    seen: set[int] = set()
    for group in siblings:
        if not isinstance(group, list):
            raise rh.BadComputeNode(node.id, 'numa_topology siblings has a group that '
                                             'is not a list')
        members = {rh.count(node, cpu, 'cpu') for cpu in group} & threads
        if members - seen:
            groups += 1
            seen |= members
    return groups + len(threads - seen)


def seed_model(node: Any) -> dict[str, dict[str, int | float]]:
    """NUMA_SOCKET, NUMA_CORE, NUMA_THREAD, NUMA_MEMORY_MB on the node's provider."""
    sockets, cores, threads, memory = set(), [], [], []
    for index, cell in enumerate(cells(node)):
        cpus = set(_cpu_list(node, cell, 'cpuset')) | set(_cpu_list(node, cell, 'pcpuset'))
        threads.append(len(cpus))
        cores.append(_cores(node, cell, cpus))
        memory.append(rh.count(node, cell.get('memory', 0), 'memory'))
        socket = cell.get('socket')
        sockets.add(('cell', index) if socket is None
                    else ('socket', rh.count(node, socket, 'socket')))
    out = {}
    if sockets:
        out[orc.NUMA_SOCKET] = rh.record(len(sockets), max_unit=1)
    for rc, per_cell in ((orc.NUMA_CORE, cores), (orc.NUMA_THREAD, threads),
                         (orc.NUMA_MEMORY_MB, memory)):
        if sum(per_cell):
            out[rc] = rh.record(sum(per_cell), max_unit=max(per_cell))
    return out


def numa(node: Any, model: str) -> dict[str, dict[str, int | float]]:
    """The NUMA inventories of ``node`` in ``model`` (``seed`` or ``pcpu``)."""
    return pcpu_model(node) if model == PCPU else seed_model(node)


def is_numa_class(rc: str) -> bool:
    """Whether a class is one either model writes (a row governs it)."""
    return rc in SEED_CLASSES or rc == orc.PCPU or rc.startswith(HUGEPAGES_PREFIX)
