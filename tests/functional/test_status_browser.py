"""The status page in a real headless Chromium: it loads, renders the data, refreshes.

Drives Debian's ``chromium`` through ``chromedriver`` (selenium).  Without
them the test is skipped loudly, unless ``BERTH_REQUIRE_SERVICES=1`` (CI),
where that is a failure.  The screenshot is checked for content (colours of
the header, the state tiles and the capacity bars); with
``BERTH_UPDATE_SCREENSHOTS=1`` it also replaces doc/source/images/status.png.
"""

import datetime
import os
import pathlib
import re
import shutil

from PIL import Image
import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

from objects.baremetal import allocation as node_alloc_obj
from objects.baremetal import conductor as conductor_obj
from tests.functional import status_helpers

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCREENSHOT = ROOT / 'doc' / 'source' / 'images' / 'status.png'
CHROMIUM = os.environ.get('BERTH_CHROMIUM', '/usr/bin/chromium')
CHROMEDRIVER = os.environ.get('BERTH_CHROMEDRIVER', '/usr/bin/chromedriver')
REQUIRE = os.environ.get('BERTH_REQUIRE_SERVICES') == '1'
LOAD_DEADLINE = 60   # seconds: a liveness bound on a loaded machine, not a timing

# colours of the page's stylesheet (api/placement/status_page.py)
HEADER = (0x1f, 0x3a, 0x5f)
STATE_COLOURS = {'allocating': (0xd9, 0x8e, 0x04), 'active': (0x2e, 0x85, 0x40),
                 'error': (0xc6, 0x28, 0x28)}
BAR = (0x2f, 0x6f, 0xb3)

FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic',
         '--no-first-run', '--disable-background-networking',
         '--disable-component-update', '--disable-sync', '--window-size=1280,1200',
         '--hide-scrollbars', '--force-device-scale-factor=1']


@pytest.fixture
def conf(tmp_path):
    return status_helpers.make_conf(tmp_path)


@pytest.fixture
def browser(tmp_path):
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not os.access(p, os.X_OK)]
    if missing:
        reason = ('!!! %s not installed: the status page browser test is SKIPPED; '
                  'install the Debian packages chromium and chromium-driver !!!'
                  % ', '.join(missing))
        if REQUIRE:
            pytest.fail(reason + ' [BERTH_REQUIRE_SERVICES=1]')
        pytest.skip(reason)
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS + ['--user-data-dir=%s' % (tmp_path / 'chromium-profile')]:
        options.add_argument(flag)
    service = webdriver.ChromeService(executable_path=CHROMEDRIVER,
                                      log_output=str(tmp_path / 'chromedriver.log'))
    driver = webdriver.Chrome(options=options, service=service)
    try:
        yield driver
    finally:
        driver.quit()


def _with_token(driver, token):
    """Every request of the page (the page and its fetches) carries the noauth2 token."""
    driver.execute_cdp_cmd('Network.enable', {})
    driver.execute_cdp_cmd('Network.setExtraHTTPHeaders',
                           {'headers': {'X-Auth-Token': token}})


def _wait_loaded(driver):
    WebDriverWait(driver, LOAD_DEADLINE).until(
        expected_conditions.presence_of_element_located(
            (By.CSS_SELECTOR, 'body[data-loaded="true"]')))


def _text(driver, selector):
    """The rendered text of ``selector``, read in one step (the page redraws itself)."""
    return driver.execute_script(
        'var n = document.querySelector(arguments[0]); return n ? n.innerText : null;',
        selector)


def _attribute(driver, selector, name):
    return driver.execute_script(
        'return document.querySelector(arguments[0]).getAttribute(arguments[1]);',
        selector, name)


def _close(colour, want, tolerance=6):
    return all(abs(a - b) <= tolerance for a, b in zip(colour, want))


def _has_colour(image, want, min_pixels=50):
    """Whether at least ``min_pixels`` pixels of ``image`` are (close to) ``want``."""
    count = 0
    for pixels, colour in image.getcolors(maxcolors=1 << 20):
        if _close(colour[:3], want):
            count += pixels
    return count >= min_pixels


def check_screenshot(path):
    """The screenshot shows the page: not blank, header, three state tiles, bars."""
    image = Image.open(path).convert('RGB')
    assert image.size[0] >= 800 and image.size[1] >= 500, image.size
    assert len(image.getcolors(maxcolors=1 << 20)) > 20, 'a blank screenshot'
    top = image.crop((0, 0, image.size[0], 30))
    assert _has_colour(top, HEADER, min_pixels=1000), 'no header bar'
    for state, colour in STATE_COLOURS.items():
        assert _has_colour(image, colour, min_pixels=500), 'no %s tile' % state
    assert _has_colour(image, BAR, min_pixels=200), 'no capacity bar'


def test_status_page_in_chromium(berth, client, ctx, browser, tmp_path, monkeypatch):
    made = status_helpers.populate(client, ctx)
    # a conductor killed five minutes ago: registered, its last heartbeat old
    with monkeypatch.context() as clock:
        then = conductor_obj.now() - datetime.timedelta(minutes=5)
        clock.setattr(conductor_obj, 'now', lambda: then)
        conductor_obj.register(ctx, 'conductor-killed', 'rack-9')
    _with_token(browser, 'admin')
    browser.get(berth.placement_url + '/status')
    _wait_loaded(browser)

    assert browser.title == 'berth status'
    for conductor in berth.conductors:
        row = _text(browser, 'tr[data-host="%s"]' % conductor.host)
        assert conductor.host in row and 'ms' in row      # it answered the ping
    for state, count in (('allocating', '2'), ('active', '1'), ('error', '1')):
        assert _text(browser, '[data-state="%s"] b' % state) == count
    assert 'departed-host' in _text(browser, '#oldest')
    assert '7 / 20' in _text(browser, 'tr[data-class="VCPU"]')
    assert '1500 / 1536' in _text(browser, 'tr[data-class="MEMORY_MB"]')
    assert '0 / 500' in _text(browser, 'tr[data-class="DISK_GB"]')
    assert 'proj-a' in _text(browser, 'tr[data-class="VCPU"]')
    # consumers are shown with their full uuid (an operator greps logs for it)
    assert made['big'] in _text(browser, 'tr[data-class="VCPU"]')
    style = _attribute(browser, 'tr[data-class="VCPU"] .fill', 'style')
    assert float(re.search(r'width:\s*([\d.]+)%', style).group(1)) == 35.0
    # 97.7% used: drawn red
    assert 'high' in _attribute(browser, 'tr[data-class="MEMORY_MB"] .fill', 'class')
    # the fullest providers per class, and the nodes per resource class
    assert '1500 / 1536' in _text(browser, 'tr[data-fullest^="MEMORY_MB/"]')
    assert '6 / 16' in _text(browser, 'tr[data-fullest^="VCPU/"]')
    assert 'no node has a resource class' in _text(browser, '#node-rows')
    dead = 'tr[data-registered="conductor-killed"]'
    assert 'dead' in _text(browser, dead) and 'ago' in _text(browser, dead)
    assert _attribute(browser, dead, 'data-alive') == 'false'

    shot = tmp_path / 'status.png'
    assert browser.save_screenshot(str(shot))
    check_screenshot(shot)
    if os.environ.get('BERTH_UPDATE_SCREENSHOTS') == '1':
        SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, SCREENSHOT)

    # it refreshes itself: a new allocating row shows up without a reload
    node_alloc_obj.create_row(ctx, {'conductor_affinity': 'departed-host'})
    WebDriverWait(browser, LOAD_DEADLINE).until(
        lambda d: _text(d, '[data-state="allocating"] b') == '3')
    # ... and a refused refresh is shown, not swallowed
    _with_token(browser, 'someone:proj')
    WebDriverWait(browser, LOAD_DEADLINE).until(
        lambda d: '403' in (_text(d, '#error') or ''))


def test_committed_screenshot_shows_the_page():
    """doc/source/images/status.png (regenerate with BERTH_UPDATE_SCREENSHOTS=1) is the page."""
    assert SCREENSHOT.exists(), 'run the browser test with BERTH_UPDATE_SCREENSHOTS=1'
    check_screenshot(SCREENSHOT)


def test_page_shows_the_error_when_the_data_is_refused(berth, browser):
    """A non-admin gets the 403 page; the page's own fetch errors are shown, not hidden."""
    _with_token(browser, 'someone:proj')
    browser.get(berth.placement_url + '/status')
    assert 'placement:status:show' in browser.page_source


def test_embedded_default_opens_in_a_browser_without_a_token(berth, client, ctx, browser):
    """The link ``berth serve`` prints works as it is (loopback + noauth2)."""
    made = status_helpers.populate(client, ctx)
    browser.get(berth.placement_url + '/status')
    _wait_loaded(browser)
    assert browser.title == 'berth status'
    assert made['big'] in _text(browser, 'tr[data-class="VCPU"]')


def test_the_page_has_the_unreachable_banner(client):
    page = client.get('/status', version='', headers={'accept': 'text/html'}).text
    assert '<div id="unreachable" role="alert"></div>' in page
    assert 'unreachable(data.unreachable' in page


def test_the_page_names_what_is_unreachable_in_chromium(berth, client, browser):
    """Nothing unreachable: no banner; a listed service: a red banner naming it."""
    _with_token(browser, 'admin')
    browser.get(berth.placement_url + '/status')
    _wait_loaded(browser)
    assert client.get('/status.json', version='').json()['unreachable'] == []
    assert browser.execute_script(
        'return getComputedStyle(document.getElementById("unreachable")).display;') == 'none'
    # the page's own renderer, fed what status.json says during an outage
    browser.execute_script('unreachable(["broker", "database"]);')
    assert _text(browser, '#unreachable') == 'cannot reach: broker, database'
    assert browser.execute_script(
        'var b = document.getElementById("unreachable"); '
        'return [getComputedStyle(b).display, getComputedStyle(b).backgroundColor, '
        'b.getAttribute("data-unreachable")];') == [
            'block', 'rgb(179, 38, 30)', 'broker database']
