"""api-ref/source/samples are what a fresh berth answers (a real embedded berth:
seconds, so it runs here, beside tests/unit/test_api_ref.py's static checks)."""

import pathlib

from cli.api_ref import samples as sample_runner

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOURCE = ROOT / 'api-ref' / 'source'


def test_samples_are_current():
    """A fresh berth run through the scenario answers exactly the committed samples."""
    rendered = sample_runner.render()
    committed = {p.name: p.read_text() for p in (SOURCE / 'samples').glob('*.json')}
    assert sorted(rendered) == sorted(committed), (
        'api-ref/source/samples is stale: run "make sample-config" and commit it')
    for name, text in rendered.items():
        assert text == committed[name], (
            'api-ref/source/samples/%s is stale: run "make sample-config"' % name)
