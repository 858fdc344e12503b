"""Every call takes a timeout: against a fake lumend that never answers, each raises `Timeout` when it passes."""

import asyncio
import json
import socket
import threading

import pytest

from lumen import AsyncClient, Client, Timeout
from lumen.client import Subscription

# Every call, as both clients take it: the asynchronous one has the same calls, names and arguments.
CALLS = {
    "hello": lambda c, t: c.hello(timeout=t),
    "describe": lambda c, t: c.describe(timeout=t),
    "open": lambda c, t: c.open("room", configuration="lab", timeout=t),
    "close": lambda c, t: c.close(3, timeout=t),
    "get": lambda c, t: c.get("name", timeout=t),
    "set": lambda c, t: c.set("name", "Lab", timeout=t),
    "set_state": lambda c, t: c.set_state(3, isOn=True, timeout=t),
    "call": lambda c, t: c.call("identify", in_scope=3, timeout=t),
    "subscribe": lambda c, t: c.subscribe("name", timeout=t),
    "advance": lambda c, t: c.advance(100, timeout=t),
    "settle": lambda c, t: c.settle(timeout=t),
    "commands": lambda c, t: c.commands(timeout=t),
    "reset": lambda c, t: c.reset(timeout=t),
    "checkpoint": lambda c, t: c.checkpoint("clean", timeout=t),
    "restore": lambda c, t: c.restore("clean", timeout=t),
    "drop_checkpoint": lambda c, t: c.drop_checkpoint("clean", timeout=t),
    "device": lambda c, t: c.device("lab.lamp", timeout=t),
    "advance_to_next_event": lambda c, t: c.advance_to_next_event(timeout=t),
    "simulation": lambda c, t: c.simulation(timeout=t),
}


@pytest.mark.parametrize("call", CALLS.values(), ids=CALLS.keys())
def test_each_call_times_out_when_lumend_does_not_answer(call):
    near, far = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    client = Client(near, "socketpair")
    try:
        with pytest.raises(Timeout):
            call(client, 0.05)
    finally:
        far.close()
        client.close_connection()


def test_closing_a_subscription_times_out_when_lumend_does_not_answer():
    near, far = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    client = Client(near, "socketpair")
    try:
        subscription = Subscription(client, 7, 0, "Lab")
        client._subscriptions[7] = subscription
        with pytest.raises(Timeout):
            subscription.close(timeout=0.05)
    finally:
        far.close()
        client.close_connection()


@pytest.mark.parametrize("call", CALLS.values(), ids=CALLS.keys())
def test_each_async_call_times_out_when_lumend_does_not_answer(call):
    near, far = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)

    async def run():
        reader, writer = await asyncio.open_unix_connection(sock=near)
        client = AsyncClient(reader, writer, "socketpair")
        with pytest.raises(Timeout):
            await call(client, 0.05)
        far.close()
        await client.close_connection()

    asyncio.run(run())


def test_an_async_set_state_sends_only_the_lights_properties():
    near, far = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)

    async def run():
        reader, writer = await asyncio.open_unix_connection(sock=near)
        client = AsyncClient(reader, writer, "socketpair")
        with pytest.raises(Timeout):
            await client.set_state(3, isOn=True, timeout=0.05)
        request = json.loads(far.recv(65536).split(b"\n")[0])
        far.close()
        await client.close_connection()
        return request

    request = asyncio.run(run())
    assert request["params"]["arguments"] == {"isOn": True}


def test_connecting_says_hello_so_that_lumend_keeps_an_idle_connection(tmp_path):
    """lumend closes a connection that makes no request within its first seconds (`--request-timeout`); a
    client that connects and then waits says hello first, so it is kept."""
    path = str(tmp_path / "lumend.sock")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(2)
    hellos = []

    def answer_hello():
        connection, _ = server.accept()
        request = json.loads(connection.recv(65536).split(b"\n")[0])
        hellos.append(request["method"])
        reply = {"jsonrpc": "2.0", "id": request["id"], "result": {"name": "lumend"}}
        connection.sendall(json.dumps(reply).encode() + b"\n")
        return connection

    accepted = []
    thread = threading.Thread(target=lambda: accepted.append(answer_hello()))
    thread.start()
    client = Client.connect(path, timeout=5)
    thread.join(5)
    client.close_connection()
    accepted[0].close()

    async def run():
        thread = threading.Thread(target=lambda: accepted.append(answer_hello()))
        thread.start()
        client = await AsyncClient.connect(path)
        await client.close_connection()
        await asyncio.get_running_loop().run_in_executor(None, thread.join, 5)
        accepted[1].close()

    asyncio.run(run())
    server.close()
    assert hellos == ["hello", "hello"]
