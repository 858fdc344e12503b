"""The dashboard in a real browser: headless Chromium, driven by Selenium, against a real lumend.

Each test gets a fresh lumend on the plain virtual clock (the `lumend` fixture of Lumen's pytest plugin) with its
HTTP listener on a free port, and a Chromium of its own. The page's address, with the token that opens the
simulation controls, is read from lumend's log, as a user reads it.
"""

import os
import re
import shutil
import tempfile

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

pytest_plugins = ["lumen.pytest_plugin"]

HTTP_ARGS = ["--http", "127.0.0.1:0"]
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")


def page_address(lumend) -> tuple[str, str]:
    """The dashboard's address and the token, from lumend's log."""
    match = re.search(r"dashboard on (http://127\.0\.0\.1:\d+)/ \(simulation controls: \S+#token=(\w+)\)", lumend.daemon.stderr)
    assert match, lumend.daemon.stderr
    return match.group(1), match.group(2)


@pytest.fixture
def browser():
    """A headless Chromium with a profile of its own, closed after the test."""
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        pytest.fail(f"the browser tests need {CHROMIUM} and {CHROMEDRIVER}: make test-browser installs them")
    profile = tempfile.mkdtemp(prefix="lumen-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     f"--user-data-dir={profile}", "--window-size=1280,1000", "--force-color-profile=srgb",
                     "--hide-scrollbars", "--no-first-run"):
        options.add_argument(argument)
    # The console, so a test can see what the page's Content Security Policy refused.
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
