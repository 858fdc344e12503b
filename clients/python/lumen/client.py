"""A synchronous client: calls block until lumend answers; subscriptions are iterators."""

from __future__ import annotations

import datetime
import queue
import select
import socket
import threading
from time import monotonic as _real_monotonic, sleep as _real_sleep
from typing import Any, Callable, Iterator

from . import _assertions

from ._wire import (
    CLOCK_HINT,
    ROOT,
    ConnectionClosed,
    LumenError,
    Message,
    candidates_for,
    closing_scopes,
    not_connected,
    request_line,
    command_filter,
    state_arguments,
    Timeout,
)

_END = object()


class Subscription:
    """The values of one subscription: the current value first, then each change. Iteration ends when the
    scope closes (the light or room went away, or it was closed), and raises `ConnectionClosed` when the
    connection ends."""

    def __init__(self, client: "Client", subscription: int, scope: int, value: Any):
        self.client = client
        self.id = subscription
        self.scope = scope
        self.initial = value
        self._values: "queue.Queue[Any]" = queue.Queue()
        self._values.put(value)

    def __iter__(self) -> Iterator[Any]:
        return self

    def __next__(self) -> Any:
        return self.next()

    def next(self, timeout: float | None = None) -> Any:
        """The next value, waiting at most `timeout` seconds (`Timeout` after that)."""
        try:
            value = self._values.get(timeout=timeout)
        except queue.Empty:
            raise Timeout(f"no change to subscription {self.id} within {timeout:g} s{CLOCK_HINT}") from None
        if value is _END or isinstance(value, ConnectionClosed):
            self._values.put(value)
        if value is _END:
            raise StopIteration
        if isinstance(value, ConnectionClosed):
            raise value
        return value

    def close(self, timeout: float | None = 30) -> None:
        """Ends the subscription, waiting at most `timeout` seconds for lumend to confirm it."""
        self.client._unsubscribe(self, timeout)


class Pending:
    """A request sent and not yet answered: `done()` says whether the answer has come, `result()` waits for it
    and returns it (or raises lumend's error, or `Timeout`)."""

    def __init__(self, what: str, answer: "queue.Queue[Message]", unwrap: Callable[[Any], Any], request_id: int = 0):
        self.what = what
        self.id = request_id
        self._answer = answer
        self._unwrap = unwrap
        self._message: Message | None = None

    def done(self) -> bool:
        """Whether the answer has come (without waiting for it)."""
        if self._message is None:
            try:
                self._message = self._answer.get_nowait()
            except queue.Empty:
                return False
        return True

    def result(self, timeout: float | None = 30) -> Any:
        """The answer, waiting at most `timeout` seconds for it: lumend's result, or its error raised as
        `LumenError`; `Timeout` when none came, `ConnectionClosed` when the connection ended first."""
        if self._message is None:
            try:
                self._message = self._answer.get(timeout=timeout)
            except queue.Empty:
                raise Timeout(f"lumend did not answer {self.what} within {timeout:g} s{CLOCK_HINT}") from None
        message = self._message
        if message.error is not None:
            raise message.error
        if message.method == "__closed__":
            raise ConnectionClosed("the connection to lumend was closed")
        return self._unwrap(message.result)


class Client:
    """A connection to lumend.

    >>> with Client.connect() as client:
    ...     kitchen = client.open("room", configuration="kitchen")
    ...     spot = client.open("light", in_scope=kitchen, configuration="kitchen.spot-1")
    ...     client.set("isOn", True, in_scope=spot)
    """

    def __init__(self, sock: socket.socket, path: str):
        self.path = path
        self._socket = sock
        self._lock = threading.Lock()
        self._send_lock = threading.Lock()
        self._next_id = 1
        self._waiting: dict[int, "queue.Queue[Message]"] = {}
        self._subscriptions: dict[int, Subscription] = {}
        self._children: dict[int, list[int]] = {}
        # Subscribe requests waiting for their reply, with their scope: registered as the reply is read.
        self._pending_subscribe: dict[int, int] = {}
        # Subscribe requests given up on (timed out): a subscription their late reply opens is unsubscribed.
        self._abandoned_subscribe: set[int] = set()
        self._simulation: int | None = None
        self._simulation_refused = False
        self._closed = False
        self._reader = threading.Thread(target=self._read, name="lumen-client-reader", daemon=True)
        self._reader.start()

    @classmethod
    def connect(cls, path: str | None = None, timeout: float | None = None) -> "Client":
        """Connects to `path`, or to the first of lumend's default sockets that answers, and says `hello`: lumend
        closes a connection that makes no request within its first seconds, and one that has may then wait."""
        failures = []
        for candidate, origin, distrust in candidates_for(path):
            if distrust:
                failures.append(f"{origin} socket {candidate} (not trusting it: {distrust})")
                continue
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(timeout)
            try:
                sock.connect(candidate)
            except OSError as error:
                sock.close()
                failures.append(f"{origin} socket {candidate} ({error.strerror or error})")
                continue
            sock.settimeout(None)
            client = cls(sock, candidate)
            try:
                client.hello(timeout=timeout if timeout is not None else 30)
            except BaseException:
                client.close_connection()
                raise
            return client
        raise not_connected(failures)

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *_: object) -> None:
        self.close_connection()

    def close_connection(self) -> None:
        """Closes the connection: waiting calls and subscriptions end with `ConnectionClosed`."""
        try:
            self._socket.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._reader.join(timeout=5)
        self._socket.close()

    # Requests

    def request(self, method: str, params: dict[str, Any] | None = None, timeout: float | None = 30) -> Any:
        """Sends one JSON-RPC request and returns its result; raises `LumenError` with lumend's error, or
        `Timeout` when no answer came within `timeout` seconds."""
        return self.send(method, params).result(timeout)

    def send(
        self, method: str, params: dict[str, Any] | None = None, unwrap: Callable[[Any], Any] = lambda result: result,
        subscribing: int | None = None,
    ) -> Pending:
        """Sends one JSON-RPC request and returns at once: the answer comes through the `Pending` it returns."""
        answer: "queue.Queue[Message]" = queue.Queue(maxsize=1)
        with self._lock:
            if self._closed:
                raise ConnectionClosed("the connection to lumend is closed")
            request_id = self._next_id
            self._next_id += 1
            self._waiting[request_id] = answer
            if subscribing is not None:
                self._pending_subscribe[request_id] = subscribing
        try:
            with self._send_lock:
                self._socket.sendall(request_line(request_id, method, params or {}))
        except OSError as error:
            with self._lock:
                self._waiting.pop(request_id, None)
                self._pending_subscribe.pop(request_id, None)
            raise ConnectionClosed(str(error)) from error
        connection = (params or {}).get("connection")
        return Pending(f"{method} {connection}" if connection else method, answer, unwrap, request_id)

    def hello(self, client: str = "lumen-python", timeout: float | None = 30) -> dict[str, Any]:
        """Says who is connecting (`client`, shown in lumend's log); returns lumend's version and protocol.
        `connect` says it already."""
        return self.request("hello", {"client": client}, timeout)

    def describe(self, timeout: float | None = 30) -> dict[str, Any]:
        """What lumend serves: each scope type with its values and actions, their arguments and results."""
        return self.request("describe", timeout=timeout)

    def open(self, connection: str, in_scope: int = ROOT, configuration: Any = None, timeout: float | None = 30) -> int:
        """Opens a child scope (`room`, `light`, `simulation`) and returns its ID."""
        params: dict[str, Any] = {"scope": in_scope, "connection": connection}
        if configuration is not None:
            params["configuration"] = configuration
        scope = self.request("open", params, timeout)["scope"]
        with self._lock:
            self._children.setdefault(in_scope, []).append(scope)
        return scope

    def close(self, scope: int, timeout: float | None = 30) -> None:
        """Closes a scope and its children; their subscriptions end."""
        self.request("close", {"scope": scope}, timeout)
        self._scope_closed(scope)

    def get(self, connection: str, in_scope: int = ROOT, timeout: float | None = 30) -> Any:
        """Reads a value of a scope (`isOn` of a light, `clock` of the simulation) as lumend holds it now."""
        return self.request("get", {"scope": in_scope, "connection": connection}, timeout)["value"]

    def set(
        self, connection: str, value: Any, in_scope: int = ROOT, transition_ms: float | None = None,
        wait: bool = True, timeout: float | None = 30,
    ) -> Any:
        """Writes a value; returns it once the device confirmed it (on a virtual clock, once the clock moves).
        With `wait=False`, returns a `Pending` at once, which a later `advance()` or `settle()` answers."""
        params: dict[str, Any] = {"scope": in_scope, "connection": connection, "value": value}
        if transition_ms is not None:
            params["transitionMs"] = transition_ms
        if not wait:
            self._ready_to_advance(timeout)
        pending = self.send("set", params, lambda result: result["value"])
        return pending.result(timeout) if wait else pending

    def set_state(
        self, in_scope: int, transition_ms: float | None = None, wait: bool = True, timeout: float | None = 30,
        **changes: Any,
    ) -> Any:
        """Changes several of a light's properties as one device command (``isOn``, ``brightness``,
        ``colorTemperature``, ``color``), as a bulb takes them; returns the values applied, once confirmed (with
        `wait=False`, a `Pending`)."""
        arguments = state_arguments(changes, transition_ms)
        return self.call("setState", arguments, in_scope=in_scope, wait=wait, timeout=timeout)

    def call(
        self, connection: str, arguments: Any = None, in_scope: int = ROOT, wait: bool = True,
        timeout: float | None = 30,
    ) -> Any:
        """Calls an action; returns its value (with `wait=False`, a `Pending`)."""
        params: dict[str, Any] = {"scope": in_scope, "connection": connection}
        if arguments is not None:
            params["arguments"] = arguments
        if not wait:
            self._ready_to_advance(timeout)
        pending = self.send("call", params, lambda result: result["value"])
        return pending.result(timeout) if wait else pending

    def subscribe(self, connection: str, in_scope: int = ROOT, timeout: float | None = 30) -> Subscription:
        """Subscribes to a value."""
        # Registered as the reply is read (on the reader thread), so no change right behind it is missed.
        params = {"scope": in_scope, "connection": connection}
        pending = self.send("subscribe", params, subscribing=in_scope)
        try:
            result = pending.result(timeout)
        except Timeout:
            with self._lock:
                abandoned = self._pending_subscribe.pop(pending.id, None) is not None
                if abandoned:
                    self._waiting.pop(pending.id, None)
                    self._abandoned_subscribe.add(pending.id)
            if abandoned:
                raise
            # The reply was read as the wait ended: it is on its way to `pending`.
            result = pending.result(None)
        with self._lock:
            return self._subscriptions[result["subscription"]]

    def _unsubscribe(self, subscription: Subscription, timeout: float | None = 30) -> None:
        with self._lock:
            known = self._subscriptions.pop(subscription.id, None)
        if known is not None:
            subscription._values.put(_END)
            self.request("unsubscribe", {"subscription": subscription.id}, timeout)

    # The simulation

    def simulation(self, timeout: float | None = 30) -> int:
        """Opens the simulation scope (the clock, faults), once."""
        if self._simulation is None:
            self._simulation = self.open("simulation", timeout=timeout)
        return self._simulation

    def _ready_to_advance(self, timeout: float | None) -> None:
        """Opens the simulation scope, if lumend lets this client, before a request that is not waited for: lumend
        answers a session's requests in the order they were sent, so opening it afterwards, for the `advance()`
        that request waits for, would wait for that request's answer in turn."""
        if self._simulation is None and not self._simulation_refused:
            try:
                self.simulation(timeout)
            except LumenError:
                self._simulation_refused = True

    def advance(self, ms: float, timeout: float | None = 30) -> dict[str, Any]:
        """Moves a virtual clock forward; returns once everything due by then was applied."""
        return self._simulate({"ms": ms}, timeout)

    def settle(self, max_ms: float | None = None, timeout: float | None = 30) -> dict[str, Any]:
        """Moves a virtual clock from event to event until no command, fade or scan is pending (at most
        `max_ms`, two hours unless given); returns the clock, how far it went (`advancedMs`) and `idle`."""
        arguments: dict[str, Any] = {"untilIdle": True}
        if max_ms is not None:
            arguments["maxMs"] = max_ms
        return self._simulate(arguments, timeout)

    def commands(
        self, light: str | None = None, room: str | None = None, since_ms: float | None = None,
        timeout: float | None = 30,
    ) -> list[dict[str, Any]]:
        """The command record, oldest first: each command a light received (`atMs`, `source`, `light`, `room`
        of a group command, `change`, `transitionMs`) and its `outcome` (`applied`, `refused` with its `code`,
        `dropped`, `unreachable`, or still `pending`); only a light's, a room's or those since a time if asked."""
        return self._simulate(command_filter(light, room, since_ms), timeout, "commands")["commands"]

    def clear_commands(self, timeout: float | None = 30) -> int:
        """Empties the command record, so that what a test asserts next is about what came after; returns how
        many records it held. Numbers go on where they were; a command still pending is not recorded when it
        settles (settle first to keep it). `reset()` and `restore()` leave the record as it is."""
        return self._simulate(None, timeout, "clearCommands")["cleared"]

    # Assertions

    def wait_for_commands(
        self, count: int = 1, light: str | None = None, room: str | None = None, source: str | None = None,
        within: float = 10, timeout: float | None = 30,
    ) -> list[dict[str, Any]]:
        """Waits until the command record holds at least `count` commands (only a light's, a room's or a
        sender's, if asked) and returns them, oldest first; raises `Timeout`, listing what it holds, when
        `within` seconds of real time pass first.

        For code under test that sends on its own (another thread, process or front), or a write this client
        sent without waiting: once the commands are recorded they are pending on the virtual clock, and
        `settle()` carries them out. It reads the record on a connection of its own. `source` is a record's
        whole `source` or its kind (`hue`, `lifx`, `session`)."""
        # Real time, whatever stands in for time.sleep meanwhile (the plugin's sleep on the simulation's clock
        # would move the clock the test waits to move itself).
        deadline = _real_monotonic() + within
        pause = 0.001
        # Read on a connection of its own: on this one, the answer to a look at the record could wait behind a
        # write this client sent without waiting, which only a move of the clock answers.
        with Client.connect(self.path, timeout=timeout) as watcher:
            while True:
                records = _assertions.filtered(watcher.commands(light=light, room=room, timeout=timeout), source)
                left = deadline - _real_monotonic()
                if len(records) >= count:
                    return records
                if left <= 0:
                    raise Timeout(_assertions.wait_failure(count, light, room, source, within, records))
                # Polled: the record tells of a command as it settles (`lastCommand`), not as it arrives.
                _real_sleep(min(pause, left))
                pause = min(pause * 2, 0.02)

    def assert_command(
        self, light: str, change: dict[str, Any] | None = None, source: str | None = None,
        outcome: str | None = None, transition_ms: float | None = None, count: int | None = None,
        timeout: float | None = 30,
    ) -> dict[str, Any] | None:
        """Asserts that `light` received a command asking exactly `change` (every property it asked, as the
        record has it: `{"isOn": True, "brightness": 40}`), from `source` (a whole `source`, or its kind:
        `hue`, `lifx`, `session`), with that `outcome` (`applied`, `refused`, `dropped`, `unreachable`,
        `pending`) and `transition_ms`, each only when given; with `count`, exactly that many such commands
        (`count=0`: none). Returns the last such record. Raises `AssertionError` saying what was expected, what
        the light shows and the last commands it received."""
        records = self.commands(light=light, timeout=timeout)
        matching = [r for r in records if _assertions.record_matches(r, change, source, outcome, transition_ms)]
        failure = _assertions.command_failure(light, change, source, outcome, transition_ms, count, len(matching))
        if failure is None:
            return matching[-1] if matching else None
        raise AssertionError(_assertions.light_report(light, failure, self._device_or_error(light, timeout), records))

    def assert_state(self, light: str, timeout: float | None = 30, **expected: Any) -> dict[str, Any]:
        """Asserts that `light` shows each property given (`isOn=True, brightness=40`, as `device()` has its
        `state`: numbers within a thousandth, a `color` as `{"x", "y"}`), whatever its controller reports;
        returns its state. Raises `AssertionError` saying what was expected, what the light shows and the last
        commands it received."""
        if not expected:
            raise ValueError("assert_state needs a property to check, as isOn=True")
        device = self.device(light, timeout=timeout)
        failure = _assertions.state_failure(light, expected, device.get("state", {}))
        if failure is None:
            return device["state"]
        raise AssertionError(_assertions.light_report(light, failure, device, self.commands(light=light)))

    def _device_or_error(self, light: str, timeout: float | None) -> dict[str, Any] | Exception:
        try:
            return self.device(light, timeout=timeout)
        except LumenError as error:
            return error

    def reset(self, timeout: float | None = 30) -> None:
        """Brings the home back to its fixture while lumend runs; open scopes hear the changes."""
        self._simulate(None, timeout, "reset")

    def checkpoint(self, name: str, timeout: float | None = 30) -> None:
        """Keeps the home as it is now under `name` (written as an ID is), for `restore`; lumend keeps at most
        64 (`LIMIT_EXCEEDED` beyond: `drop_checkpoint` one first)."""
        self._simulate({"name": name}, timeout, "checkpoint")

    def device(self, light: str, timeout: float | None = 30) -> dict[str, Any]:
        """A light's ground truth beside what its controller reports: `family`, whether it is really
        `reachable` and `reportedReachable`, its `state` now and the properties `fading`."""
        return self._simulate({"light": light}, timeout, "device")

    def drop_checkpoint(self, name: str, timeout: float | None = 30) -> None:
        """Forgets the checkpoint `name`, making room for another."""
        self._simulate({"name": name}, timeout, "dropCheckpoint")

    def restore(self, name: str, timeout: float | None = 30) -> None:
        """Brings the home back to the checkpoint `name`."""
        self._simulate({"name": name}, timeout, "restore")

    def advance_to_next_event(self, timeout: float | None = 30) -> dict[str, Any]:
        """Moves a virtual clock to the next scheduled event and carries it out; returns how far it went."""
        return self._simulate({"toNextEvent": True}, timeout)

    def sleep(self, ms: float, timeout: float | None = 30) -> dict[str, Any]:
        """Returns once the simulation's clock has moved `ms` on, with the clock then: at once in real time on a
        clock that runs itself (`--clock auto`), once a test advances it on a virtual one, after `ms` on the
        real one."""
        return self._simulate({"ms": ms}, timeout, "sleep")

    def wall_time(self, timeout: float | None = 30) -> datetime.datetime:
        """The simulated wall clock's time now, with its UTC offset: the fixture's `start` or lumend's
        `--start`, moved on by the simulation's clock."""
        clock = self.get("clock", in_scope=self.simulation(timeout), timeout=timeout)
        return datetime.datetime.fromisoformat(clock["wallTime"])

    def _simulate(self, arguments: Any, timeout: float | None, action: str = "advance") -> Any:
        """Calls one of the simulation scope's actions, opening the scope first if need be."""
        return self.call(action, arguments, in_scope=self.simulation(timeout), timeout=timeout)

    # Reading

    def _lines(self) -> Iterator[bytes]:
        # Waits in poll, never in a blocking receive: a thread blocked receiving on a Unix stream socket is woken
        # each time lumend reads what this side sent, only to find nothing and sleep again, twice the wake-ups a
        # request; poll for input wakes only for input.
        poller = select.poll()
        poller.register(self._socket, select.POLLIN)
        pending = bytearray()
        while True:
            poller.poll()
            chunk = self._socket.recv(65536)
            if not chunk:
                return
            pending += chunk
            # A long line comes in many chunks: it is split once its end has come, not copied at each.
            if b"\n" in chunk:
                *lines, rest = pending.split(b"\n")
                pending = bytearray(rest)
                yield from (bytes(line) for line in lines)

    def _read(self) -> None:
        try:
            for line in self._lines():
                message = Message.parse(line)
                if message is not None:
                    self._handle(message)
        except OSError:
            pass
        finally:
            with self._lock:
                self._closed = True
                waiting = list(self._waiting.values())
                self._waiting.clear()
                subscriptions = list(self._subscriptions.values())
                self._subscriptions.clear()
            for answer in waiting:
                answer.put(Message(method="__closed__"))
            for subscription in subscriptions:
                subscription._values.put(ConnectionClosed("the connection to lumend was closed"))

    def _handle(self, message: Message) -> None:
        if message.method == "changed":
            with self._lock:
                subscription = self._subscriptions.get(message.params.get("subscription"))
            if subscription is not None:
                subscription._values.put(message.params.get("value"))
            return
        if message.method == "closed":
            self._scope_closed(message.params.get("scope"))
            return
        with self._lock:
            answer = self._waiting.pop(message.id, None)
            scope = self._pending_subscribe.pop(message.id, None)
            abandoned = message.id in self._abandoned_subscribe
            self._abandoned_subscribe.discard(message.id)
            if scope is not None and message.error is None:
                result = message.result
                self._subscriptions[result["subscription"]] = Subscription(
                    self, result["subscription"], scope, result.get("value")
                )
        if abandoned and message.error is None:
            # Nobody waits for this subscription any more: end it rather than keep it open unread.
            try:
                self.send("unsubscribe", {"subscription": message.result["subscription"]})
            except ConnectionClosed:
                pass
        if answer is not None:
            answer.put(message)

    def _scope_closed(self, scope: Any) -> None:
        with self._lock:
            closing = closing_scopes(self._children, scope)
            ending = [s for s in self._subscriptions.values() if s.scope in closing]
            for subscription in ending:
                del self._subscriptions[subscription.id]
        for subscription in ending:
            subscription._values.put(_END)
