"""python-berthclient (client/) installs on a client machine: it imports only what it declares.

A plain client machine has python-openstackclient and what this distribution
lists in client/pyproject.toml, never berth's server packages.
"""

from importlib import metadata
import pathlib
import sys
import tomllib
import warnings

import pytest

from tests.unit import test_requirements

CLIENT = pathlib.Path(__file__).resolve().parents[2] / 'client'
sys.path.insert(0, str(CLIENT))

from berthclient import version  # noqa: E402

with warnings.catch_warnings():     # osc_lib warns about its own osc_lib.version
    warnings.simplefilter('ignore', DeprecationWarning)
    from berthclient.v1 import args  # noqa: E402


def _declared():
    project = tomllib.loads((CLIENT / 'pyproject.toml').read_text())['project']
    return {test_requirements._requirement_name(d) for d in project['dependencies']}


def test_the_client_imports_only_its_declared_dependencies():
    files = sorted((CLIENT / 'berthclient').rglob('*.py'))
    imports = test_requirements.top_level_imports(files, root=CLIENT)
    assert not set(imports) & set(test_requirements.SHIPPED), imports
    imports.pop('berthclient')
    problems = test_requirements.undeclared(imports, _declared(),
                                            metadata.packages_distributions())
    assert not problems, 'imported but not in client/pyproject.toml: %s' % problems


def test_the_declared_dependencies_are_only_the_osc_stack():
    assert _declared() == {'cliff', 'keystoneauth1', 'osc-lib'}


def test_negotiation_takes_the_highest_version_both_know():
    assert version.negotiate('1.0', '1.39') == '1.39'
    assert version.negotiate('1.0', '1.45') == version.MAX
    assert version.negotiate('1.0', '1.12') == '1.12'
    with pytest.raises(ValueError, match='the server speaks 1.40 to 1.45'):
        version.negotiate('1.40', '1.45')


def test_amounts_refuse_what_is_not_name_equals_integer():
    assert args.amounts(['VCPU=2', 'MEMORY_MB=0'], '--resource') == {'VCPU': 2,
                                                                     'MEMORY_MB': 0}
    for bad in ('VCPU', '=2', 'VCPU=x', 'VCPU=-1'):
        with pytest.raises(args.exceptions.CommandError, match='--resource takes'):
            args.amounts([bad], '--resource')
