"""Options of the ``[scheduler]`` group: schedule-and-claim (POST /claims)."""

from oslo_config import cfg


def _group():
    return cfg.OptGroup('scheduler', title='Schedule-and-claim options')


opts = [
    cfg.StrOpt('default_weigher', default='spread',
               help='Weigher used when a POST /claims request names none: '
                    '"spread" (most free capacity first), "pack" (least free '
                    'capacity first) or "random"; any module of '
                    'objects/weighers/ is a weigher of that name.'),
    cfg.IntOpt('host_subset_size', default=1, min=1,
               help='Pick at random among this many best-ranked candidates '
                    '(1: always the best). A larger subset makes concurrent '
                    'schedule-and-claim requests collide less on one host.'),
    cfg.IntOpt('max_attempts', default=20, min=1,
               help='Candidates a conductor tries, best first, before it '
                    'searches again; a candidate taken by a concurrent '
                    'claim in the meantime is skipped.'),
    cfg.IntOpt('max_searches', default=3, min=1,
               help='Fresh candidate searches for one schedule-and-claim '
                    'request before it answers 409 berth.no_valid_host.'),
]


def register_opts(conf):
    group = _group()
    conf.register_group(group)
    conf.register_opts(opts, group=group)


def list_opts():
    return [(_group(), opts)]
