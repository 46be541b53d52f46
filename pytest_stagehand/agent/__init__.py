"""Multi-step goals: the DOM agent and the computer-use agent."""
