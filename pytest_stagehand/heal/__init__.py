"""Which element a recording means: identity, scoring and the heal rule."""
