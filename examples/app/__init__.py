"""The example shop served to the example tests (see server.py)."""
