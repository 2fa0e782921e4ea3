"""An oslo.policy Enforcer that looks for policy file changes once a second, not per check.

``Enforcer.enforce`` calls ``load_rules()`` on every check, which searches
the configuration directories for the policy file and every policy
directory (several ``stat`` calls, and when no policy file exists, a failed
search each time): measured at ~7% of the CPU of a claim.  Here the search
runs at most once per :data:`RECHECK_SECONDS`; an edited policy file still
takes effect, within that interval, as oslo.policy's own mtime check decides.

A check itself costs an argument-spec inspection per rule term inside
oslo.policy (~15% of an embedded claim's GIL time), so passed checks are
remembered by (rule, target, credentials) until the rules are next looked at.
Refusals are never remembered: they always go through oslo.policy, which
raises or logs as it does.
"""

import threading
import time

from oslo_policy import policy as oslo_policy

RECHECK_SECONDS = 1.0
# passed checks remembered at most (then forgotten all at once)
MEMO_ENTRIES = 4096


# values that are their own stand-in (exact types: a subclass goes the long way)
_ATOMS = frozenset((str, int, float, bool, type(None)))


def _freeze(value):
    """A hashable stand-in for a JSON-like ``value`` (TypeError if there is none).

    Atoms are kept inline rather than recursed into: a caller's credentials
    (about 15 keys, all but the role lists atoms) are frozen on every check.
    """
    if value.__class__ in _ATOMS:
        return value
    if isinstance(value, dict):
        items = [(k, v if v.__class__ in _ATOMS else _freeze(v))
                 for k, v in value.items()]
        items.sort()
        return tuple(items)
    if isinstance(value, (list, tuple)):
        return tuple([v if v.__class__ in _ATOMS else _freeze(v) for v in value])
    if isinstance(value, (set, frozenset)):
        return frozenset(_freeze(v) for v in value)
    hash(value)
    return value


def _memo_key(rule, target, creds):
    """The key of a check, or None when it cannot be remembered."""
    if not isinstance(rule, str):
        return None
    if hasattr(creds, 'to_policy_values'):
        creds = creds.to_policy_values()
    try:
        return rule, _freeze(target), _freeze(dict(creds))
    except TypeError:
        return None


class Enforcer(oslo_policy.Enforcer):
    """``oslo_policy.Enforcer`` with its file check throttled.

    ``clock`` (monotonic seconds) is for tests.
    """

    def __init__(self, conf, *args, clock=time.monotonic, **kwargs):
        self._clock = clock
        self._checked_at = None
        self._check_lock = threading.Lock()
        self._passed = {}
        super().__init__(conf, *args, **kwargs)

    def load_rules(self, force_reload=False):
        """Re-read the policy files when asked to or when the last look is old."""
        now = self._clock()
        checked = self._checked_at
        if (not force_reload and checked is not None
                and now - checked < RECHECK_SECONDS):
            return
        with self._check_lock:
            super().load_rules(force_reload)
            self._passed = {}          # the rules may have changed
            self._checked_at = now

    def enforce(self, rule, target, creds, do_raise=False, exc=None, *args, **kwargs):
        """oslo.policy's enforce, a passed check answered from memory."""
        self.load_rules()
        key = None if args or kwargs else _memo_key(rule, target, creds)
        passed = self._passed
        if key is not None and key in passed:
            return True
        result = super().enforce(rule, target, creds, do_raise, exc, *args, **kwargs)
        if key is not None and result is True:
            if len(passed) >= MEMO_ENTRIES:
                passed = self._passed = {}
            passed[key] = True
        return result

    def set_rules(self, *args, **kwargs):
        super().set_rules(*args, **kwargs)
        self._passed = {}

    def register_default(self, default):
        super().register_default(default)
        self._passed = {}

    def clear(self):
        """Forget the rules and the last look (the next check loads them again)."""
        super().clear()
        self._checked_at = None
        self._passed = {}


def make_enforcer(conf, rules):
    """An :class:`Enforcer` on ``conf`` with ``rules`` registered and loaded."""
    enforcer = Enforcer(conf)
    enforcer.register_defaults(rules)
    enforcer.load_rules()
    return enforcer
