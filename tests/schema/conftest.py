pytest_plugins = ["lumen.pytest_plugin"]
