"""The upgrade gate of the compute-node write path, over published member versions."""

from conductor.rpcapi import gate


def member(host, version):
    caps = {} if version is None else {'rpc_api_version': version}
    return {'host': host, 'capabilities': caps}


def test_open_when_every_member_is_new_enough():
    state = gate.evaluate([member('c1', '1.7'), member('c2', '1.10')])
    assert state.open and state.members == 2 and state.old == ()
    assert 'write path is on' in state.describe()


def test_closed_names_the_old_and_unknown_members():
    state = gate.evaluate([member('c1', '1.7'), member('c2', '1.6'), member('c3', None)])
    assert not state.open
    assert state.old == (('c2', '1.6'), ('c3', None))
    assert 'c2 (1.6), c3 (unknown)' in state.describe()


def test_closed_without_members():
    state = gate.evaluate([])
    assert not state.open and 'No conductor' in state.describe()


def test_versions_compare_as_numbers_not_text():
    assert gate.at_least('1.10', '1.7') and not gate.at_least('1.6', '1.7')
    assert not gate.at_least('garbage', '1.7') and not gate.at_least(None, '1.7')


class CountingRing:
    def __init__(self, members):
        self.members, self.reads = members, 0

    def describe(self):
        self.reads += 1
        return self.members


def test_state_is_cached_for_ttl_and_forget_rereads():
    ring = CountingRing([member('c1', '1.6')])
    g = gate.UpgradeGate(ring, ttl=3600)
    assert not g.state().open and not g.state().open
    assert ring.reads == 1
    ring.members = [member('c1', '1.7')]
    g.forget()
    assert g.state().open and ring.reads == 2
