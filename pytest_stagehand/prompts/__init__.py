"""Every text sent to a model, and the answer schemas."""
