"""Options of the ``[allocation]`` group: bare-metal node allocations."""

from oslo_config import cfg

from common.conf import group

GROUP_NAME = 'allocation'


opts = [
    cfg.StrOpt('backend', default='database', choices=[
        ('database', 'Conductors pick and reserve nodes in the nodes table.'),
        ('placement', 'Nodes are mirrored as resource providers (one unit of '
                      'CUSTOM_<RESOURCE_CLASS>, their traits, reserved while '
                      'unusable) and an allocation is also a Placement claim '
                      'whose consumer is the allocation uuid, quota included.')],
        help='Where node allocations are decided.'),
    cfg.IntOpt('orphan_check_interval', default=10, min=0,
               help='Seconds between checks for allocating rows whose conductor '
                    'left the group (taken over by their new ring owner); '
                    '0 disables the check.'),
    cfg.IntOpt('sweep_interval', default=30, min=0,
               help='Seconds between sweeps of this conductor\'s own stale '
                    'allocating rows (a cast lost to a broker restart); '
                    '0 disables the sweep.'),
    cfg.FloatOpt('redrive_interval', default=2.0, min=0,
                 help='Seconds between re-drives of this conductor\'s own '
                      'allocating rows that are neither running nor queued '
                      '(a cast that arrived when the backlog was full); '
                      '0 disables it.'),
    cfg.IntOpt('backlog', default=256, min=0,
               help='Allocations a busy conductor queues for its workers; '
                    'more wait in the database for the re-drive.'),
    cfg.IntOpt('stale_timeout', default=60, min=1,
               help='Age in seconds after which an allocating row is treated '
                    'as lost and driven again by its conductor.'),
    cfg.IntOpt('node_locked_retry_attempts', default=3, min=1,
               help='Passes over the candidate nodes that were locked by '
                    'another operation before the allocation fails.'),
    cfg.FloatOpt('node_locked_retry_interval', default=0.1, min=0,
                 help='Seconds between two passes over locked candidate nodes.'),
    cfg.IntOpt('max_extra_bytes', default=65536, min=0,
               help='The most an allocation\'s ``extra`` may take, in bytes of '
                    'JSON, on create, backfill and PATCH, over REST and RPC '
                    'alike (400 ``extra is larger than N bytes``); 0 leaves '
                    'only the request body limit.'),
    cfg.IntOpt('max_extra_bytes_per_project', default=16 * 1024 * 1024, min=0,
               help='The most the ``extra`` of all allocations of one owner '
                    '(project) may take together, in bytes of JSON as stored, '
                    'on create, backfill and PATCH, over REST and RPC alike '
                    '(400 ``extra of the allocations of project P would take '
                    'N bytes, more than the project\'s CAP``; nothing is '
                    'written).  The database decides: concurrent writes for '
                    'one owner are serialised on its row, so they cannot '
                    'together exceed it; deleting an allocation gives its bytes '
                    'back.  Allocations without an owner count as one more '
                    'project.  0 means no cap.'),
]


GROUP = group.OptionGroup(
    GROUP_NAME, 'Bare-metal node allocations', opts)
register_opts = GROUP.register
list_opts = GROUP.list_opts
