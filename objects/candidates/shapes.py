"""Equal inventory values of an index refresh made one object each (the index's interning).

objects/candidates/index.py builds one :class:`Shapes` per refresh and asks it for
every new provider's ``inv``; objects/candidates/lone.py groups lone trees by
the shared dict it hands out.
"""


class Shapes:
    """One object per equal value among a refresh's new providers' inventories.

    A region's providers mostly repeat a few inventories (and usages): equal
    ints, (min, max, step, free, capacity, used) tuples and whole ``inv``
    dicts are made one object, as trait and aggregate sets are (index.py's
    ``_read_bases``).  Besides the heap this saves, a search reads every
    provider's inventory, and in CPython reading an object writes its
    reference count: with the values shared, those writes land on a few
    pages instead of dirtying the pages of every provider, which forked
    API workers (cli/api_workers.py) would otherwise each copy.  Measured
    with bench/api_workers_memory.py (doc/benchmarks.md).  Provider objects
    and their ``inv`` are never changed once made, so sharing is safe.
    """
    __slots__ = ('ints', 'tuples', 'invs', 'unused')

    def __init__(self):
        self.ints, self.tuples, self.invs = {}, {}, {}
        self.unused = {}      # id(base inv): (base inv, its shared inv at no usage)

    def of(self, base, used):
        """The shared inv of the base inventory ``base`` (class id -> (min, max, step,
        capacity)) with usage ``used`` ({class id: used} or None)."""
        if not used:
            found = self.unused.get(id(base))
            if found is not None:
                return found[1]
        items = []
        for rc_id, (min_unit, max_unit, step, capacity) in base.items():
            u = used.get(rc_id, 0) if used else 0
            items.append((rc_id, (min_unit, max_unit, step, capacity - u, capacity, u)))
        inv = self.inv(items)
        if not used:
            # (the base is kept with it: its id names it for the whole refresh)
            self.unused[id(base)] = (base, inv)
        return inv

    def inv(self, items):
        """The shared {class id: tuple} of ``items`` ((class id, values) in order)."""
        found = self.invs.get(tuple(items))
        if found is not None:
            # (equal tuples are equal keys: most providers end here, without
            # a look-up per value; a third of a first load's time before)
            return found
        ints = self.ints
        shared = []
        for rc_id, values in items:
            values = tuple([ints.setdefault(v, v) for v in values])
            shared.append((rc_id, self.tuples.setdefault(values, values)))
        key = tuple(shared)
        found = self.invs.get(key)
        if found is None:
            found = self.invs[key] = dict(shared)
        return found
