"""A pytest plugin: the `lumend` fixture gives each test a fresh lumend and a client connected to it.

    def test_the_lamp_turns_on(lumend):
        lab = lumend.open("room", configuration="lab")
        lamp = lumend.open("light", in_scope=lab, configuration="lab.lamp")
        pending = lumend.set("isOn", True, in_scope=lamp, wait=False)
        lumend.settle()                      # the clock moves until nothing is pending
        assert pending.result() is True

The daemon runs on a temporary state directory, on a virtual clock that runs itself, with a seed (1, or the
marker's), so a test replays exactly. The clock jumps to the next event whenever the test waits on the simulation
(a command's answer, a sleep), so application code that waits runs unchanged and at full speed: `time.sleep`
and `asyncio.sleep` sleep on the simulation's clock for the test's length, and, when the `time-machine` package
is installed, `time.time()` and `datetime.now()` read the simulation's wall clock (`--start`). A test that moves
the clock itself asks for `clock="virtual"` (nothing moves until it calls `advance` or `settle`); `clock="real"`
runs on the real clock. The fixture waits for `READY=1` on a notification socket of its own, and after the test
stops the daemon and fails the test if it did not exit cleanly. Mark a test to choose its home and seed:

    @pytest.mark.lumend(fixture="homes/flat.json", seed=7, clock="virtual", args=["--durability", "relaxed"])

A relative fixture path is taken from the test file's directory (else from the working directory); with none,
lumend runs its demo home.

`hue=True` starts the Hue bridge on a free port of 127.0.0.1 and pairs a user; `lifx=True` starts the LIFX
bulbs from 127.0.0.10 on, on a free UDP port (or from the address given, `lifx="127.0.0.40"`). The client the
fixture gives then knows where they are:

    @pytest.mark.lumend(hue=True, lifx=True)
    def test_both_fronts(lumend):
        url = f"{lumend.hue_url}/api/{lumend.hue_user}/lights"     # http://127.0.0.1:PORT/api/lumen-test/lights
        host, port = lumend.lifx_addresses["bedroom.bedside-left"]  # ("127.0.0.11", PORT)

lumend says where its fronts listen with `READY=1` on the notification socket (`X_LUMEN_HTTP`,
`X_LUMEN_LIFX_PORT`, `X_LUMEN_LIFX_BULBS`), so nothing is read from its log.

The lumend binary is `--lumend PATH`, else `$LUMEND`, else `lumend` on `PATH`.
"""

from __future__ import annotations

import asyncio
import datetime
import os
import select
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from typing import Callable, Iterator

import pytest

from ._wire import CannotConnect, ConnectionClosed, ErrorCode, LumenError
from .aio import AsyncClient
from .client import Client

try:
    import time_machine
except ImportError:  # Optional: without it, the wall clock is read with `lumend.wall_time()`.
    time_machine = None


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--lumend", default=None, help="the lumend binary the lumend fixture starts")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "lumend(fixture=None, seed=1, clock='auto', args=(), hue=False, lifx=False): how the lumend fixture starts "
        "lumend",
    )


# The user `hue=True` pairs: a fixed name, so that a failing test's log and requests read the same each run.
HUE_USER = "lumen-test"
# The first LIFX bulb's address when `lifx=True`: any address of 127.0.0.0/8 is this machine's, unconfigured.
LIFX_FIRST_ADDRESS = "127.0.0.10"


@dataclass
class Daemon:
    """A lumend the fixture started: where it serves and keeps its state, and what it said."""

    process: subprocess.Popen
    directory: str
    socket_path: str
    state_directory: str
    stderr_path: str
    stopped: bool = field(default=False)
    # What lumend said with READY=1 beside it (`X_LUMEN_HTTP`, …), by name.
    announced: dict[str, str] = field(default_factory=dict)

    @property
    def http_address(self) -> str | None:
        """`HOST:PORT` of the HTTP listener (the Hue bridge and the dashboard), when lumend runs one."""
        return self.announced.get("X_LUMEN_HTTP")

    @property
    def lifx_addresses(self) -> dict[str, tuple[str, int]]:
        """Where each LIFX bulb answered at start, by light ID: `(address, port)`."""
        port = self.announced.get("X_LUMEN_LIFX_PORT")
        if port is None:
            return {}
        bulbs = (entry.partition("=") for entry in self.announced.get("X_LUMEN_LIFX_BULBS", "").split())
        return {light: (address, int(port)) for light, _, address in bulbs}

    @property
    def stderr(self) -> str:
        """What lumend has written to its standard error so far: its log."""
        with open(self.stderr_path, encoding="utf-8", errors="replace") as file:
            return file.read()

    def stop(self, timeout: float = 30) -> int:
        """Stops it as systemd would (SIGTERM) and returns its exit status."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            status = self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            status = self.process.wait()
        self.stopped = True
        return status


class Lumend(Client):
    """The `lumend` fixture's client: a `Client` that also knows the lumend it talks to and its fronts.

    `daemon` is the process (`daemon.stderr` its log so far, `daemon.state_directory`); `hue_url` the Hue
    bridge's base (`http://127.0.0.1:PORT`, the API under `/api`) and `hue_user` a user paired on it;
    `lifx_addresses` where each LIFX bulb answers, by light ID. Each is `None` (or empty) when the front does
    not run.
    """

    daemon: Daemon
    hue_user: str | None = None

    @property
    def hue_url(self) -> str | None:
        """`http://HOST:PORT` of the Hue bridge (its API under `/api`), when lumend runs its HTTP front."""
        address = self.daemon.http_address
        return f"http://{address}" if address else None

    @property
    def lifx_addresses(self) -> dict[str, tuple[str, int]]:
        """Where each LIFX bulb answered when lumend started, by light ID: `(address, port)`."""
        return self.daemon.lifx_addresses


def lumend_binary(config: pytest.Config) -> str:
    """The lumend the fixture starts: `--lumend PATH`, else `$LUMEND`, else `lumend` on `PATH`; fails the test
    when there is none."""
    candidate = config.getoption("--lumend") or os.environ.get("LUMEND") or shutil.which("lumend")
    if not candidate or not os.access(candidate, os.X_OK):
        pytest.fail("no lumend to start: pass --lumend PATH, set $LUMEND, or put lumend on PATH")
    return candidate


def start(
    binary: str, fixture: str | None = None, seed: int = 1, args: tuple[str, ...] | list[str] = (),
    clock: str = "virtual", hue: bool = False, lifx: bool | str = False,
) -> Daemon:
    """Starts lumend on a temporary state directory and `clock` (`virtual`, `auto` or `real`); returns once it
    is ready.

    `hue` starts the HTTP front on a free port of 127.0.0.1; `lifx` the LIFX bulbs on a free UDP port, from
    127.0.0.10 on (or from the address it gives)."""
    # Socket paths are short (108 bytes at most), so not under pytest's deep temporary paths.
    directory = tempfile.mkdtemp(prefix="lumen-")
    notify_path = os.path.join(directory, "notify.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(notify_path)
    socket_path = os.path.join(directory, "lumend.sock")
    state = os.path.join(directory, "state")
    stderr_path = os.path.join(directory, "stderr.log")
    # --exit-with-parent: a test run killed outright leaves no lumend behind.
    command = [binary, "--socket", socket_path, "--state-dir", state, "--clock", clock, "--seed", str(seed)]
    command += ["--exit-with-parent"]
    if fixture:
        command += ["--fixture", fixture]
    if hue:
        command += ["--http", "127.0.0.1:0"]
    if lifx:
        command += ["--lifx", f"{LIFX_FIRST_ADDRESS if lifx is True else lifx}:0"]
    command += list(args)
    with open(stderr_path, "wb") as stderr:
        process = subprocess.Popen(
            command, env=dict(os.environ, NOTIFY_SOCKET=notify_path), stdout=subprocess.DEVNULL, stderr=stderr
        )
    daemon = Daemon(process, directory, socket_path, state, stderr_path)
    try:
        deadline = time.monotonic() + 30
        while True:
            if process.poll() is not None:
                said = daemon.stderr
                shutil.rmtree(directory, ignore_errors=True)
                pytest.fail(f"lumend exited with status {process.returncode} before it was ready:\n{said}")
            left = deadline - time.monotonic()
            if left <= 0:
                daemon.stop()
                said = daemon.stderr
                shutil.rmtree(directory, ignore_errors=True)
                pytest.fail(f"lumend did not say READY=1 within 30 s:\n{said}")
            ready, _, _ = select.select([listener], [], [], min(left, 0.5))
            if not ready:
                continue
            lines = listener.recv(65536).decode("utf-8", errors="replace").split("\n")
            if "READY=1" in lines:
                daemon.announced = dict(line.partition("=")[::2] for line in lines if line.startswith("X_LUMEN_"))
                return daemon
    finally:
        listener.close()


@pytest.fixture
def lumend(request: pytest.FixtureRequest) -> Iterator[Lumend]:
    """A client connected to a lumend of this test's own (see the module's documentation)."""
    # Every lumend marker counts, the closest deciding each option: a module's clock and a test's seed, say.
    options: dict = {}
    for marker in reversed(list(request.node.iter_markers("lumend"))):
        options.update(marker.kwargs)
    fixture = options.get("fixture")
    if fixture and not os.path.isabs(fixture):
        # Relative to the test file, as a test's own data is; else, as before, to the working directory.
        beside = os.path.join(os.path.dirname(str(request.node.path)), fixture)
        fixture = beside if os.path.exists(beside) else fixture
    clock = options.get("clock", "auto")
    daemon = start(
        lumend_binary(request.config), fixture=fixture, seed=options.get("seed", 1), args=options.get("args", ()),
        clock=clock, hue=options.get("hue", False), lifx=options.get("lifx", False),
    )
    client = Lumend.connect(daemon.socket_path)
    client.daemon = daemon
    restore = simulated_time(client, daemon.socket_path) if clock == "auto" else None
    try:
        if options.get("hue"):
            # Paired through the simulation scope: no link button to press, no name to learn from a reply.
            client.call("pairHueUser", {"username": HUE_USER, "devicetype": "pytest#lumen"}, in_scope=client.simulation())
            client.hue_user = HUE_USER
        yield client
    finally:
        if restore:
            restore()
        client.close_connection()
        status = daemon.stop()
        stderr = daemon.stderr
        shutil.rmtree(daemon.directory, ignore_errors=True)
        if status != 0:
            pytest.fail(f"lumend did not exit cleanly (status {status}):\n{stderr}")


# The longest sleep lumend takes at once, in milliseconds (a day).
_LONGEST_SLEEP_MS = 86_400_000


def simulated_time(client: Client, socket_path: str) -> Callable[[], None]:
    """Puts sleeping on the simulation's clock of the lumend at `socket_path` in place of `time.sleep` and
    `asyncio.sleep`, and, with time-machine, the simulation's wall clock and its UTC offset in place of the real
    ones; returns what puts them back. The `lumend` fixture does this on a clock that runs itself.

    Each sleep goes over a connection of its own, so that sleepers wake in the order of their times and none
    holds back the test's own requests (lumend answers a connection's requests in order); `asyncio.sleep` asks
    from the event loop itself, so that sleepers started together ask together, before the clock jumps (once no
    request has come for 5 ms of real time). Sleeping threads each ask from their own thread: on a busy
    machine, one may ask after the clock has jumped for another. Code that took `from time import sleep` before
    the test keeps the real one."""
    real_sleep = time.sleep
    real_async_sleep = asyncio.sleep
    real_zone = os.environ.get("TZ")
    travel = None
    traveller = None
    if time_machine is not None:
        now = client.wall_time()
        offset = now.utcoffset() or datetime.timedelta()
        # A POSIX zone of the simulation's offset, so that local time reads as the simulation's (east is minus).
        minutes = int(abs(offset.total_seconds()) // 60)
        os.environ["TZ"] = f"LUMEN{'+' if offset < datetime.timedelta() else '-'}{minutes // 60:02d}:{minutes % 60:02d}"
        time.tzset()
        # Ticking on from each moment the simulation gives, so that a client's own timeouts, counted on time.time(),
        # still run out while it waits on a socket.
        travel = time_machine.travel(now, tick=True)
        traveller = travel.start()

    def steps(seconds: float) -> list[float]:
        # lumend takes a day at most at a time.
        days, rest = divmod(seconds * 1000, _LONGEST_SLEEP_MS)
        return [_LONGEST_SLEEP_MS] * int(days) + ([rest] if rest > 0 else [])

    def lumend_is_gone(error: Exception) -> bool:
        # A test that stops lumend waits for the process, which sleeps: real time then.
        if isinstance(error, (CannotConnect, ConnectionClosed)):
            return True
        return isinstance(error, LumenError) and error.code == ErrorCode.SHUTTING_DOWN

    def woke(clock: dict) -> None:
        if traveller is not None:
            traveller.move_to(datetime.datetime.fromisoformat(clock["wallTime"]))

    def simulated_sleep(seconds: float) -> None:
        if seconds <= 0:
            return real_sleep(seconds)
        try:
            with Client.connect(socket_path) as sleeper:
                for ms in steps(seconds):
                    clock = sleeper.sleep(ms, timeout=None)
        except (CannotConnect, ConnectionClosed, LumenError) as error:
            if not lumend_is_gone(error):
                raise
            return real_sleep(seconds)
        woke(clock)

    async def simulated_async_sleep(delay: float, result: object = None) -> object:
        if delay <= 0:
            return await real_async_sleep(delay, result)
        # On the event loop itself, not on an executor's thread: sleepers that asyncio starts together then ask
        # together, where a thread started for each may ask milliseconds later, after the clock has jumped.
        try:
            async with await AsyncClient.connect(socket_path) as sleeper:
                for ms in steps(delay):
                    clock = await sleeper.sleep(ms, timeout=None)
        except (CannotConnect, ConnectionClosed, LumenError) as error:
            if not lumend_is_gone(error):
                raise
            return await real_async_sleep(delay, result)
        woke(clock)
        return result

    def restore() -> None:
        time.sleep = real_sleep
        asyncio.sleep = real_async_sleep
        if travel is not None:
            travel.stop()
            if real_zone is None:
                os.environ.pop("TZ", None)
            else:
                os.environ["TZ"] = real_zone
            time.tzset()

    time.sleep = simulated_sleep
    asyncio.sleep = simulated_async_sleep
    return restore
