"""The README's command blocks, pasted in order into one clean shell, do what they say.

A newcomer reads README.md top to bottom and pastes each ``sh`` block into
the same terminal, so a variable one block sets is still set in the next.
This test does exactly that against a ``berth serve`` it starts (on free
loopback ports: the README's 8778 and 6385 are swapped for them, nothing
else is changed), in a venv holding only the clients the blocks install
(``readme-pins.txt``) and an environment with nothing of the caller's but
PATH and HOME.  Every command must exit 0, and the output its comment
promises (``EXPECT``) must be there.  The set-up block (``make run``/``make
test``) is what the test itself stands for and is not pasted.
"""

import os
import pathlib
import re
import subprocess
import sys
import time

import pytest
import requests

from tests import services
from tests.compat import suite_venv

pytestmark = [pytest.mark.compat, pytest.mark.integration]

ROOT = pathlib.Path(__file__).resolve().parents[2]
PINS = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'readme-pins.txt')
# a command (its first words) -> text its output must show, as its comment promises
EXPECT = {
    'curl -H': '"resource_providers"',
    'openstack resource provider usage show': re.compile(r'VCPU\s*\|\s*2\b.*MEMORY_MB\s*\|'
                                                         r'\s*4096|MEMORY_MB\s*\|\s*4096.*'
                                                         r'VCPU\s*\|\s*2\b', re.S),
    'openstack allocation candidate list': 'VCPU=2',
    'openstack baremetal allocation create': 'active',
    'openstack baremetal node list': 'node-1',
    'openstack berth claim create': 'VCPU',
    'openstack berth quota show': '"enforced"',
    'openstack berth capacity': 'fits',
}
SKIP_BLOCK = ('make run', 'make test')


def blocks(text):
    """The README's ``sh`` blocks, in order, as lists of commands (continuations joined)."""
    found = []
    for body in re.findall(r'^```sh\n(.*?)^```', text, re.S | re.M):
        commands, current = [], ''
        for line in body.splitlines():
            current += line
            if line.endswith('\\'):
                current = current[:-1] + ' '
                continue
            if current.strip() and not current.lstrip().startswith('#'):
                commands.append(current.strip())
            current = ''
        found.append(commands)
    return found


def _script(commands):
    lines = []
    for i, command in enumerate(commands):
        # stderr beside stdout, in the same shell (a variable it sets stays set)
        # (the end marker on a line of its own: curl's answer ends without a newline)
        lines += ['echo "@@@ begin %d"' % i, '{ %s\n} 2>&1' % command,
                  'rc=$?; echo; echo "@@@ end %d $rc"' % i]
    return '\n'.join(lines) + '\n'


def _outputs(text, count):
    """{index: (exit status, output)} from the markers :func:`_script` prints."""
    got = {}
    for match in re.finditer(r'^@@@ begin (\d+)\n(.*?)^@@@ end \1 (\d+)$', text, re.S | re.M):
        got[int(match.group(1))] = (int(match.group(3)), match.group(2))
    return got


@pytest.fixture
def berth_serve(tmp_path):
    placement, baremetal = services.free_port(), services.free_port()
    log = open(tmp_path / 'berth.log', 'wb')
    proc = subprocess.Popen(
        [os.path.join(os.path.dirname(sys.executable), 'berth'), 'serve',
         '--data-dir', str(tmp_path / 'berth-data'), '--placement-port', str(placement),
         '--baremetal-port', str(baremetal)], stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 120
    while True:
        try:
            if requests.get('http://127.0.0.1:%d/' % baremetal, timeout=2).ok:
                break
        except requests.RequestException:
            pass
        assert proc.poll() is None, (tmp_path / 'berth.log').read_text()[-3000:]
        assert time.monotonic() < deadline, 'berth serve did not answer in 120 s'
        time.sleep(0.5)
    yield placement, baremetal
    proc.terminate()
    try:
        proc.wait(60)
    except subprocess.TimeoutExpired:
        proc.kill()


def test_the_readme_blocks_run_as_pasted(berth_serve, tmp_path):
    venv = suite_venv.require('readme', PINS)
    placement, baremetal = berth_serve
    text = (ROOT / 'README.md').read_text()
    text = text.replace('127.0.0.1:8778', '127.0.0.1:%d' % placement)
    text = text.replace('127.0.0.1:6385', '127.0.0.1:%d' % baremetal)
    pasted = [b for b in blocks(text) if not any(b and b[0].startswith(s) for s in SKIP_BLOCK)]
    assert len(pasted) >= 4, pasted
    commands = [c for block in pasted for c in block]
    env = {'PATH': '%s:/usr/local/bin:/usr/bin:/bin' % os.path.join(venv, 'bin'),
           'HOME': str(tmp_path), 'LANG': 'C.UTF-8', 'PIP_DISABLE_PIP_VERSION_CHECK': '1'}
    proc = subprocess.run(['bash', '-c', _script(commands)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=900)
    got = _outputs(proc.stdout + '\n', len(commands))
    failures = []
    for i, command in enumerate(commands):
        if i not in got:
            failures.append('%s: never ran' % command)
            continue
        rc, out = got[i]
        if rc != 0:
            failures.append('%s: exit %d\n%s' % (command, rc, out[-1500:]))
            continue
        for start, want in EXPECT.items():
            if command.startswith(start):
                ok = want.search(out) if hasattr(want, 'search') else want in out
                if not ok:
                    failures.append('%s: %r not in its output\n%s' % (command, want, out))
    assert not failures, '\n\n'.join(failures) + '\n-- stderr --\n' + proc.stderr[-3000:]
