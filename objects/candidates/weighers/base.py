"""The interface every weigher implements, and the free-capacity measure they share."""


class Weigher:
    """Scores one candidate; a higher score is a better choice.

    ``start`` tells where the conductor's window of candidates begins
    (objects.candidates.window): ``'random'`` (a random tree: a different
    part of the cloud each time) or ``'first'`` (the first trees in root
    order, for weighers that fill hosts one after another).
    """

    start = 'random'

    def weigh(self, allocations, summaries):
        """The score of a candidate.

        ``allocations`` is ``{rp uuid: {'resources': {class: amount}}}`` (a
        candidate's allocation request); ``summaries`` is ``{rp uuid:
        {'resources': {class: {'capacity': c, 'used': u}}}}`` (its provider
        summaries, with the usage as it stands before this claim).
        """
        raise NotImplementedError


def free_ratio(allocations, summaries):
    """Mean fraction of capacity left free, after the claim, on the claimed inventories."""
    ratios = []
    for rp_uuid, alloc in allocations.items():
        inventories = summaries[rp_uuid]['resources']
        for rc, amount in alloc['resources'].items():
            inv = inventories[rc]
            capacity = inv['capacity']
            ratios.append((capacity - inv['used'] - amount) / capacity if capacity else 0.0)
    return sum(ratios) / len(ratios) if ratios else 0.0
