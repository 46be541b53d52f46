"""The action value and performing it on a page."""
