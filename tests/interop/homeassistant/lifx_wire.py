"""A bulb's own answers over the LIFX LAN protocol, read without Home Assistant or aiolifx: what lumend's bulb
reports (its zones, pixels, effects, infrared level, HEV cycle), to check Home Assistant's state against.

Blocking: call it from an executor job (`hass.async_add_executor_job`), so Home Assistant's loop goes on.
"""

from __future__ import annotations

import random
import socket
import struct
import time
from typing import Any

PORT = 56700
HEADER = struct.Struct("<HHI8s6sBBQHH")

# Requests and the replies they are answered with (LIFX LAN protocol's packet numbers).
GET_COLOR, LIGHT_STATE = 101, 107
GET_LIGHT_POWER, STATE_LIGHT_POWER = 116, 118
GET_INFRARED, STATE_INFRARED = 120, 121
GET_HEV_CYCLE, STATE_HEV_CYCLE = 142, 144
GET_LAST_HEV_CYCLE_RESULT, STATE_LAST_HEV_CYCLE_RESULT = 148, 149
GET_MULTIZONE_EFFECT, STATE_MULTIZONE_EFFECT = 507, 509
GET_EXTENDED_COLOR_ZONES, STATE_EXTENDED_COLOR_ZONES = 511, 512
GET_64, STATE_64 = 707, 711
GET_TILE_EFFECT, STATE_TILE_EFFECT = 718, 720
STATE_UNHANDLED = 223


def packet(kind: int, payload: bytes = b"", sequence: int = 0, source: int = 0) -> bytes:
    """A request to whichever bulb is at the address it is sent to (target zeros), asking for its state."""
    size = HEADER.size + len(payload)
    protocol = 1024 | (1 << 12)
    return HEADER.pack(size, protocol, source, bytes(8), bytes(6), 0x01, sequence, 0, kind, 0) + payload


def hsbk(data: bytes, offset: int) -> tuple[int, int, int, int]:
    return struct.unpack_from("<HHHH", data, offset)


def ask(address: str, kind: int, payload: bytes = b"", replies: int = 1, timeout: float = 2.0) -> list[tuple[int, bytes]]:
    """Sends one request to the bulb at `address`; returns the (type, payload) of each reply, up to `replies`, read
    within `timeout` seconds (a lost datagram is asked again, as a client does)."""
    source = random.randint(2, 2**31)
    answers: list[tuple[int, bytes]] = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind(("127.0.0.1", 0))
        for attempt in range(3):
            sock.sendto(packet(kind, payload, sequence=attempt, source=source), (address, PORT))
            deadline = time.monotonic() + timeout
            while len(answers) < replies and (left := deadline - time.monotonic()) > 0:
                sock.settimeout(left)
                try:
                    data, _ = sock.recvfrom(2048)
                except TimeoutError:
                    break
                header = HEADER.unpack_from(data)
                if header[2] == source and header[6] == attempt:
                    answers.append((header[8], data[HEADER.size:]))
            if answers:
                return answers
    raise AssertionError(f"no answer from the bulb at {address} to packet {kind}")


def light_state(address: str) -> dict[str, Any]:
    """`Light.State`: the colour and power level the bulb reports."""
    kind, data = ask(address, GET_COLOR)[0]
    assert kind == LIGHT_STATE, kind
    return {"hsbk": hsbk(data, 0), "power": struct.unpack_from("<H", data, 10)[0]}


def zones(address: str) -> list[tuple[int, int, int, int]]:
    """The strip's zones, as `StateExtendedColorZones` reports them."""
    kind, data = ask(address, GET_EXTENDED_COLOR_ZONES)[0]
    assert kind == STATE_EXTENDED_COLOR_ZONES, kind
    count, index, in_message = struct.unpack_from("<HHB", data)
    return [hsbk(data, 5 + 8 * n) for n in range(min(count - index, in_message))]


def multizone_effect(address: str) -> dict[str, Any]:
    """`StateMultiZoneEffect`: the effect's type, speed (ms) and direction."""
    kind, data = ask(address, GET_MULTIZONE_EFFECT)[0]
    assert kind == STATE_MULTIZONE_EFFECT, kind
    _, effect, speed, duration = struct.unpack_from("<IBxxIQ", data)
    direction = struct.unpack_from("<I", data, 27 + 4)[0]
    return {"type": effect, "speed": speed, "duration": duration, "direction": direction}


def tile_effect(address: str) -> dict[str, Any]:
    """`StateTileEffect`: the effect's type, speed (ms), palette, and the sky's parameters as aiolifx lays them out
    (the sky type, then the least and the most cloud saturation, each four bytes on)."""
    kind, data = ask(address, GET_TILE_EFFECT)[0]
    assert kind == STATE_TILE_EFFECT, kind
    _, _, effect, speed, duration = struct.unpack_from("<BIBIQ", data)
    count = data[58]
    palette = [hsbk(data, 59 + 8 * n) for n in range(min(count, 16))]
    sky = (data[26], data[30], data[34])
    return {"type": effect, "speed": speed, "duration": duration, "palette": palette, "sky": sky}


def pixels(address: str, tiles: int = 5, width: int = 8, y: int = 0) -> list[list[tuple[int, int, int, int]]]:
    """Each tile's 64 colours from row `y`, `width` to a row (`State64`): a Tile's 64 pixels, a Candle's 30 (5 wide)
    then zeros, four rows of a Ceiling 13x26's 16."""
    answers = ask(address, GET_64, struct.pack("<BBBBBB", 0, tiles, 0, 0, y, width), replies=tiles)
    chain: dict[int, list] = {}
    for kind, data in answers:
        assert kind == STATE_64, kind
        chain[data[0]] = [hsbk(data, 5 + 8 * n) for n in range(64)]
    return [chain[index] for index in sorted(chain)]


def infrared(address: str) -> int:
    kind, data = ask(address, GET_INFRARED)[0]
    assert kind == STATE_INFRARED, kind
    return struct.unpack_from("<H", data)[0]


def hev_cycle(address: str) -> dict[str, Any]:
    kind, data = ask(address, GET_HEV_CYCLE)[0]
    assert kind == STATE_HEV_CYCLE, kind
    duration, remaining, last_power = struct.unpack_from("<IIB", data)
    return {"duration": duration, "remaining": remaining, "last_power": bool(last_power)}


def last_hev_cycle_result(address: str) -> int:
    kind, data = ask(address, GET_LAST_HEV_CYCLE_RESULT)[0]
    assert kind == STATE_LAST_HEV_CYCLE_RESULT, kind
    return data[0]
