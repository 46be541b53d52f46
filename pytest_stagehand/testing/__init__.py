"""Test seams for users and for our own tests: the scripted model server."""
