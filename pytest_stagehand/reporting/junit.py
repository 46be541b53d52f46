"""JUnit XML properties: a test's model usage and cache outcomes, for CI dashboards."""

from __future__ import annotations

from collections import Counter

from pytest_stagehand.reporting.records import Record, usage_of


def junit_properties(records: list[Record]) -> list[tuple[str, object]]:
    """Usage figures per test, for --junitxml (as pytest's record_property would)."""
    usage = usage_of(records)
    cache = Counter(record["cache"] for record in records)
    return [
        ("stagehand_steps", len(records)),
        ("stagehand_model_calls", usage.calls),
        ("stagehand_input_tokens", usage.input_tokens),
        ("stagehand_output_tokens", usage.output_tokens),
        ("stagehand_cached_tokens", usage.cached_tokens),
        ("stagehand_cost_usd", round(usage.cost_usd, 6)),
        ("stagehand_cache_hits", cache["hit"]),
        ("stagehand_cache_misses", cache["miss"]),
        ("stagehand_cache_healed", cache["healed"]),
    ]
