"""The request object handlers receive, with berth's per-request state."""

import webob


class BerthRequest(webob.Request):
    """A webob request whose environ carries berth's state (set by the app)."""

    @property
    def context(self):
        return self.environ['berth.context']

    @property
    def version(self):
        return self.environ['berth.microversion']

    @property
    def conf(self):
        return self.environ['berth.conf']

    @property
    def conductor(self):
        """The conductor RPC client (conductor.rpcapi.ConductorAPI) or None."""
        return self.environ.get('berth.conductor')
