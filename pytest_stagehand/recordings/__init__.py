"""Recorded steps on disk: keys, format, store, merge, shard."""
