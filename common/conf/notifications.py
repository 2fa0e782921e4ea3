"""Options of the ``[notifications]`` group: versioned notifications, as Ironic emits them.

Where notifications go is oslo.messaging's ``[oslo_messaging_notifications]``
(``driver``, ``topics``, ``transport_url``); these options say which are sent.
"""

from oslo_config import cfg

LEVELS = ('debug', 'info', 'warning', 'error', 'critical')


def _group():
    return cfg.OptGroup('notifications', title='Versioned notifications')


opts = [
    cfg.StrOpt('notification_format', default='versioned',
               choices=[('versioned', 'Ironic\'s versioned notifications '
                                      '(baremetal.allocation.create.end ...)'),
                        ('none', 'No notifications, whatever the driver.')],
               help='Which notifications the conductors emit through '
                    '[oslo_messaging_notifications] driver (none are sent while '
                    'that driver is unset or noop).'),
    cfg.StrOpt('notification_level', default='info', choices=LEVELS,
               help='Lowest priority sent (like Ironic\'s [DEFAULT] '
                    'notification_level): start and end notifications are info, '
                    'error notifications error.'),
]


def register_opts(conf):
    group = _group()
    conf.register_group(group)
    conf.register_opts(opts, group=group)


def list_opts():
    return [(_group(), opts)]
