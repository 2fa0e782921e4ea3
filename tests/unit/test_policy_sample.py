"""etc/berth/policy.yaml.sample is what oslopolicy-sample-generator writes today."""

import pathlib

from oslo_config import cfg
from oslo_policy import generator

ROOT = pathlib.Path(__file__).resolve().parents[2]
GENERATOR_CONF = ROOT / 'etc/berth/berth-policy-generator.conf'


def test_policy_sample_is_current(tmp_path):
    out = tmp_path / 'policy.yaml.sample'
    generator.generate_sample(args=['--config-file', str(GENERATOR_CONF),
                                    '--output-file', str(out)], conf=cfg.ConfigOpts())
    committed = (ROOT / 'etc/berth/policy.yaml.sample').read_text()
    assert out.read_text() == committed, (
        'etc/berth/policy.yaml.sample is stale: run "make sample-policy" and commit it')


def test_policy_sample_covers_both_apis():
    assert {line.split('=', 1)[1].strip() for line in GENERATOR_CONF.read_text().splitlines()
            if line.startswith('namespace')} == {'berth', 'berth.baremetal'}
    sample = (ROOT / 'etc/berth/policy.yaml.sample').read_text()
    assert '#"placement:claims:create":' in sample
    assert '#"baremetal:allocation:create":' in sample
