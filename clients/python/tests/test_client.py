import asyncio
import datetime
import platform
import queue
import socket
import threading
import types

import pytest

from conftest import LAB
from lumen import AsyncClient, CannotConnect, Client, ConnectionClosed, ErrorCode, LumenError, socket_candidates
from lumen.pytest_plugin import lumend_binary, start

pytestmark = pytest.mark.lumend(fixture=LAB, seed=9)


def open_lamp(client):
    room = client.open("room", configuration="lab")
    return room, client.open("light", in_scope=room, configuration="lab.lamp")


def test_hello_names_the_server_and_protocol(lumend):
    hello = lumend.hello()
    assert hello["server"] == "lumend" and hello["protocol"] == 1 and hello["root"] == 0


def test_values_read_as_typed(lumend):
    room, lamp = open_lamp(lumend)
    assert lumend.get("name") == "Lab"
    assert lumend.get("lightIDs", in_scope=room) == ["lab.lamp", "lab.plug"]
    assert lumend.get("brightness", in_scope=lamp) == 40
    assert lumend.get("isOn", in_scope=lamp) is False


def test_errors_are_typed_with_the_protocols_codes(lumend):
    _, lamp = open_lamp(lumend)
    with pytest.raises(LumenError) as caught:
        lumend.open("room", configuration="cellar")
    assert caught.value.code == ErrorCode.NO_SUCH_ENTITY
    with pytest.raises(LumenError) as caught:
        lumend.set("brightness", 140, in_scope=lamp)
    assert caught.value.code == ErrorCode.INVALID_PARAMS and caught.value.data["light"] == "lab.lamp"
    with pytest.raises(LumenError) as caught:
        lumend.request("dance")
    assert caught.value.code == ErrorCode.METHOD_NOT_FOUND


def test_a_subscription_yields_each_change_and_ends_when_its_scope_closes(lumend):
    room, lamp = open_lamp(lumend)
    values = lumend.subscribe("brightness", in_scope=lamp)
    assert values.next(timeout=5) == 40
    pending = lumend.set("brightness", 75, in_scope=lamp, wait=False)
    lumend.advance(100)
    assert pending.result(timeout=5) == 75
    assert values.next(timeout=5) == 75
    lumend.close(room)
    assert list(values) == []


def test_a_subscription_ends_with_an_error_when_the_daemon_goes_away(lumend):
    _, lamp = open_lamp(lumend)
    values = lumend.subscribe("isOn", in_scope=lamp)
    assert values.next(timeout=5) is False
    lumend.daemon.stop()
    with pytest.raises(ConnectionClosed):
        values.next(timeout=10)
    # The fixture's own stop then finds it stopped cleanly.


def test_the_async_client_speaks_the_same_protocol(lumend):
    async def run():
        async with await AsyncClient.connect(lumend.path) as client:
            room = await client.open("room", configuration="lab")
            lamp = await client.open("light", in_scope=room, configuration="lab.lamp")
            values = await client.subscribe("isOn", in_scope=lamp)
            assert await values.__anext__() is False
            # Opened first: its answer would otherwise come after the set's, which waits for the advance.
            await client.simulation()
            pending = asyncio.ensure_future(client.set("isOn", True, in_scope=lamp))
            await asyncio.sleep(0)
            await client.advance(100)
            assert await pending is True
            assert await values.__anext__() is True
            with pytest.raises(LumenError) as caught:
                await client.get("color", in_scope=lamp)
            assert caught.value.code == ErrorCode.NOT_SUPPORTED
            await client.close(room)
            assert [value async for value in values] == []

    asyncio.run(run())


def test_the_async_client_has_every_call_of_the_synchronous_one():
    def public(cls):
        return {name for name in dir(cls) if not name.startswith("_")}

    # `send` returns at once with a pending answer, for pipelining without threads; asyncio pipelines by
    # gathering calls instead.
    assert public(Client) - {"send"} == public(AsyncClient)


def test_calls_that_need_the_simulation_scope_at_once_open_it_once():
    near, far = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)

    async def run():
        reader, writer = await asyncio.open_unix_connection(sock=near)
        client = AsyncClient(reader, writer, "socketpair")
        opened = []

        async def open_scope(connection, in_scope=0, configuration=None, timeout=30):
            opened.append(connection)
            await asyncio.sleep(0.01)
            return 7

        client.open = open_scope
        assert await asyncio.gather(client.simulation(), client.simulation(), client.simulation()) == [7, 7, 7]
        assert opened == ["simulation"]
        far.close()
        await client.close_connection()

    asyncio.run(run())


def test_several_properties_go_to_a_light_as_one_command(lumend):
    _, lamp = open_lamp(lumend)
    with pytest.raises(LumenError) as caught:
        lumend.set_state(lamp)
    assert caught.value.code == ErrorCode.INVALID_PARAMS and caught.value.data["connection"] == "setState"

    async def run():
        async with await AsyncClient.connect(lumend.path) as client:
            room = await client.open("room", configuration="lab")
            light = await client.open("light", in_scope=room, configuration="lab.lamp")
            await client.simulation()
            # Sent before the clock moves: the device answers once it does.
            pending = asyncio.ensure_future(client.set_state(light, isOn=True, brightness=70, transition_ms=0))
            await asyncio.sleep(0)
            await client.advance(100)
            assert await pending == {"isOn": True, "brightness": 70}
        assert lumend.get("brightness", in_scope=lamp) == 70

    asyncio.run(run())


def test_no_daemon_says_which_sockets_were_tried(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    monkeypatch.delenv("LUMEN_SOCKET", raising=False)
    paths = [path for path, _, _ in socket_candidates()]
    assert paths[0] == f"{tmp_path}/lumend/lumend.sock" and paths[-1] == "/run/lumend/lumend.sock"
    with pytest.raises(CannotConnect) as caught:
        Client.connect()
    assert f"{tmp_path}/lumend/lumend.sock" in str(caught.value)


def test_the_fixture_fails_a_test_whose_daemon_did_not_exit_cleanly(pytester, pytestconfig):
    pytester.makepyfile(
        """
        import signal

        def test_kills_its_daemon(lumend):
            lumend.daemon.process.send_signal(signal.SIGKILL)
            lumend.daemon.process.wait()
        """
    )
    result = pytester.runpytest_subprocess("-p", "lumen.pytest_plugin", "--lumend", lumend_binary(pytestconfig))
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*lumend did not exit cleanly (status -9)*"])


def test_a_daemon_that_cannot_start_fails_the_test_with_what_it_said(pytester, pytestconfig):
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.lumend(fixture="/nonexistent/home.json")
        def test_never_runs(lumend):
            pass
        """
    )
    result = pytester.runpytest_subprocess("-p", "lumen.pytest_plugin", "--lumend", lumend_binary(pytestconfig))
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*lumend exited with status 1 before it was ready*", "*does not exist*"])


def test_the_reader_waits_for_input_in_poll_not_in_read():
    # A thread blocked in read on a Unix stream socket is woken each time the peer reads what this side sent,
    # only to find nothing and sleep again: twice the wake-ups a request. Waiting in poll wakes only for input.
    near, far = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    client = Client(near, "socketpair")
    try:
        task = f"/proc/self/task/{client._reader.native_id}"
        blocked_in = None
        while blocked_in is None:
            with open(f"{task}/stat") as stat:
                state = stat.read().rsplit(")", 1)[1].split()[0]
            with open(f"{task}/syscall") as syscall:
                call = syscall.read().split()[0]
            if state == "S" and call.isdigit():
                blocked_in = int(call)
        # poll or ppoll; a blocked read would show read or recvfrom.
        waits = {7, 271} if platform.machine() == "x86_64" else {73}
        assert blocked_in in waits, f"blocked in system call {blocked_in}, which the peer's reads wake"
    finally:
        far.close()
        client.close_connection()


def test_the_reader_joins_lines_sent_in_pieces_long_ones_too():
    near, far = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    long_line = b'{"x":"' + b"a" * (1 << 20) + b'"}'

    def send():
        far.sendall(b'{"a":1}\n{"b"' + b":2}\n" + long_line[:1000])
        far.sendall(long_line[1000:] + b"\nlast")
        far.close()

    sender = threading.Thread(target=send)
    sender.start()
    try:
        lines = list(Client._lines(types.SimpleNamespace(_socket=near)))
    finally:
        sender.join()
        near.close()
    assert lines == [b'{"a":1}', b'{"b":2}', long_line], "an unfinished last line is no message"


@pytest.mark.lumend(fixture=LAB, seed=9, args=["--start", "2026-12-04T23:00:00+01:00"])
def test_the_wall_clock_starts_where_asked_and_moves_with_the_simulation(lumend):
    one_hour_east = datetime.timezone(datetime.timedelta(hours=1))
    assert lumend.wall_time() == datetime.datetime(2026, 12, 4, 23, 0, tzinfo=one_hour_east)
    lumend.advance(90 * 60_000)
    assert lumend.wall_time() == datetime.datetime(2026, 12, 5, 0, 30, tzinfo=one_hour_east)
