"""cli/api.preimport_drivers: the master imports the RPC client's driver modules before the fork."""

import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SCRIPT = textwrap.dedent('''
    import sys
    from bench import candidates_servers
    from bench import placeload
    from cli import api
    state = sys.argv[1]
    conf = placeload.conf_for(state)
    conf.set_override('backend_url', 'file://' + state, group='coordination')
    mods = ('kombu.transport.pyamqp', 'tooz.drivers.file')
    print(' '.join(str(m in sys.modules) for m in mods))
    api.preimport_drivers(conf)
    print(' '.join(str(m in sys.modules) for m in mods))
''')


def test_driver_modules_are_imported_by_the_master(tmp_path):
    env = dict(os.environ, PYTHONPATH=ROOT)
    out = subprocess.run([sys.executable, '-W', 'ignore', '-c', SCRIPT, str(tmp_path)],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    before, after = out.stdout.split('\n')[:2]
    assert before == 'False False'         # the master's own imports do not load them
    assert after == 'True True'
