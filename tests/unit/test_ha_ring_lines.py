"""The HA tier's ring-log bookkeeping (tests/ha/deployment.py) without a deployment.

Found by a flaky ``test_etcd_member_kill_changes_no_ring``: an API worker that
got its first request (and so built its app and ring reader, api.wsgi) only
during the final checks logged its first read of the group, which the test
counted as a ring change after the fault.
"""

from tests.ha import deployment as ha

BEFORE = (
    "2026-12-08 00:57:08.263 20770 INFO berth.conductor.ring [-] Conductor ring (reader): "
    "3 members; joined ['c0', 'c1', 'c2'], left []\n"
    "2026-12-08 00:57:11.402 20770 INFO berth.api.placement.app [-] GET / status: 200\n")
AFTER = (
    # a worker that never had a request before: its first read
    "2026-12-08 00:57:42.945 20768 INFO berth.conductor.ring [-] Conductor ring (reader): "
    "3 members; joined ['c0', 'c1', 'c2'], left []\n"
    # a worker whose ring was running before: a change
    "2026-12-08 00:57:43.318 20770 INFO berth.conductor.ring [-] Conductor ring (reader): "
    "2 members; joined [], left ['c1']\n"
    # the late worker's second line is a change too
    "2026-12-08 00:57:43.478 20768 INFO berth.conductor.ring [-] Conductor ring (reader): "
    "2 members; joined [], left ['c1']\n")


def test_a_processes_first_ring_read_is_not_a_change(tmp_path):
    (tmp_path / 'placement.log').write_text(BEFORE + AFTER)
    (tmp_path / 'c0.log').write_text('')
    offsets = {'placement.log': len(BEFORE.encode()), 'c0.log': 0}
    changes = [line[24:29] for _, line in ha.ring_changes(str(tmp_path), offsets)]
    first = [line[24:29] for _, line in ha.ring_first_reads(str(tmp_path), offsets)]
    assert changes == ['20770', '20768']
    assert first == ['20768']
    # from the start every line counts once, as a first read or as a change
    assert len(ha.ring_changes(str(tmp_path), {})) + len(
        ha.ring_first_reads(str(tmp_path), {})) == len(
            ha.log_lines(str(tmp_path), {}, ha.RING_LINE)) == 4
