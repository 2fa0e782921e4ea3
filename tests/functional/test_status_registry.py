"""The conductor registry on /status, /status.json and in ``berth-manage status``.

Every registered conductor is shown, alive or dead, with the age of its
last heartbeat; a dead or stopped one is red on the page and makes
``berth-manage status`` warn (exit 1) until it is back or forgotten.
"""

import time

from oslo_upgradecheck import upgradecheck
import pytest

from cli import manage_status
from objects.baremetal import conductor as conductor_obj
from tests import fixtures
from tests.functional import status_helpers
from tests.functional.test_status_browser import (  # noqa: F401  (the fixture)
    _text,
    _wait_loaded,
    _with_token,
    browser,
)

Code = upgradecheck.Code
DEADLINE = 60         # a liveness bound on a loaded machine, not a timing


@pytest.fixture
def conf(tmp_path):
    return status_helpers.make_conf(tmp_path)


def _registry(client):
    resp = client.get('/status.json', version='')
    assert resp.status_code == 200, resp.text
    body = resp.json()
    return body['heartbeat_timeout'], {c['hostname']: c for c in
                                       body['registered_conductors']}


def _ghost(berth, ctx, client):
    """A registered conductor that never beats again (its process was killed)."""
    berth.conf.set_override('heartbeat_timeout', 2, group='conductor')
    conductor_obj.register(ctx, 'ghost', 'rack-9')
    end = time.monotonic() + DEADLINE
    while _registry(client)[1]['ghost']['alive']:
        if time.monotonic() > end:
            pytest.fail('ghost did not turn dead within %ss' % DEADLINE)
        time.sleep(0.2)


def _registry_check(conf):
    checks = manage_status.Checks(conf)
    try:
        for title, func in checks._upgrade_checks:
            if title == 'Registered conductors':
                return func(checks)
    finally:
        checks.close()
    raise KeyError('Registered conductors')


def test_status_json_lists_every_registered_conductor_alive(berth, client):
    timeout, shown = _registry(client)
    assert timeout == berth.conf.conductor.heartbeat_timeout
    assert sorted(shown) == sorted(c.host for c in berth.conductors)
    for entry in shown.values():
        assert (entry['alive'], entry['online']) == (True, True)
        assert 0 <= entry['heartbeat_age'] <= timeout
        assert entry['registered_at'].endswith('Z')
    result = _registry_check(berth.conf)
    assert result.code == Code.SUCCESS
    assert 'All 2 registered conductor(s) are alive.' == result.details


def test_a_stopped_and_a_dead_conductor_stay_on_status_and_warn(berth, client, ctx):
    stopped = berth.conductors[1]
    stopped.stop(grace=0)
    _ghost(berth, ctx, client)
    _, shown = _registry(client)
    assert (shown[stopped.host]['alive'], shown[stopped.host]['online']) == (False, False)
    ghost = shown['ghost']
    assert (ghost['alive'], ghost['online'], ghost['conductor_group']) == (
        False, True, 'rack-9')
    # dead means older than the 2 s timeout; the page rounds the age to 0.1 s
    assert ghost['heartbeat_age'] >= 2
    result = _registry_check(berth.conf)
    assert result.code == Code.WARNING
    assert 'ghost (dead, last heartbeat' in result.details
    assert '%s (stopped, last heartbeat' % stopped.host in result.details
    assert 'berth-manage conductor forget' in result.details
    conductor_obj.forget(ctx, 'ghost', 2)
    assert 'ghost' not in _registry(client)[1]
    assert 'ghost' not in _registry_check(berth.conf).details


def test_an_empty_registry_warns(tmp_path):
    conf = fixtures.make_conf(tmp_path / 'empty')
    fixtures.fresh_database(tmp_path, conf)
    result = _registry_check(conf)
    assert result.code == Code.WARNING and 'No conductor has registered' in result.details


def test_the_page_has_the_registry_table(client):
    page = client.get('/status', version='', headers={'accept': 'text/html'}).text
    assert '<h2 class="sub">Registered conductors</h2>' in page
    assert 'id="registry-rows"' in page
    assert 'registry(data.registered_conductors' in page


def test_the_page_shows_a_dead_conductor_red_in_chromium(berth, client, ctx, browser):  # noqa: F811
    _ghost(berth, ctx, client)
    _with_token(browser, 'admin')
    browser.get(berth.placement_url + '/status')
    _wait_loaded(browser)
    ghost = 'tr[data-registered="ghost"]'
    row = _text(browser, ghost)
    assert 'ghost' in row and 'rack-9' in row and 'dead' in row and 's ago' in row
    assert browser.execute_script(
        'var r = document.querySelector(arguments[0]); '
        'return [r.getAttribute("data-alive"), r.className, '
        'getComputedStyle(r.cells[0]).backgroundColor];', ghost) == [
            'false', 'dead', 'rgb(253, 236, 234)']
