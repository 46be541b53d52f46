"""Root conftest: pytester for the plugin's own tests (pytest only allows this at the root)."""

pytest_plugins = ["pytester"]
