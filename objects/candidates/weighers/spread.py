"""``spread``: the candidate that leaves the most capacity free (fills hosts evenly)."""

from objects.candidates.weighers import base


class SpreadWeigher(base.Weigher):
    def weigh(self, allocations, summaries):
        return base.free_ratio(allocations, summaries)


WEIGHER = SpreadWeigher
