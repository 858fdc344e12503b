"""The wire protocol: JSON-RPC 2.0, one JSON object per line, over a Unix stream socket."""

from __future__ import annotations

import enum
import json
import os
import stat
from dataclasses import dataclass, field
from typing import Any


class ErrorCode(enum.IntEnum):
    """The protocol's stable error codes (docs/protocol.md)."""

    PARSE_ERROR = -32700
    INVALID_REQUEST = -32600
    METHOD_NOT_FOUND = -32601
    INVALID_PARAMS = -32602
    INTERNAL_ERROR = -32603
    NO_SUCH_SCOPE = -32001
    NO_SUCH_CONNECTION = -32002
    WRONG_CONNECTION_KIND = -32003
    NO_SUCH_ENTITY = -32004
    NOT_SUPPORTED = -32005
    UNREACHABLE = -32010
    TIMED_OUT = -32011
    BUSY = -32012
    DEVICE_OFF = -32013
    LIMIT_EXCEEDED = -32020
    ALREADY_EXISTS = -32021
    NEEDS_VIRTUAL_CLOCK = -32030
    NOT_PERSISTED = -32040
    SHUTTING_DOWN = -32050
    PERMISSION_DENIED = -32060


class Timeout(TimeoutError):
    """A call that lumend did not answer within its timeout: the message names what was waited for."""


# What a timed-out wait most often means, said with it.
CLOCK_HINT = (
    "; on a virtual-clock lumend a write is answered once the clock passes the light's latency: "
    "send it with wait=False, then advance() or settle()"
)


class LumenError(Exception):
    """An error lumend answered with: its code, its message and what it names (scope, connection, light)."""

    def __init__(self, code: int, message: str, data: dict[str, Any] | None = None):
        super().__init__(f"{message} ({code})")
        self.code: ErrorCode | int = ErrorCode(code) if code in ErrorCode._value2member_map_ else code
        self.message = message
        self.data = data or {}


class ConnectionClosed(Exception):
    """The connection to lumend ended; nothing more will be answered on it."""


class CannotConnect(Exception):
    """No lumend answered: the message says which sockets were tried and why each failed."""


ROOT = 0
"""The root `home` scope every session has."""


def request_line(request_id: int, method: str, params: dict[str, Any]) -> bytes:
    """One request, as a line."""
    message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
    return (json.dumps(message, separators=(",", ":"), ensure_ascii=False) + "\n").encode()


@dataclass
class Message:
    """A line the server sent: a response (`id` set) or a notification (`method` set)."""

    id: int | None = None
    result: Any = None
    error: LumenError | None = None
    method: str | None = None
    params: dict[str, Any] = field(default_factory=dict)

    @staticmethod
    def parse(line: bytes) -> "Message | None":
        try:
            value = json.loads(line)
        except ValueError:
            return None
        if not isinstance(value, dict):
            return None
        if isinstance(value.get("method"), str):
            return Message(method=value["method"], params=value.get("params") or {})
        if "error" in value:
            error = value["error"] if isinstance(value["error"], dict) else {}
            return Message(
                id=value.get("id"),
                error=LumenError(
                    error.get("code", ErrorCode.INTERNAL_ERROR), error.get("message", "unknown error"), error.get("data")
                ),
            )
        return Message(id=value.get("id"), result=value.get("result"))


def _trusted(path: str, system: bool) -> str | None:
    """Why the directory of a default socket cannot be trusted, or None (as lumend and lumenctl check it)."""
    directory = os.path.dirname(path) or "."
    uid = os.geteuid()
    current = ""
    parts = ["/"] + [part for part in directory.split("/") if part]
    for index, part in enumerate(parts):
        current = "/" if index == 0 else current.rstrip("/") + "/" + part
        try:
            info = os.stat(current)
        except OSError:
            break
        owner = info.st_uid
        system_account = owner < 1000 or 61184 <= owner <= 65519
        if owner not in (uid, 0) and not (system and system_account):
            return f"{current} belongs to uid {owner}, not to uid {uid} or root"
        mode = stat.S_IMODE(info.st_mode)
        group_writable = mode & 0o020 and info.st_gid != os.getegid()
        if (mode & 0o002 or group_writable) and not mode & stat.S_ISVTX:
            return f"{current} is writable by other users (mode {mode:o})"
    return None


def socket_candidates(environment: dict[str, str] | None = None) -> list[tuple[str, str, str | None]]:
    """The sockets to try, as lumenctl tries them: `$LUMEN_SOCKET`; else the user's own lumend's, then the
    system's. Each as (path, where it came from, why it is not trusted or None)."""
    env = dict(os.environ if environment is None else environment)
    if env.get("LUMEN_SOCKET"):
        return [(env["LUMEN_SOCKET"], "$LUMEN_SOCKET", None)]
    runtime = env.get("XDG_RUNTIME_DIR", "")
    user = f"{runtime}/lumend/lumend.sock" if runtime.startswith("/") else f"/tmp/lumend-{os.getuid()}/lumend.sock"
    system = "/run/lumend/lumend.sock"
    candidates = [] if user == system else [(user, "your own lumend's", _trusted(user, False))]
    return candidates + [(system, "the system's lumend's", _trusted(system, True))]


def closing_scopes(children: dict[int, list[int]], scope: int) -> set[int]:
    """A scope and every scope opened below it, forgetting them in `children` (both clients keep this tree)."""
    closing = [scope]
    index = 0
    while index < len(closing):
        closing += children.pop(closing[index], [])
        index += 1
    return set(closing)


def not_connected(failures: list[str]) -> CannotConnect:
    """The error when no candidate socket answered, naming each and why."""
    return CannotConnect("cannot connect to lumend: tried " + ", then ".join(failures))


def candidates_for(path: str | None) -> list[tuple[str, str, str | None]]:
    """The sockets to try: the one given, else lumend's default ones."""
    return [(path, "given", None)] if path else socket_candidates()


def state_arguments(changes: dict[str, Any], transition_ms: float | None) -> dict[str, Any]:
    """The arguments of a light's ``setState``: the changes, and the transition when one is given. ``kelvin``
    (2000–6500, as lumenctl takes it) becomes ``colorTemperature`` in mireds, and a ``color`` given as
    ``"#rrggbb"`` or ``(r, g, b)`` becomes xy (see `lumen.colors`); `ValueError` when one is not that."""
    from .colors import mireds_from_kelvin, xy_from_hex, xy_from_rgb

    arguments = dict(changes)
    if "kelvin" in arguments:
        kelvin = arguments.pop("kelvin")
        if isinstance(kelvin, bool) or not isinstance(kelvin, (int, float)) or not 2000 <= kelvin <= 6500:
            raise ValueError(f"kelvin takes 2000–6500, like kelvin=2700, not {kelvin!r}")
        arguments["colorTemperature"] = mireds_from_kelvin(kelvin)
    color = arguments.get("color")
    if isinstance(color, (str, tuple, list)):
        if not isinstance(color, str) and len(color) != 3:
            raise ValueError(f"an rgb color has three channels, like (255, 136, 0), not {color!r}")
        x, y = xy_from_hex(color) if isinstance(color, str) else xy_from_rgb(*color)
        arguments["color"] = {"x": x, "y": y}
    if transition_ms is not None:
        arguments["transitionMs"] = transition_ms
    return arguments


def command_filter(light: str | None, room: str | None, since_ms: float | None) -> dict[str, Any]:
    """The arguments of the simulation's ``commands``: only what was asked for."""
    given = {"light": light, "room": room, "sinceMs": since_ms}
    return {key: value for key, value in given.items() if value is not None}
