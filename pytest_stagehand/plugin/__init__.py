"""pytest wiring: hooks, options and fixtures."""
