"""Home Assistant's own Hue and LIFX integrations, unchanged, against a real lumend.

Home Assistant is wall-clock driven (its integrations poll every few seconds and time their requests out in
seconds), so lumend runs here on the real clock (`--clock real`, after the plugin's `--clock virtual`: the last
one given counts) rather than the virtual one the other interop tests move by hand. A test waits for what Home
Assistant shows by polling its state machine with a short, bounded timeout (`wait_for`).

Each test builds a Home Assistant of its own in a temporary configuration directory (the core, its registries and
config entries, nothing else: no frontend, no default integrations), then sets the integrations up through
their config flows as a user does in the UI. Home Assistant never installs anything here (`skip_pip`); `make
interop` installed the integrations' requirements with it.

Home Assistant's Hue flow asks the vendor's cloud for bridges first, and its LIFX integration broadcasts to port
56700, so the tests run only in a network namespace of their own (`make interop` starts them under
`unshare -rn`); anywhere else they say SKIPPED.
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import os
import socket
import sys
import time
import urllib.request
from typing import Any, Awaitable, Callable

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))

from harness import light_scope  # noqa: E402,F401 - the tests import it from here

pytest_plugins = ["lumen.pytest_plugin"]

REAL_CLOCK = ["--clock", "real"]
HUE_ARGS = REAL_CLOCK + ["--http", "127.0.0.1:0"]
# The demo home's LIFX bulbs, each on its own address from the one given, in the home's order.
LIFX_FIRST_ADDRESS = "127.0.0.10"
LIFX_ARGS = REAL_CLOCK + ["--lifx", f"{LIFX_FIRST_ADDRESS}:56700"]
LIFX_BULBS = [
    ("TV Lightstrip", "living-room.tv-strip"),
    ("Bedside Left", "bedroom.bedside-left"),
    ("Bedside Right", "bedroom.bedside-right"),
]
# The longest a test waits for Home Assistant to show a change: a poll (Hue every 5 s, LIFX every 10 s) and
# its answer.
STATE_TIMEOUT = 15.0
# The longest one test's scenario may take, from Home Assistant's start to before its stop.
SCENARIO_TIMEOUT = 55.0


def in_network_namespace_of_our_own() -> bool:
    """True where the only network interface is loopback: nothing a test sends can leave the machine."""
    # /proc/net/dev lists the interfaces of the calling process's namespace (/sys/class/net may not).
    try:
        with open("/proc/net/dev", encoding="ascii") as dev:
            interfaces = [line.split(":")[0].strip() for line in dev.readlines()[2:]]
    except OSError:
        return False
    return interfaces == ["lo"]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if in_network_namespace_of_our_own():
        return
    reason = ("Home Assistant's integrations look for bridges and bulbs on the network: these tests run only in a "
              "network namespace of their own (make interop starts them under unshare -rn)")
    if os.environ.get("LUMEN_INTEROP") == "1":
        # make interop means them to run: outside a namespace there, that is a failure, not a skip.
        raise pytest.UsageError(reason)
    print(f"\nSKIPPED: {reason}")
    for item in items:
        item.add_marker(pytest.mark.skip(reason=reason))


def bridge_address(lumend) -> str:
    """`HOST:PORT` of the Hue bridge, as lumend said with READY=1."""
    assert lumend.hue_url, lumend.daemon.stderr
    return lumend.hue_url.removeprefix("http://")


def bridge_get(address: str, path: str) -> Any:
    """What lumend's bridge answers to GET /api/PATH, read without Home Assistant."""
    with urllib.request.urlopen(f"http://{address}/api/{path}", timeout=10) as answer:
        return json.load(answer)


def bridge_send(address: str, method: str, path: str, body: Any) -> Any:
    """What lumend's bridge answers to METHOD /api/PATH with a JSON body, sent without Home Assistant (as the Hue
    app would send it)."""
    request = urllib.request.Request(f"http://{address}/api/{path}", data=json.dumps(body).encode(),
                                     method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)


def free_tcp_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def start_home_assistant(config_dir: str):
    """A started Home Assistant on `config_dir`: the core, its registries and config entries, and `http` on a free
    loopback port (LIFX needs `network`, which needs `http`); nothing else until a flow loads it."""
    from homeassistant import bootstrap, config_entries, loader
    from homeassistant.core import HomeAssistant
    from homeassistant.core_config import async_process_ha_core_config
    from homeassistant.setup import async_setup_component

    hass = HomeAssistant(config_dir)
    loader.async_setup(hass)
    hass.config.skip_pip = True
    hass.config_entries = config_entries.ConfigEntries(hass, {})
    await loader.async_get_custom_components(hass)
    await bootstrap.async_load_base_functionality(hass)
    assert await async_setup_component(hass, "homeassistant", {})
    await async_process_ha_core_config(
        hass,
        {"name": "Lumen Test Home", "latitude": 52.37, "longitude": 4.89, "elevation": 0,
         "unit_system": "metric", "time_zone": "UTC", "country": "NL", "currency": "EUR"},
    )
    http = {"server_host": ["127.0.0.1"], "server_port": free_tcp_port()}
    assert await async_setup_component(hass, "http", {"http": http})
    await hass.async_start()
    await hass.async_block_till_done()
    return hass


def run_with_home_assistant(config_dir, scenario: Callable[[Any], Awaitable[Any]],
                            timeout: float = SCENARIO_TIMEOUT) -> Any:
    """Runs `scenario(hass)` on a fresh Home Assistant of its own; stops it after, whatever happened."""
    # What a failing test shows of Home Assistant's log: INFO and above, or LUMEN_HA_LOG_LEVEL (DEBUG shows
    # aiohue's and aiolifx's too).
    level = os.environ.get("LUMEN_HA_LOG_LEVEL", "INFO").upper()
    for name in ("homeassistant", "aiohue", "aiolifx"):
        logging.getLogger(name).setLevel(level)

    async def main():
        hass = await start_home_assistant(str(config_dir))
        try:
            async with asyncio.timeout(timeout):
                return await scenario(hass)
        finally:
            await hass.async_stop()

    return asyncio.run(main())


async def wait_for(hass, what: str, condition: Callable[[], Any], timeout: float = STATE_TIMEOUT,
                   show: Callable[[], Any] | None = None) -> Any:
    """Waits, polling Home Assistant's state every 0.1 s, until `condition()` is truthy; returns it. Fails after
    `timeout` seconds, saying what it waited for and what `show()` gives then."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            seen = f"; last seen: {show()}" if show else ""
            pytest.fail(f"waited {timeout:.0f} s for {what}, in vain{seen}")
        await asyncio.sleep(0.1)


async def entity_shows(hass, entity_id: str, what: str, condition: Callable[[Any], Any],
                       timeout: float = STATE_TIMEOUT) -> Any:
    """Waits until Home Assistant's state of `entity_id` meets `condition`; returns that state."""
    def shown():
        return state_of(hass, entity_id)

    return await wait_for(hass, what, lambda: (s if condition(s := shown()) else None), show=shown, timeout=timeout)


async def landed(hass, lumend, light: str) -> dict:
    """lumend's own record of `light` (the simulation scope's `device`) once its fade has landed: the fronts
    report a change as accepted at once, and the light takes the fade's time to get there."""
    def record():
        truth = lumend.device(light)
        return None if truth.get("fading") else truth

    return await wait_for(hass, f"{light}'s fade to land in lumend", record, timeout=5)


class LIFXTrouble(logging.Handler):
    """What Home Assistant says went wrong with its LIFX bulbs while a scenario runs: the warnings and errors its
    LIFX integration and aiolifx log (timeouts, a failed update), a task of aiolifx's that failed, and every LIFX
    entity that became unavailable. `expected` holds the messages a scenario causes on purpose."""

    def __init__(self, expected: tuple[str, ...] = ()):
        super().__init__(logging.WARNING)
        self.expected = expected
        self.problems: list[str] = []
        self.over = False

    def emit(self, record: logging.LogRecord) -> None:
        if self.over:
            return
        text = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            text += f" ({record.exc_info[1]!r})"
        about_lifx = record.name.startswith(("homeassistant.components.lifx", "aiolifx")) or "aiolifx" in text
        if about_lifx and not any(expected in text for expected in self.expected):
            self.problems.append(f"{record.name} {record.levelname}: {text}")

    def watch(self, hass) -> None:
        """Notes each LIFX entity that becomes unavailable, from now on."""
        from homeassistant.const import EVENT_STATE_CHANGED
        from homeassistant.helpers import entity_registry as er

        registry = er.async_get(hass)

        def changed(event) -> None:
            new = event.data.get("new_state")
            entry = registry.async_get(event.data["entity_id"])
            if new is not None and new.state == "unavailable" and entry is not None and entry.platform == "lifx":
                self.problems.append(f"{new.entity_id} became unavailable")

        hass.bus.async_listen(EVENT_STATE_CHANGED, changed)

    def end(self) -> None:
        """Stops noting: what Home Assistant logs as it stops (an effect's task it leaves pending) is not the bulbs'
        trouble."""
        self.over = True

    def __enter__(self) -> "LIFXTrouble":
        # A task an earlier test's Home Assistant left pending as it stopped is destroyed when it is collected,
        # which asyncio logs: collected now, before noting starts, it is not taken for this scenario's trouble.
        gc.collect()
        logging.getLogger().addHandler(self)
        return self

    def __exit__(self, *_: object) -> None:
        logging.getLogger().removeHandler(self)


def state_of(hass, entity_id: str):
    state = hass.states.get(entity_id)
    assert state is not None, f"no state for {entity_id}"
    return state


@pytest.fixture(autouse=True)
def simulation_scope_opened_at_once(request):
    """Opens lumend's simulation scope as the test starts: lumend closes a connection that has sent no request
    within its request timeout (10 s) of connecting, and Home Assistant's start and flows may take longer than
    that before a test first asks lumend something."""
    if "lumend" in request.fixturenames:
        request.getfixturevalue("lumend").simulation()


@pytest.fixture
def hue_numbers():
    """Hue's numbers of the demo home's living-room lights behind the bridge."""
    return {"living-room.ceiling": "1", "living-room.floor-lamp": "2", "living-room.reading": "4"}
