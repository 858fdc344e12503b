"""The fixture format's JSON Schema (fixtures/lumen-fixture.schema.json) takes every home the project ships and
what lumend writes: a snapshot holds the fixture format, the Hue bridge's and the LIFX bulbs' records included, so
an editor checking a state file against the schema finds nothing wrong with it."""

from __future__ import annotations

import glob
import json
import os
import random
import shutil
import socket
import struct

import pytest

from lumen.pytest_plugin import lumend_binary, start

jsonschema = pytest.importorskip("jsonschema", reason="python3-jsonschema is not installed (make deps installs it)")

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCHEMA_PATH = os.path.join(ROOT, "fixtures", "lumen-fixture.schema.json")
EVERYTHING = os.path.join(os.path.dirname(__file__), "everything.json")

HOMES = sorted(
    glob.glob(os.path.join(ROOT, "fixtures", "*.json"))
    + glob.glob(os.path.join(ROOT, "Sources", "LumenModel", "Resources", "*.json"))
    + glob.glob(os.path.join(ROOT, "tests", "**", "homes", "*.json"), recursive=True)
    + glob.glob(os.path.join(ROOT, "clients", "python", "tests", "homes", "*.json"))
    + [EVERYTHING]
)
HOMES = [path for path in HOMES if not path.endswith(".schema.json")]


@pytest.fixture(scope="module")
def validator():
    with open(SCHEMA_PATH, encoding="utf-8") as file:
        schema = json.load(file)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def problems(validator, document: dict) -> list[str]:
    return [f"{'/'.join(map(str, error.absolute_path)) or '(top)'}: {error.message}" for error in validator.iter_errors(document)]


@pytest.mark.parametrize("path", HOMES, ids=lambda path: os.path.relpath(path, ROOT))
def test_every_home_the_project_ships_follows_the_schema(validator, path: str) -> None:
    with open(path, encoding="utf-8") as file:
        assert problems(validator, json.load(file)) == []


def test_a_wrong_home_is_refused(validator) -> None:
    with open(EVERYTHING, encoding="utf-8") as file:
        home = json.load(file)
    home["hue"]["geofenceClients"][0]["isAtHome"] = "yes"
    home["lifx"]["den.strip"]["zones"]["base"] = [1, 2, 3]
    found = problems(validator, home)
    assert len(found) == 2, found


# LIFX LAN protocol: a request to the bulb at the address it is sent to, and the types asked and answered.
HEADER = struct.Struct("<HHI8s6sBBQHH")
GET_LOCATION, STATE_LOCATION = 48, 50
GET_INFRARED, STATE_INFRARED = 120, 121
GET_TILE_EFFECT, STATE_TILE_EFFECT = 718, 720


def ask_bulb(address: tuple[str, int], kind: int, answer: int) -> bytes:
    """The payload of the bulb's `answer` to a `kind` request (asked again if a datagram is lost)."""
    source = random.randint(2, 2**31)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind(("127.0.0.1", 0))
        for attempt in range(5):
            sock.sendto(HEADER.pack(HEADER.size, 1024 | 1 << 12, source, bytes(8), bytes(6), 1, attempt, 0, kind, 0), address)
            sock.settimeout(2)
            try:
                while True:
                    data, _ = sock.recvfrom(2048)
                    header = HEADER.unpack_from(data)
                    if header[2] == source and header[8] == answer:
                        return data[HEADER.size:]
            except TimeoutError:
                continue
    pytest.fail(f"the bulb at {address} did not answer a request of type {kind}")


def test_the_snapshot_lumend_writes_follows_the_schema(validator, pytestconfig) -> None:
    daemon = start(lumend_binary(pytestconfig), fixture=EVERYTHING, hue=True, lifx=True)
    try:
        bulbs = daemon.lifx_addresses
        # The bulbs read the fixture's record as the snapshot writes it: what each was given, they report.
        location = ask_bulb(bulbs["den.strip"], GET_LOCATION, STATE_LOCATION)
        assert location[16:48].rstrip(b"\0") == b"Cottage"
        infrared = ask_bulb(bulbs["den.night-vision"], GET_INFRARED, STATE_INFRARED)
        assert struct.unpack_from("<H", infrared)[0] == 1234
        effect = ask_bulb(bulbs["den.candle"], GET_TILE_EFFECT, STATE_TILE_EFFECT)
        assert struct.unpack_from("<IB", effect, 1) == (9, 3)
    finally:
        status = daemon.stop()
    try:
        assert status == 0, daemon.stderr
        with open(os.path.join(daemon.state_directory, "state.json"), encoding="utf-8") as file:
            snapshot = json.load(file)
    finally:
        shutil.rmtree(daemon.directory, ignore_errors=True)
    # Written by lumend itself: the bridge's v2 identities for every light and room, the records the fixture gave.
    assert {"resourceIDs", "roomClasses", "geofenceClients", "scenes", "groups"} <= snapshot["hue"].keys()
    assert "room/den" in snapshot["hue"]["resourceIDs"]
    assert set(snapshot["lifx"]) == {"den.strip", "den.candle", "den.night-vision", "den.clean"}
    assert problems(validator, snapshot) == []
