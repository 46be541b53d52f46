"""What the model and the recordings see of a page: the outline and its elements."""
