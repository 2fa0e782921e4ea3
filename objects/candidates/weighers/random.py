"""``random``: every candidate equally likely (spreads load without any order)."""

import random as random_lib

from objects.candidates.weighers import base


class RandomWeigher(base.Weigher):
    def __init__(self, rng=None):
        self.rng = rng or random_lib.SystemRandom()

    def weigh(self, allocations, summaries):
        return self.rng.random()


WEIGHER = RandomWeigher
