"""bench/candidates_ab.py: two trees' answers compared request by request."""

from bench import candidates_ab, placeload


def test_one_tree_against_itself_gives_identical_answers(tmp_path, capsys):
    placeload.load_state(20, state=str(tmp_path))
    rc = candidates_ab.main(['--state', str(tmp_path), '--base', candidates_ab.ROOT,
                             '--requests', '2', '--warmup', '1', '--shapes', '|&limit=5'])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "answers that differ: 0" in out
    assert 'no limit' in out and 'limit=5 ' in out
    # 20 computes, 2 of them diskless with 3 sharing storage providers each
    assert 'n=24 ' in out
