"""Whether providers meet a group's required traits (its any-of sets): one, or together."""

import functools
import operator


def has_all(required, traits):
    """Whether one provider's ``traits`` meet every any-of set of ``required``."""
    for any_of in required:
        if any_of.isdisjoint(traits):
            return False
    return True


def meeting(required, per_class, combos):
    """The ``combos`` whose providers together meet every any-of set of ``required``.

    (The union of a combo's traits must meet each set.)  Without a set of
    traits per combo: each provider of ``per_class`` (the options the
    combos are made of) is judged once, as a bit per any-of set it meets,
    and a combo's providers must together set every bit.  A tree whose
    options cannot meet them in any combination is refused before its
    combos are made (e.g. a compute whose disk comes from sharing storage
    without the trait: a dozen combos that all fail).
    """
    need = (1 << len(required)) - 1
    bits = {}
    union = 0
    for found in per_class:
        for p in found:
            if p not in bits:
                met = 0
                for bit, any_of in enumerate(required):
                    if not any_of.isdisjoint(p.traits):
                        met |= 1 << bit
                bits[p] = met
                union |= met
    if union != need:
        return []
    get = bits.__getitem__
    if need == 1:
        return [combo for combo in combos if any(map(get, combo))]
    return [combo for combo in combos
            if functools.reduce(operator.or_, map(get, combo), 0) == need]
