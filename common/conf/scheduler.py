"""Options of the ``[scheduler]`` group: schedule-and-claim (POST /claims)."""

from oslo_config import cfg

from common.conf import group

opts = [
    cfg.StrOpt('default_weigher', default='spread',
               help='Weigher used when a POST /claims request names none: '
                    '"spread" (most free capacity first), "pack" (least free '
                    'capacity first) or "random"; any module of '
                    'objects/candidates/weighers/ is a weigher of that name.'),
    cfg.IntOpt('host_subset_size', default=0, min=0,
               help='Pick at random among this many best-ranked candidates; '
                    '0 (the default) means as many as there are live '
                    'conductors. Requests of one conductor already avoid '
                    'each other through its record of claims in flight, so '
                    'with one conductor the weigher is honoured exactly; '
                    'conductors do not see each other\'s claims, and a '
                    'subset about their number keeps them from all choosing '
                    'the same best host (measured: half the lost races for '
                    '"pack" over 3 conductors, with the same final packing).'),
    cfg.IntOpt('search_limit', default=50, min=1,
               help='Candidates one schedule-and-claim search gathers and ranks '
                    '(a window of trees: the first ones for "pack", from a '
                    'random tree for "spread" and "random"), instead of the '
                    'full answer of GET /allocation_candidates. A larger '
                    'window ranks more hosts per request and costs more.'),
    cfg.IntOpt('max_attempts', default=20, min=1,
               help='Candidates a conductor tries, best first, before it '
                    'searches again; a candidate taken by a concurrent '
                    'claim in the meantime is skipped.'),
    cfg.IntOpt('max_searches', default=3, min=1,
               help='Fresh candidate searches for one schedule-and-claim '
                    'request before it answers 409 berth.no_valid_host.'),
]


GROUP = group.OptionGroup(
    'scheduler', 'Schedule-and-claim options', opts)
register_opts = GROUP.register
list_opts = GROUP.list_opts
