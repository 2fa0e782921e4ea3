"""One option group of berth's: its name, title, help and options.

A fresh ``cfg.OptGroup`` is made for every ConfigOpts it is registered on:
``register_group()`` copies a group only shallowly, so a shared one would
leak ``set_override()`` between configuration objects (the tests build
many).
"""

from oslo_config import cfg


class OptionGroup:
    """``register`` on a ConfigOpts; ``list_opts`` for oslo-config-generator.

    :param default_opts: options of the same concern that live in
        ``[DEFAULT]`` (registered and listed with the group).
    """

    def __init__(self, name, title, opts, help=None, default_opts=()):
        self.name = name
        self.title = title
        self.help = help
        self.opts = opts
        self.default_opts = list(default_opts)

    def _group(self):
        return cfg.OptGroup(self.name, title=self.title, help=self.help)

    def register(self, conf):
        if self.default_opts:
            conf.register_opts(self.default_opts)
        conf.register_group(self._group())
        conf.register_opts(self.opts, group=self.name)

    def list_opts(self):
        listed = [(self._group(), self.opts)]
        return [('DEFAULT', self.default_opts)] + listed if self.default_opts else listed
