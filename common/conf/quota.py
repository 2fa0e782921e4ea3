"""Options of the ``[quota]`` group: limits counted from allocations and consumers."""

from oslo_config import cfg

from common.conf import group

opts = [
    cfg.BoolOpt('enforce', default=False,
                help='When true every allocation write (PUT/POST '
                     '/allocations, POST /claims) is checked against the '
                     'limits of its projects and users in the '
                     'transaction that writes it; a write over a limit is '
                     'refused with 403 berth.quota.exceeded. Where the '
                     'limits come from is [quota] limits_source.'),
    cfg.StrOpt('limits_source', default='berth', choices=[
        ('berth', "berth's own table: set with PUT /quotas/{project_id} or "
                  '"berth-manage quota set" (per project and per user)'),
        ('keystone', 'Keystone unified limits, read with the [oslo_limit] '
                     'options: registered limits are the defaults, project '
                     'limits override them. Names as nova uses them: '
                     '"servers" (consumers of type INSTANCE), "class:<RC>" '
                     '(units of one resource class), "cores" (VCPU + PCPU). '
                     'PUT/DELETE /quotas answer 409 then.'),
    ], help='Where quota limits come from. Usage is always counted from '
            'allocations and consumers, and the check always runs inside '
            'the claim transaction.'),
    cfg.IntOpt('limits_cache_ttl', default=30, min=0, max=3600,
               help='With limits_source = keystone: seconds a project\'s '
                    'limits (and the registered defaults) read from '
                    'Keystone are used before they are read again. A '
                    'limit changed in Keystone takes effect within this '
                    'time. 0 reads Keystone for every checked write.'),
    cfg.IntOpt('limits_stale_max_age', default=300, min=0, max=86400,
               help='With limits_source = keystone: when Keystone cannot '
                    'be read, limits read at most this many seconds ago '
                    'are still used (a warning is logged). Past this age, '
                    'or with nothing read yet, a write that needs the '
                    'limits is refused with 503 '
                    'berth.quota.limits_unavailable: berth never lets a '
                    'write through unlimited because Keystone is down.'),
    cfg.IntOpt('limits_cache_size', default=10000, min=1,
               help='With limits_source = keystone: the most projects whose '
                    'limits are kept in memory per process (least recently '
                    'used ones are dropped).'),
]


GROUP = group.OptionGroup(
    'quota', 'Quota options', opts)
register_opts = GROUP.register
list_opts = GROUP.list_opts
