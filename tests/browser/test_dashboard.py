"""The dashboard, driven as a person would, in headless Chromium against a real lumend: the home as the page
shows it, switching and dimming from the page seen over the socket, changes over the socket seen on the page,
a discovery scan, the simulation controls, the keyboard and a phone's width."""

import os

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from conftest import HTTP_ARGS, page_address

# The page's writes are seen pending until the test moves the clock: the plain virtual clock, not one that runs
# itself.
pytestmark = pytest.mark.lumend(clock="virtual")

LIGHT = "living-room.floor-lamp"
OFF = "#161616"  # the swatch of a light that is off (dashboard.md)


def light_scope(lumend, light: str) -> int:
    room = light.split(".")[0]
    return lumend.open("light", in_scope=lumend.open("room", configuration=room), configuration=light)


def open_page(browser, lumend, token: bool = False):
    """Loads the page (with the token in its address, when asked) and waits until it shows the home."""
    address, secret = page_address(lumend)
    browser.get(f"{address}/#token={secret}" if token else f"{address}/")
    WebDriverWait(browser, 10).until(lambda b: b.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true")
    WebDriverWait(browser, 10).until(lambda b: "live" in b.find_element(By.ID, "status").text.lower())


def page_and_switch(browser, lumend):
    """Opens the page; returns LIGHT's scope over the socket, whether it is on, and its switch on the page."""
    open_page(browser, lumend)
    scope = light_scope(lumend, LIGHT)
    return scope, lumend.get("isOn", in_scope=scope), article(browser, LIGHT).find_element(By.CSS_SELECTOR, "button.toggle")


def article(browser, light: str):
    return browser.find_element(By.CSS_SELECTOR, f'article.light[data-light="{light}"]')


def until(browser, condition, seconds: float = 1.0, message: str = ""):
    """Waits up to `seconds` of real time for `condition`, as a person would look at the page."""
    return WebDriverWait(browser, seconds, poll_frequency=0.02).until(lambda _: condition(), message)


def drive_until(lumend, condition, step_ms: float = 50, limit_ms: float = 120_000):
    """Moves lumend's virtual clock until `condition` holds."""
    advanced = 0.0
    while not condition():
        assert advanced < limit_ms, f"not so within {limit_ms} ms of simulated time"
        lumend.advance(step_ms)
        advanced += step_ms



@pytest.mark.lumend(args=HTTP_ARGS)
def test_the_page_shows_every_room_and_light_in_its_colour(lumend, browser):
    open_page(browser, lumend)
    home = lumend.get("roomIDs")
    rooms = browser.find_elements(By.CSS_SELECTOR, "section.room")
    assert [room.get_attribute("data-room") for room in rooms] == home
    shown = {element.get_attribute("data-light") for element in browser.find_elements(By.CSS_SELECTOR, "article.light")}
    expected = set()
    for room in home:
        expected |= set(lumend.get("lightIDs", in_scope=lumend.open("room", configuration=room)))
    assert shown == expected
    # Every swatch has its colour, and a light that is on is not drawn as one that is off.
    lit = 0
    for element in browser.find_elements(By.CSS_SELECTOR, "article.light"):
        rgb = element.find_element(By.CSS_SELECTOR, ".swatch").get_attribute("data-rgb")
        assert rgb and rgb.startswith("#") and len(rgb) == 7, element.get_attribute("data-light")
        if element.get_attribute("data-on") == "true":
            assert rgb != OFF, f"{element.get_attribute('data-light')} is on but drawn off"
            lit += 1
        else:
            assert rgb == OFF, f"{element.get_attribute('data-light')} is off but drawn {rgb}"
    assert lit > 0
    assert browser.find_element(By.TAG_NAME, "h1").text == lumend.get("name")
    # Without the token, no simulation controls.
    assert not browser.find_elements(By.CSS_SELECTOR, "#simulation:not([hidden]) #advance-1s")
    # The policy let the page's own script and styles run, and refused nothing the page needs.
    refused = [entry["message"] for entry in browser.get_log("browser") if "Content Security Policy" in entry["message"]]
    assert not refused, refused
    assert browser.execute_script("return getComputedStyle(document.body).margin") == "0px", "the styles did not apply"


@pytest.mark.lumend(args=HTTP_ARGS)
def test_switching_a_light_on_the_page_is_seen_over_the_socket(lumend, browser):
    scope, was_on, toggle = page_and_switch(browser, lumend)
    toggle.click()
    # The write waits for the light, which waits for the virtual clock: pending until then.
    until(browser, lambda: article(browser, LIGHT).get_attribute("data-pending") == "true", message="not pending")
    drive_until(lumend, lambda: lumend.get("isOn", in_scope=scope) != was_on)
    until(browser, lambda: article(browser, LIGHT).get_attribute("data-pending") == "false", 5, "still pending")
    assert article(browser, LIGHT).get_attribute("data-on") == ("false" if was_on else "true")
    assert toggle.get_attribute("aria-checked") == ("false" if was_on else "true")


@pytest.mark.lumend(args=HTTP_ARGS)
def test_dimming_on_the_page_is_seen_over_the_socket(lumend, browser):
    open_page(browser, lumend)
    scope = light_scope(lumend, LIGHT)
    lumend.set("isOn", True, in_scope=scope, wait=False)
    lumend.settle()
    slider = article(browser, LIGHT).find_element(By.CSS_SELECTOR, "input.brightness")
    until(browser, lambda: slider.is_enabled())
    slider.send_keys(Keys.HOME)  # the keyboard's way to the slider's least: brightness 1
    drive_until(lumend, lambda: lumend.get("brightness", in_scope=scope) == 1)
    until(browser, lambda: slider.get_attribute("value") == "1", 5)


@pytest.mark.lumend(args=HTTP_ARGS)
def test_a_change_over_the_socket_shows_on_the_page_within_a_second(lumend, browser):
    open_page(browser, lumend)
    scope = light_scope(lumend, LIGHT)
    swatch = article(browser, LIGHT).find_element(By.CSS_SELECTOR, ".swatch")
    for on in (True, False, True):
        lumend.set("isOn", on, in_scope=scope, wait=False)
        lumend.settle()
        until(browser, lambda: article(browser, LIGHT).get_attribute("data-on") == str(on).lower(),
              message=f"the page did not show isOn {on} within a second")
    before = swatch.get_attribute("data-rgb")
    if lumend.get("model", in_scope=scope)["kind"] == "color":
        lumend.set("color", {"x": 0.17, "y": 0.7}, in_scope=scope, wait=False)
    else:
        lumend.set("colorTemperature", 153, in_scope=scope, wait=False)
    lumend.settle()
    until(browser, lambda: swatch.get_attribute("data-rgb") != before, message="the swatch kept its colour")


@pytest.mark.lumend(args=HTTP_ARGS)
def test_a_scan_counts_down_and_the_lights_it_finds_appear(lumend, browser):
    open_page(browser, lumend)
    room = "living-room"
    scope = lumend.open("room", configuration=room)
    before = set(lumend.get("lightIDs", in_scope=scope))
    card = browser.find_element(By.CSS_SELECTOR, f'section.room[data-room="{room}"]')
    card.find_element(By.CSS_SELECTOR, "button.scan").click()
    drive_until(lumend, lambda: lumend.get("scan", in_scope=scope).get("isScanning"))
    until(browser, lambda: card.find_element(By.CSS_SELECTOR, ".countdown").text.strip() != "",
          message="no countdown")
    drive_until(lumend, lambda: not lumend.get("scan", in_scope=scope).get("isScanning"), step_ms=1_000)
    found = set(lumend.get("lightIDs", in_scope=scope)) - before
    assert found, "the scan found nothing"
    for light in found:
        until(browser, lambda: card.find_elements(By.CSS_SELECTOR, f'article.light[data-light="{light}"]'),
              message=f"{light} did not appear")


@pytest.mark.lumend(args=HTTP_ARGS)
def test_with_the_token_the_simulation_controls_move_the_clock_and_take_a_light_away(lumend, browser):
    open_page(browser, lumend, token=True)
    assert "#token" not in browser.current_url  # not left in the address bar
    clock = browser.find_element(By.ID, "clock")
    simulation = lumend.simulation()

    def now():
        return lumend.get("clock", in_scope=simulation)["nowMs"]

    before = now()
    browser.find_element(By.ID, "advance-10s").click()
    until(browser, lambda: now() >= before + 10_000, 5, "the clock did not move")
    until(browser, lambda: clock.text.strip() != "", message="no clock shown")
    # Reachability: the page's switch takes the light off the network; its controller notices later.
    reachable = article(browser, LIGHT).find_element(By.CSS_SELECTOR, "input.reachable")
    assert reachable.is_selected()
    reachable.click()
    browser.find_element(By.ID, "advance-1m").click()
    until(browser, lambda: article(browser, LIGHT).get_attribute("data-reachable") == "false", 5,
          "the light was not greyed as unreachable")
    assert "unreachable" in article(browser, LIGHT).text.lower()
    screenshot = os.environ.get("DASHBOARD_SCREENSHOT")
    if screenshot:
        browser.save_screenshot(screenshot)


@pytest.mark.lumend(args=HTTP_ARGS)
def test_the_keyboard_reaches_a_switch_and_a_phone_needs_no_sideways_scrolling(lumend, browser):
    scope, was_on, toggle = page_and_switch(browser, lumend)
    assert toggle.get_attribute("aria-label") or toggle.text
    toggle.send_keys(Keys.SPACE)
    drive_until(lumend, lambda: lumend.get("isOn", in_scope=scope) != was_on)
    # Every control a screen reader reaches has a name it reads out.
    for control in browser.find_elements(By.CSS_SELECTOR, "button, input"):
        if control.is_displayed():
            assert control.accessible_name.strip(), control.get_attribute("outerHTML")
    browser.set_window_size(375, 800)
    width = browser.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], f"the page is {width[0]} px wide in a {width[1]} px window"


@pytest.mark.lumend(args=HTTP_ARGS)
def test_a_light_told_to_breathe_through_the_bridge_breathes_on_the_page_until_it_ends(lumend, browser):
    import json
    import urllib.request

    open_page(browser, lumend)
    address, _ = page_address(lumend)

    def hue(method: str, path: str, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(f"{address}/api{path}", data=data, method=method)
        with urllib.request.urlopen(request, timeout=10) as answer:
            return json.loads(answer.read())

    lumend.call("pressLinkButton", in_scope=lumend.simulation())
    user = hue("POST", "", {"devicetype": "lumen-browser#test"})[0]["success"]["username"]
    name = lumend.get("name", in_scope=light_scope(lumend, LIGHT))
    number = next(n for n, light in hue("GET", f"/{user}/lights").items() if light["name"] == name)
    hue("PUT", f"/{user}/lights/{number}/state", {"alert": "lselect"})
    until(browser, lambda: article(browser, LIGHT).get_attribute("data-effect") == "breathe",
          message="the page did not show the light breathing within a second")
    assert "breathing" in article(browser, LIGHT).text
    lumend.advance(15_000)
    until(browser, lambda: article(browser, LIGHT).get_attribute("data-effect") == "none",
          message="the page still showed the light breathing after 15 s")
