"""An asyncio client: the same calls as `Client`, awaited; subscriptions are async iterators."""

from __future__ import annotations

import asyncio
from asyncio import sleep as _real_sleep
import datetime
from typing import Any, AsyncIterator

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


class AsyncSubscription:
    """The values of one subscription, as an async iterator: the current value, then each change; it ends
    when the scope closes and raises `ConnectionClosed` when the connection ends."""

    def __init__(self, client: "AsyncClient", subscription: int, scope: int, value: Any):
        self.client = client
        self.id = subscription
        self.scope = scope
        self.initial = value
        self._values: "asyncio.Queue[Any]" = asyncio.Queue()
        self._values.put_nowait(value)

    def __aiter__(self) -> AsyncIterator[Any]:
        return self

    async def __anext__(self) -> Any:
        value = await self._values.get()
        if value is _END or isinstance(value, ConnectionClosed):
            self._values.put_nowait(value)
        if value is _END:
            raise StopAsyncIteration
        if isinstance(value, ConnectionClosed):
            raise value
        return value


class AsyncClient:
    """A connection to lumend for asyncio code.

    >>> client = await AsyncClient.connect()
    >>> kitchen = await client.open("room", configuration="kitchen")
    >>> async for name in await client.subscribe("name", in_scope=kitchen): ...
    """

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, path: str):
        self.path = path
        self._reader = reader
        self._writer = writer
        self._next_id = 1
        self._waiting: dict[int, "asyncio.Future[Message]"] = {}
        self._pending_subscribe: dict[int, int] = {}
        # Subscribe requests given up on (timed out): a subscription their late reply opens is unsubscribed.
        self._abandoned_subscribe: set[int] = set()
        self._subscriptions: dict[int, AsyncSubscription] = {}
        self._children: dict[int, list[int]] = {}
        self._simulation: int | None = None
        # Held while the simulation scope is opened, so calls that need it at once open it once.
        self._opening_simulation = asyncio.Lock()
        self._closed = False
        self._task = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    async def connect(cls, path: str | None = None, timeout: float | None = 30) -> "AsyncClient":
        """Connects to `path`, or to the first of lumend's default sockets that answers, and says `hello`: lumend
        closes a connection that makes no request within its first seconds, and one that has may then wait."""
        failures = []
        for candidate, origin, distrust in candidates_for(path):
            if distrust:
                failures.append(f"{origin} socket {candidate} (not trusting it: {distrust})")
                continue
            try:
                reader, writer = await asyncio.open_unix_connection(candidate, limit=64 << 20)
            except OSError as error:
                failures.append(f"{origin} socket {candidate} ({error.strerror or error})")
                continue
            client = cls(reader, writer, candidate)
            try:
                await client.hello(timeout=timeout)
            except BaseException:
                await client.close_connection()
                raise
            return client
        raise not_connected(failures)

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.close_connection()

    async def close_connection(self) -> None:
        """Closes the connection: waiting calls and subscriptions end with `ConnectionClosed`."""
        self._writer.close()
        try:
            await self._writer.wait_closed()
        except OSError:
            pass
        await self._task

    async def request(self, method: str, params: dict[str, Any] | None = None, timeout: float | None = 30) -> Any:
        """Sends one JSON-RPC request and returns its result; raises `LumenError` with lumend's error, or
        `Timeout` when no answer came within `timeout` seconds."""
        return (await self._send(method, params or {}, timeout=timeout)).result

    async def _send(
        self, method: str, params: dict[str, Any], subscribing: int | None = None, timeout: float | None = 30
    ) -> Message:
        if self._closed:
            raise ConnectionClosed("the connection to lumend is closed")
        request_id = self._next_id
        self._next_id += 1
        answer: "asyncio.Future[Message]" = asyncio.get_running_loop().create_future()
        self._waiting[request_id] = answer
        if subscribing is not None:
            self._pending_subscribe[request_id] = subscribing
        try:
            self._writer.write(request_line(request_id, method, params))
            await self._writer.drain()
        except OSError as error:
            self._waiting.pop(request_id, None)
            self._pending_subscribe.pop(request_id, None)
            raise ConnectionClosed(str(error)) from error
        try:
            message = await asyncio.wait_for(answer, timeout)
        except asyncio.TimeoutError:
            self._waiting.pop(request_id, None)
            if self._pending_subscribe.pop(request_id, None) is not None:
                self._abandoned_subscribe.add(request_id)
            what = f"{method} {params.get('connection')}" if "connection" in params else method
            raise Timeout(f"lumend did not answer {what} within {timeout:g} s{CLOCK_HINT}") from None
        if message.method == "__closed__":
            raise ConnectionClosed("the connection to lumend was closed")
        if message.error is not None:
            raise message.error
        return message

    async def hello(self, client: str = "lumen-python", timeout: float | None = 30) -> dict[str, Any]:
        """Says who is connecting; see `Client.hello`."""
        return await self.request("hello", {"client": client}, timeout)

    async def describe(self, timeout: float | None = 30) -> dict[str, Any]:
        """What lumend serves; see `Client.describe`."""
        return await self.request("describe", timeout=timeout)

    async def open(
        self, connection: str, in_scope: int = ROOT, configuration: Any = None, timeout: float | None = 30
    ) -> int:
        """Opens a child scope (`room`, `light`, `simulation`) and returns its ID."""
        params: dict[str, Any] = {"scope": in_scope, "connection": connection}
        if configuration is not None:
            params["configuration"] = configuration
        scope = (await self.request("open", params, timeout))["scope"]
        self._children.setdefault(in_scope, []).append(scope)
        return scope

    async def close(self, scope: int, timeout: float | None = 30) -> None:
        """Closes a scope and its children; their subscriptions end."""
        await self.request("close", {"scope": scope}, timeout)
        self._scope_closed(scope)

    async def get(self, connection: str, in_scope: int = ROOT, timeout: float | None = 30) -> Any:
        """Reads a value; see `Client.get`."""
        return (await self.request("get", {"scope": in_scope, "connection": connection}, timeout))["value"]

    async def set(
        self, connection: str, value: Any, in_scope: int = ROOT, transition_ms: float | None = None,
        timeout: float | None = 30,
    ) -> Any:
        """Writes a value; returns it once the device confirmed it (on a virtual clock, once the clock moves)."""
        params: dict[str, Any] = {"scope": in_scope, "connection": connection, "value": value}
        if transition_ms is not None:
            params["transitionMs"] = transition_ms
        return (await self.request("set", params, timeout))["value"]

    async def set_state(
        self, in_scope: int, transition_ms: float | None = None, timeout: float | None = 30, **changes: Any
    ) -> dict[str, Any]:
        """Changes several of a light's properties as one device command; see ``Client.set_state``."""
        arguments = state_arguments(changes, transition_ms)
        return await self.call("setState", arguments, in_scope=in_scope, timeout=timeout)

    async def call(
        self, connection: str, arguments: Any = None, in_scope: int = ROOT, timeout: float | None = 30
    ) -> Any:
        """Calls an action and returns its value."""
        params: dict[str, Any] = {"scope": in_scope, "connection": connection}
        if arguments is not None:
            params["arguments"] = arguments
        return (await self.request("call", params, timeout))["value"]

    async def subscribe(self, connection: str, in_scope: int = ROOT, timeout: float | None = 30) -> AsyncSubscription:
        """Subscribes to a value."""
        params = {"scope": in_scope, "connection": connection}
        message = await self._send("subscribe", params, subscribing=in_scope, timeout=timeout)
        return self._subscriptions[message.result["subscription"]]

    async def advance(self, ms: float, timeout: float | None = 30) -> dict[str, Any]:
        """Moves a virtual clock forward; returns once everything due by then was applied."""
        return await self._simulate({"ms": ms}, timeout)

    async def settle(self, max_ms: float | None = None, timeout: float | None = 30) -> dict[str, Any]:
        """Moves a virtual clock from event to event until nothing is pending; see `Client.settle`."""
        arguments: dict[str, Any] = {"untilIdle": True}
        if max_ms is not None:
            arguments["maxMs"] = max_ms
        return await self._simulate(arguments, timeout)

    async def commands(
        self, light: str | None = None, room: str | None = None, since_ms: float | None = None,
        timeout: float | None = 30,
    ) -> list[dict[str, Any]]:
        """The command record; see `Client.commands`."""
        return (await self._simulate(command_filter(light, room, since_ms), timeout, "commands"))["commands"]

    async def clear_commands(self, timeout: float | None = 30) -> int:
        """Empties the command record; see `Client.clear_commands`."""
        return (await self._simulate(None, timeout, "clearCommands"))["cleared"]

    async def wait_for_commands(
        self, count: int = 1, light: str | None = None, room: str | None = None, source: str | None = None,
        within: float = 10, timeout: float | None = 30,
    ) -> list[dict[str, Any]]:
        """Waits until the command record holds at least `count` commands; see `Client.wait_for_commands`."""
        deadline = asyncio.get_running_loop().time() + within
        pause = 0.001
        # On a connection of its own, as `Client.wait_for_commands` reads.
        watcher = await AsyncClient.connect(self.path, timeout=timeout)
        try:
            while True:
                found = await watcher.commands(light=light, room=room, timeout=timeout)
                records = _assertions.filtered(found, source)
                left = deadline - asyncio.get_running_loop().time()
                if len(records) >= count:
                    return records
                if left <= 0:
                    raise Timeout(_assertions.wait_failure(count, light, room, source, within, records))
                # Real time, whatever stands in for asyncio.sleep meanwhile (see Client.wait_for_commands).
                await _real_sleep(min(pause, left))
                pause = min(pause * 2, 0.02)
        finally:
            await watcher.close_connection()

    async def assert_command(
        self, light: str, change: dict[str, Any] | None = None, source: str | None = None,
        outcome: str | None = None, transition_ms: float | None = None, count: int | None = None,
        timeout: float | None = 30,
    ) -> dict[str, Any] | None:
        """Asserts that `light` received such a command; see `Client.assert_command`."""
        records = await self.commands(light=light, timeout=timeout)
        matching = [r for r in records if _assertions.record_matches(r, change, source, outcome, transition_ms)]
        failure = _assertions.command_failure(light, change, source, outcome, transition_ms, count, len(matching))
        if failure is None:
            return matching[-1] if matching else None
        try:
            device: dict[str, Any] | Exception = await self.device(light, timeout=timeout)
        except LumenError as error:
            device = error
        raise AssertionError(_assertions.light_report(light, failure, device, records))

    async def assert_state(self, light: str, timeout: float | None = 30, **expected: Any) -> dict[str, Any]:
        """Asserts that `light` shows each property given; see `Client.assert_state`."""
        if not expected:
            raise ValueError("assert_state needs a property to check, as isOn=True")
        device = await self.device(light, timeout=timeout)
        failure = _assertions.state_failure(light, expected, device.get("state", {}))
        if failure is None:
            return device["state"]
        raise AssertionError(_assertions.light_report(light, failure, device, await self.commands(light=light)))

    async def reset(self, timeout: float | None = 30) -> None:
        """Brings the home back to its fixture; see `Client.reset`."""
        await self._simulate(None, timeout, "reset")

    async def checkpoint(self, name: str, timeout: float | None = 30) -> None:
        """Keeps the home as it is now under `name`; see `Client.checkpoint`."""
        await self._simulate({"name": name}, timeout, "checkpoint")

    async def device(self, light: str, timeout: float | None = 30) -> dict[str, Any]:
        """A light's ground truth beside what its controller reports; see `Client.device`."""
        return await self._simulate({"light": light}, timeout, "device")

    async def drop_checkpoint(self, name: str, timeout: float | None = 30) -> None:
        """Forgets the checkpoint `name`; see `Client.drop_checkpoint`."""
        await self._simulate({"name": name}, timeout, "dropCheckpoint")

    async def restore(self, name: str, timeout: float | None = 30) -> None:
        """Brings the home back to the checkpoint `name`; see `Client.restore`."""
        await self._simulate({"name": name}, timeout, "restore")

    async def advance_to_next_event(self, timeout: float | None = 30) -> dict[str, Any]:
        """Moves a virtual clock to the next scheduled event; see `Client.advance_to_next_event`."""
        return await self._simulate({"toNextEvent": True}, timeout)

    async def sleep(self, ms: float, timeout: float | None = 30) -> dict[str, Any]:
        """Returns once the simulation's clock has moved `ms` on; see `Client.sleep`."""
        return await self._simulate({"ms": ms}, timeout, "sleep")

    async def wall_time(self, timeout: float | None = 30) -> datetime.datetime:
        """The simulated wall clock's time now; see `Client.wall_time`."""
        clock = await self.get("clock", in_scope=await self.simulation(timeout), timeout=timeout)
        return datetime.datetime.fromisoformat(clock["wallTime"])

    async def simulation(self, timeout: float | None = 30) -> int:
        """Opens the simulation scope (the clock, faults), once; see `Client.simulation`. Open it before starting a
        write on a task of its own that an `advance()` is to answer: lumend answers a session's requests in the
        order they were sent, so opening it after the write would wait for the write's answer."""
        async with self._opening_simulation:
            if self._simulation is None:
                self._simulation = await self.open("simulation", timeout=timeout)
        return self._simulation

    async def _simulate(self, arguments: Any, timeout: float | None, action: str = "advance") -> Any:
        """Calls one of the simulation scope's actions, opening the scope first if need be."""
        return await self.call(action, arguments, in_scope=await self.simulation(timeout), timeout=timeout)

    async def _read(self) -> None:
        try:
            while line := await self._reader.readline():
                message = Message.parse(line)
                if message is not None:
                    self._handle(message)
        except (OSError, asyncio.IncompleteReadError, ValueError):
            pass
        finally:
            self._closed = True
            for answer in self._waiting.values():
                if not answer.done():
                    answer.set_result(Message(method="__closed__"))
            self._waiting.clear()
            for subscription in self._subscriptions.values():
                subscription._values.put_nowait(ConnectionClosed("the connection to lumend was closed"))
            self._subscriptions.clear()

    def _handle(self, message: Message) -> None:
        if message.method == "changed":
            subscription = self._subscriptions.get(message.params.get("subscription"))
            if subscription is not None:
                subscription._values.put_nowait(message.params.get("value"))
            return
        if message.method == "closed":
            self._scope_closed(message.params.get("scope"))
            return
        scope = self._pending_subscribe.pop(message.id, None)
        if message.id in self._abandoned_subscribe:
            self._abandoned_subscribe.discard(message.id)
            if message.error is None and not self._closed:
                # Nobody waits for this subscription any more: end it rather than keep it open unread.
                request_id = self._next_id
                self._next_id += 1
                params = {"subscription": message.result["subscription"]}
                self._writer.write(request_line(request_id, "unsubscribe", params))
        if scope is not None and message.error is None:
            result = message.result
            self._subscriptions[result["subscription"]] = AsyncSubscription(
                self, result["subscription"], scope, result.get("value")
            )
        answer = self._waiting.pop(message.id, None)
        if answer is not None and not answer.done():
            answer.set_result(message)

    def _scope_closed(self, scope: Any) -> None:
        closing = closing_scopes(self._children, scope)
        for subscription in [s for s in self._subscriptions.values() if s.scope in closing]:
            del self._subscriptions[subscription.id]
            subscription._values.put_nowait(_END)
