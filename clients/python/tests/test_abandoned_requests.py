"""What a request that was given up on leaves behind: nothing, on a fake lumend at the other end of a socket pair."""

import asyncio
import json
import socket

import pytest

from lumen import AsyncClient, Client, ConnectionClosed, Timeout


def read_request(far: socket.socket, buffer: bytearray) -> dict:
    while b"\n" not in buffer:
        chunk = far.recv(65536)
        assert chunk, "the client closed the connection"
        buffer += chunk
    line, _, rest = bytes(buffer).partition(b"\n")
    buffer[:] = rest
    return json.loads(line)


def reply(far: socket.socket, request: dict, result: dict) -> None:
    far.sendall(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result}).encode() + b"\n")


def test_a_subscribe_that_timed_out_is_unsubscribed_when_its_reply_comes_late():
    near, far = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    client = Client(near, "socketpair")
    buffer = bytearray()
    try:
        with pytest.raises(Timeout):
            client.subscribe("isOn", in_scope=3, timeout=0.05)
        subscribe = read_request(far, buffer)
        assert subscribe["method"] == "subscribe"
        assert client._pending_subscribe == {} and client._waiting == {}
        reply(far, subscribe, {"subscription": 7, "value": False})
        unsubscribe = read_request(far, buffer)
        assert unsubscribe["method"] == "unsubscribe" and unsubscribe["params"] == {"subscription": 7}
        assert client._subscriptions == {}
    finally:
        far.close()
        client.close_connection()


def test_a_request_that_could_not_be_sent_is_not_left_waiting():
    near, far = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    client = Client(near, "socketpair")
    try:
        near.shutdown(socket.SHUT_WR)
        with pytest.raises(ConnectionClosed):
            client.send("subscribe", {"scope": 3, "connection": "isOn"}, subscribing=3)
        assert client._waiting == {} and client._pending_subscribe == {}
    finally:
        far.close()
        client.close_connection()


def test_an_async_subscribe_that_timed_out_is_unsubscribed_when_its_reply_comes_late():
    near, far = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    buffer = bytearray()

    async def run():
        reader, writer = await asyncio.open_unix_connection(sock=near)
        client = AsyncClient(reader, writer, "socketpair")
        with pytest.raises(Timeout):
            await client.subscribe("isOn", in_scope=3, timeout=0.05)
        assert client._pending_subscribe == {} and client._waiting == {}
        subscribe = await asyncio.to_thread(read_request, far, buffer)
        assert subscribe["method"] == "subscribe"
        reply(far, subscribe, {"subscription": 7, "value": False})
        unsubscribe = await asyncio.to_thread(read_request, far, buffer)
        assert unsubscribe["method"] == "unsubscribe" and unsubscribe["params"] == {"subscription": 7}
        assert client._subscriptions == {}
        far.close()
        await client.close_connection()

    asyncio.run(run())


def test_an_async_request_that_could_not_be_sent_is_not_left_waiting():
    near, far = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)

    async def run():
        near.shutdown(socket.SHUT_WR)
        reader, writer = await asyncio.open_unix_connection(sock=near)
        client = AsyncClient(reader, writer, "socketpair")
        with pytest.raises(ConnectionClosed):
            await client.subscribe("isOn", in_scope=3, timeout=1)
        assert client._waiting == {} and client._pending_subscribe == {}
        far.close()
        await client.close_connection()

    asyncio.run(run())
