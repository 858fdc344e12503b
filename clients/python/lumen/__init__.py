"""Lumen's Python client: talk to lumend, the smart-light simulator, from a script or a test suite.

`Client` blocks; `AsyncClient` is for asyncio. Both speak lumend's wire protocol (JSON-RPC 2.0 over its Unix
socket) in scopes: the home (`ROOT`), and the rooms, lights and simulation opened from it. The pytest plugin
(`lumen.pytest_plugin`) gives each test a fresh lumend.
"""

from ._wire import ROOT, CannotConnect, ConnectionClosed, ErrorCode, LumenError, Timeout, socket_candidates
from .aio import AsyncClient, AsyncSubscription
from .client import Client, Pending, Subscription

__all__ = [
    "ROOT",
    "AsyncClient",
    "AsyncSubscription",
    "CannotConnect",
    "Client",
    "ConnectionClosed",
    "ErrorCode",
    "LumenError",
    "Pending",
    "Subscription",
    "Timeout",
    "socket_candidates",
]
