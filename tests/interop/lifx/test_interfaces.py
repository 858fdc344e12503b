"""The bulbs on an interface of their own, as on a macvlan: a broadcast is answered from the interface that holds
the bulbs' addresses, once, and one arriving on another interface is not (a LAN broadcast reaches a macvlan and
the interface under it alike). Plain sockets, no client library: what is checked is where datagrams go."""

import socket
import struct
import subprocess

import pytest

from conftest import drive

# A veth in this test namespace, holding the bulbs' addresses; made once, before any lumend starts.
try:
    for command in (
        "ip link add lifx0 type veth peer name lifx1",
        "ip link set lifx1 up",
        "ip link set lifx0 up",
        "ip addr add 10.99.0.10/24 brd 10.99.0.255 dev lifx0",
        "ip addr add 10.99.0.11/24 dev lifx0",
        "ip addr add 10.99.0.12/24 dev lifx0",
    ):
        subprocess.run(command.split(), check=True, capture_output=True)
    INTERFACE = None
except (OSError, subprocess.CalledProcessError) as error:
    INTERFACE = f"no interface of the bulbs' own here: {error}"

BULBS_ON_VETH = ["--lifx", "10.99.0.10:56700"]


def get_service() -> bytes:
    """A tagged GetService, as discovery sends it."""
    return struct.pack("<HHI8s6sBBQHH", 36, 1024 | 0x1000 | 0x2000, 42, b"\0" * 8, b"\0" * 6, 0, 1, 0, 2, 0)


def answers(destination: str) -> list[str]:
    """The addresses that answer a GetService sent to `destination`, each as often as it answers."""
    client = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    client.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
    client.settimeout(1.0)
    client.sendto(get_service(), (destination, 56700))
    found = []
    try:
        while True:
            found.append(client.recvfrom(128)[1][0])
    except socket.timeout:
        return sorted(found)
    finally:
        client.close()


@pytest.mark.skipif(INTERFACE is not None, reason=str(INTERFACE))
@pytest.mark.lumend(args=BULBS_ON_VETH)
def test_a_broadcast_is_answered_once_from_the_bulbs_interface_and_not_from_another(lumend):
    assert drive(lumend, lambda: answers("10.99.0.255")) == ["10.99.0.10", "10.99.0.11", "10.99.0.12"]
    assert drive(lumend, lambda: answers("10.77.0.255")) == [], "a broadcast on loopback's LAN: not the bulbs'"
    assert drive(lumend, lambda: answers("10.99.0.11")) == ["10.99.0.11"]
