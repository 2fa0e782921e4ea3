"""Options of the ``[placement]`` group: Placement API behaviour."""

from oslo_config import cfg

from common.conf import group

GROUP_NAME = 'placement'


_NIL = '00000000-0000-0000-0000-000000000000'

opts = [
    cfg.StrOpt('incomplete_consumer_project_id', default=_NIL,
               help='Project recorded for consumers whose allocations were '
                    'written below microversion 1.8, without a project.'),
    cfg.StrOpt('incomplete_consumer_user_id', default=_NIL,
               help='User recorded for consumers whose allocations were '
                    'written below microversion 1.8, without a user.'),
    cfg.BoolOpt('randomize_allocation_candidates', default=False,
                help='When true, "limit" takes a random sample of the '
                     'allocation candidates and an unlimited answer is '
                     'shuffled; when false the order is deterministic.'),
    cfg.IntOpt('max_allocation_candidates', default=-1, min=-1,
               help='Upper bound on the allocation candidates generated for '
                    'one request (before "limit"); -1 means no bound.'),
    cfg.StrOpt('allocation_candidates_generation_strategy',
               default='depth-first', choices=[
                   ('depth-first', 'All candidates of one root before the next.'),
                   ('breadth-first', 'One candidate per viable root per pass.')],
               help='Order in which roots are visited when '
                    'max_allocation_candidates cuts the generation short.'),
    cfg.IntOpt('allocation_candidates_cache_size', default=32, min=0,
               help='Answers of GET /allocation_candidates each API process '
                    'keeps while nothing is committed to the database (SQLite: '
                    'PRAGMA data_version sees every commit, from any process; '
                    'PostgreSQL: the server snapshot, when reads go to the '
                    'primary; not on MySQL); 0 disables the cache.'),
    cfg.IntOpt('allocation_conflict_retry_count', default=10, min=0,
               help='Server-side retries of an allocation write whose provider '
                    'generation moved underneath it, before answering 409.'),
]


GROUP = group.OptionGroup(
    GROUP_NAME, 'Placement API behaviour', opts)
register_opts = GROUP.register
list_opts = GROUP.list_opts
