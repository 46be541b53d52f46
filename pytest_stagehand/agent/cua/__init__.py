"""Computer use: the provider's own computer-use tool drives the page from screenshots.

`run.py` is the screen loop (a `Run` like the DOM agent's), `sessions.py` each provider's
conversation, `actions.py` their actions in one shape, `screen.py` the screenshot and what
lies under a point.
"""
