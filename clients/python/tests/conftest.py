import os

import pytest

pytest_plugins = ["lumen.pytest_plugin", "pytester"]

LAB = os.path.join(os.path.dirname(__file__), "homes", "lab.json")


@pytest.fixture
def lab_home() -> str:
    return LAB
