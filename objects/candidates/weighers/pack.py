"""``pack``: the candidate that leaves the least capacity free (fills one host first)."""

from objects.candidates.weighers import base


class PackWeigher(base.Weigher):
    # fill the first trees in root order, so every request ranks the same fullest hosts
    start = 'first'

    def weigh(self, allocations, summaries):
        return -base.free_ratio(allocations, summaries)


WEIGHER = PackWeigher
