"""Token usage, cost and budgets of model calls.

Every model call yields a `CallUsage`. One `UsageLedger` per session sums them per test
and per session, prices them from a `PriceTable` users can extend, and refuses further
calls once a cost budget is used up, so a runaway suite cannot run up a bill.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from pytest_stagehand.calls import CallUsage
from pytest_stagehand.errors import BudgetExceeded, ConfigError

__all__ = [
    "PRICES",
    "PRICES_AS_OF",
    "Price",
    "PriceTable",
    "SharedSpend",
    "UsageLedger",
    "UsageTotals",
]


@dataclass
class UsageTotals:
    """Sums over calls, with a per-model breakdown for the terminal summary."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    cost_usd: float = 0.0  # over priced calls only
    latency_s: float = 0.0
    unpriced_calls: int = 0  # calls whose cost is unknown, so `cost_usd` is a lower bound
    memo_hits: int = 0
    retries: int = 0
    images: int = 0
    image_pixels: int = 0
    by_model: dict[str, UsageTotals] = field(default_factory=dict)

    def add(self, usage: CallUsage) -> None:
        self._add(usage)
        self.by_model.setdefault(usage.model, UsageTotals())._add(usage)

    def _add(self, usage: CallUsage) -> None:
        self.calls += 1
        self.input_tokens += usage.input_tokens
        self.output_tokens += usage.output_tokens
        self.cached_tokens += usage.cached_tokens
        self.latency_s += usage.latency_s
        self.retries += usage.retries
        self.memo_hits += usage.memo_hit
        self.images += usage.images
        self.image_pixels += usage.image_pixels
        if usage.cost_usd is None:
            self.unpriced_calls += 1
        else:
            self.cost_usd += usage.cost_usd

    def merge(self, other: UsageTotals) -> None:
        """Add another total in (e.g. one from an xdist worker)."""
        for f in fields(self):
            if f.name != "by_model":
                setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))
        for model, totals in other.by_model.items():
            self.by_model.setdefault(model, UsageTotals()).merge(totals)

    @property
    def by_provider(self) -> dict[str, UsageTotals]:
        grouped: dict[str, UsageTotals] = {}
        for model, totals in self.by_model.items():
            grouped.setdefault(model.partition("/")[0], UsageTotals()).merge(totals)
        return grouped

    def to_dict(self) -> dict[str, Any]:
        """Plain data, e.g. to send from an xdist worker to the controller."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> UsageTotals:
        by_model = {m: cls.from_dict(t) for m, t in data.get("by_model", {}).items()}
        return cls(**{**data, "by_model": by_model})


# --- prices ------------------------------------------------------------------------------

PRICES_AS_OF = "2025-11"
"""When the default prices were copied from the providers' price pages. Approximate."""


@dataclass(frozen=True)
class Price:
    """USD per one million tokens. `cached` None means cached input costs full price."""

    input: float
    output: float
    cached: float | None = None

    def cost(self, input_tokens: int, output_tokens: int, cached_tokens: int = 0) -> float:
        cached_rate = self.input if self.cached is None else self.cached
        fresh = max(0, input_tokens - cached_tokens)
        return (
            fresh * self.input + cached_tokens * cached_rate + output_tokens * self.output
        ) / 1e6


# Approximate list prices as of PRICES_AS_OF; register your own to correct or extend them.
_DEFAULT_PRICES: dict[str, Price] = {
    "openai/gpt-4o": Price(2.50, 10.00, 1.25),
    "openai/gpt-4o-mini": Price(0.15, 0.60, 0.075),
    "openai/gpt-4.1": Price(2.00, 8.00, 0.50),
    "openai/gpt-4.1-mini": Price(0.40, 1.60, 0.10),
    "openai/gpt-4.1-nano": Price(0.10, 0.40, 0.025),
    "openai/gpt-5": Price(1.25, 10.00, 0.125),
    "openai/gpt-5-mini": Price(0.25, 2.00, 0.025),
    "openai/gpt-5-nano": Price(0.05, 0.40, 0.005),
    "openai/o3": Price(2.00, 8.00, 0.50),
    "openai/o4-mini": Price(1.10, 4.40, 0.275),
    "anthropic/claude-opus-4-5": Price(5.00, 25.00, 0.50),
    "anthropic/claude-opus-4-1": Price(15.00, 75.00, 1.50),
    "anthropic/claude-opus-4": Price(15.00, 75.00, 1.50),
    "anthropic/claude-sonnet-4-5": Price(3.00, 15.00, 0.30),
    "anthropic/claude-sonnet-4": Price(3.00, 15.00, 0.30),
    "anthropic/claude-3-7-sonnet": Price(3.00, 15.00, 0.30),
    "anthropic/claude-haiku-4-5": Price(1.00, 5.00, 0.10),
    "anthropic/claude-3-5-haiku": Price(0.80, 4.00, 0.08),
}

# "-2024-07-18" (OpenAI snapshots), "-20250929" (Anthropic snapshots), "-latest" (aliases)
_SNAPSHOT_SUFFIX = re.compile(r"-(\d{4}-\d{2}-\d{2}|\d{8}|latest)$")


class PriceTable:
    """Model prices, looked up by "provider/model".

    A snapshot name ("gpt-4o-mini-2024-07-18", "claude-sonnet-4-5-20250929") finds its
    family's price; otherwise the longest registered name that the model name extends
    ("gpt-4o-mini-search" → "gpt-4o-mini"). Unknown models cost None, not 0.
    """

    def __init__(self, prices: Mapping[str, Price] | None = None, *, defaults: bool = True):
        self._prices: dict[str, Price] = dict(_DEFAULT_PRICES) if defaults else {}
        for model, price in (prices or {}).items():
            self._prices[model.lower()] = price

    def register(
        self, model: str, input: float, output: float, cached: float | None = None
    ) -> None:
        """Add or correct a price (USD per 1M tokens), e.g. for a gateway or a local model."""
        if "/" not in model:
            raise ConfigError(f"price for {model!r}: name the provider, e.g. 'openai/{model}'")
        self._prices[model.lower()] = Price(input, output, cached)

    def lookup(self, model: str) -> Price | None:
        name = model.lower()
        for candidate in (name, _SNAPSHOT_SUFFIX.sub("", name)):
            if candidate in self._prices:
                return self._prices[candidate]
        prefixes = [k for k in self._prices if name.startswith(k + "-")]
        return self._prices[max(prefixes, key=len)] if prefixes else None

    def cost(
        self, model: str, input_tokens: int, output_tokens: int, cached_tokens: int = 0
    ) -> float | None:
        price = self.lookup(model)
        return None if price is None else price.cost(input_tokens, output_tokens, cached_tokens)


PRICES = PriceTable()
"""The default table. Extend it from a conftest: `PRICES.register("openai/my-model", 1, 2)`."""


# --- the ledger --------------------------------------------------------------------------

_NANO = 1_000_000_000  # spend is shared in whole nano-dollars: diskcache adds integers atomically
_SPEND_KEPT_S = 7 * 24 * 3600  # a run's total outlives the run a while, then goes


class SharedSpend:
    """What the whole run has spent, shared by its processes (the xdist controller and
    workers) through a diskcache under the cache directory, keyed by the run's id.

    `add` is atomic across processes, so a worker's next budget check sees every other
    worker's calls. A call already in flight on another worker when the budget runs out
    is still paid for: the run may end up to one call per worker over the budget.
    """

    def __init__(self, directory: Path, run_id: str) -> None:
        import diskcache

        self._cache = diskcache.Cache(str(directory))
        self._key = f"spend:{run_id}"

    def add(self, cost_usd: float) -> None:
        self._cache.incr(self._key, round(cost_usd * _NANO), default=0)
        self._cache.touch(self._key, expire=_SPEND_KEPT_S)

    @property
    def total(self) -> float:
        return int(self._cache.get(self._key, 0)) / _NANO

    def close(self) -> None:
        self._cache.close()


def _check_max_cost(max_cost: float | None, where: str) -> float | None:
    if max_cost is not None and max_cost < 0:
        raise ConfigError(f"{where} must be a cost in USD, 0 or more; got {max_cost!r}")
    return max_cost


class UsageLedger:
    """Usage per test and per session, and the cost budgets that stop further calls.

    One per session: the plugin calls `begin_test`/`end_test` around each test and the
    model clients call `check_budget` before and `record` after every call. A call that
    crosses a budget is kept (it is paid for); the next one is refused. With `shared`,
    `max_cost` caps the spend of the whole run (every xdist worker), not this process's.
    """

    def __init__(
        self,
        max_cost: float | None = None,
        prices: PriceTable | None = None,
        shared: SharedSpend | None = None,
    ) -> None:
        self.max_cost = _check_max_cost(max_cost, "--ai-max-cost")
        self.prices = prices if prices is not None else PRICES
        self.shared = shared  # the run's spend across xdist workers, checked against max_cost
        self.session = UsageTotals()
        self.tests: dict[str, UsageTotals] = {}  # nodeid → totals, for tests that made calls
        self._nodeid: str | None = None
        self._test = UsageTotals()
        self._test_max_cost: float | None = None
        self._lock = threading.Lock()

    def begin_test(self, nodeid: str, max_cost: float | None = None) -> None:
        with self._lock:
            self._nodeid = nodeid
            self._test = UsageTotals()
            self._test_max_cost = _check_max_cost(max_cost, f"max_cost for {nodeid}")

    def end_test(self) -> UsageTotals:
        with self._lock:
            totals = self._test
            if self._nodeid is not None and totals.calls:
                self.tests[self._nodeid] = totals
            self._nodeid, self._test, self._test_max_cost = None, UsageTotals(), None
            return totals

    @property
    def current_test(self) -> UsageTotals:
        """Totals of the running test (empty outside a test)."""
        return self._test

    def check_budget(self) -> None:
        """Raise BudgetExceeded if the session or the running test has used its budget up."""
        with self._lock:
            limit = self.max_cost
            spent = self.shared.total if self.shared is not None else self.session.cost_usd
            if limit is not None and spent >= limit:
                raise BudgetExceeded(
                    f"AI cost budget used up: this run spent ${spent:.4f} of "
                    f"--ai-max-cost ${limit:.4f} (ini ai_max_cost; all xdist workers together); "
                    "no further model calls are made. Raise the budget, or run from recorded "
                    "steps without a model."
                )
            spent, limit = self._test.cost_usd, self._test_max_cost
            if limit is not None and spent >= limit:
                raise BudgetExceeded(
                    f"AI cost budget of {self._nodeid} used up: it spent ${spent:.4f} of the "
                    f"max_cost ${limit:.4f} set by its marker; no further model calls are made. "
                    "Raise the marker's max_cost, or split the test."
                )

    def record(self, usage: CallUsage) -> None:
        with self._lock:
            self.session.add(usage)
            self._test.add(usage)
        if self.shared is not None and usage.cost_usd:
            self.shared.add(usage.cost_usd)
