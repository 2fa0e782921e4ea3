"""``pack``: the candidate that leaves the least capacity free (fills one host first)."""

from objects.weighers import base


class PackWeigher(base.Weigher):
    def weigh(self, allocations, summaries):
        return -base.free_ratio(allocations, summaries)


WEIGHER = PackWeigher
