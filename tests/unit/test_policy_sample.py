"""etc/berth/policy.yaml.sample is what oslopolicy-sample-generator writes today."""

import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
GENERATOR_CONF = ROOT / 'etc/berth/berth-policy-generator.conf'


def test_policy_sample_is_current(tmp_path):
    """The generator's own command (it builds its own ConfigOpts), as make runs it."""
    out = tmp_path / 'policy.yaml.sample'
    tool = os.path.join(os.path.dirname(sys.executable), 'oslopolicy-sample-generator')
    subprocess.run([tool, '--config-file', str(GENERATOR_CONF), '--output-file', str(out)],
                   check=True, capture_output=True, timeout=120)
    committed = (ROOT / 'etc/berth/policy.yaml.sample').read_text()
    assert out.read_text() == committed, (
        'etc/berth/policy.yaml.sample is stale: run "make sample-policy" and commit it')


def test_policy_sample_covers_both_apis():
    assert {line.split('=', 1)[1].strip() for line in GENERATOR_CONF.read_text().splitlines()
            if line.startswith('namespace')} == {'berth', 'berth.baremetal'}
    sample = (ROOT / 'etc/berth/policy.yaml.sample').read_text()
    assert '#"placement:claims:create":' in sample
    assert '#"baremetal:allocation:create":' in sample
