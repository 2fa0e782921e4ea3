"""The conductor's record of claims in flight (conductor.manager.inflight)."""

from conductor.manager import inflight

A = {'rp-a': {'VCPU': 2}}
B = {'rp-a': {'VCPU': 1, 'MEMORY_MB': 64}, 'rp-b': {'VCPU': 4}}


def test_held_units_are_pending_for_every_search_and_summed():
    record = inflight.InFlight()
    with record.view() as since:
        record.hold(A)
        record.hold(B)
        assert record.pending(since) == {'rp-a': {'VCPU': 3, 'MEMORY_MB': 64},
                                         'rp-b': {'VCPU': 4}}


def test_a_failed_claim_is_released_at_once():
    record = inflight.InFlight()
    with record.view() as since:
        token = record.hold(A)
        record.release(token, committed=False)
        assert record.pending(since) == {}
    assert len(record) == 0


def test_a_committed_claim_counts_only_for_searches_that_started_before_it():
    record = inflight.InFlight()
    with record.view() as older:
        token = record.hold(A)
        record.release(token, committed=True)
        with record.view() as newer:
            # the older search may have read the usage before the commit
            assert record.pending(older) == {'rp-a': {'VCPU': 2}}
            # the newer one read it from the database
            assert record.pending(newer) == {}
        assert len(record) == 1
    # no search is left that could miss it
    assert len(record) == 0


def test_a_committed_claim_with_no_search_under_way_is_dropped():
    record = inflight.InFlight()
    record.release(record.hold(A), committed=True)
    assert len(record) == 0


def test_choosing_yields_the_pending_units():
    record = inflight.InFlight()
    record.hold(B)
    with record.view() as since:
        with record.choosing(since) as pending:
            assert pending == {'rp-a': {'VCPU': 1, 'MEMORY_MB': 64}, 'rp-b': {'VCPU': 4}}
            record.hold(A)
        assert record.pending(since)['rp-a']['VCPU'] == 3
