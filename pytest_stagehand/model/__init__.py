"""Talking to models: clients per provider, usage and prices."""
