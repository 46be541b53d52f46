"""What a run leaves behind: terminal summary, reports, traces, export."""
