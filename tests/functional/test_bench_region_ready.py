"""bench/region_ready.py: the in-process first answer is the server's, byte for byte."""

import hashlib
import json

from bench import candidates, region_ready
from bench import candidates_servers as servers


def test_phases_and_a_restart_answer_the_same_body(tmp_path, capsys, monkeypatch):
    state = str(tmp_path / 'state')
    assert region_ready.main(['--n', '40', '--state', state, '--phases']) == 0
    row = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    phases = row['phases']
    assert set(phases['cpu']) == {'index_load_s', 'search_s', 'summaries_s', 'encode_s'}
    bodies = []
    real_get = servers.Client.get

    def get(self, query):
        body = real_get(self, query)
        if query == candidates.resources(0):
            bodies.append(body)
        return body

    monkeypatch.setattr(servers.Client, 'get', get)
    times = region_ready.restart(state)
    assert times['listening_s'] <= times['limited_ready_s'] <= times['ready_s']
    (body,) = bodies
    assert times['bytes'] == phases['bytes'] == len(body)
    assert hashlib.md5(body).hexdigest() == phases['md5']
    # every compute of the nested topology answers (40 computes: 96 candidates)
    assert len(json.loads(body)['allocation_requests']) == 96
