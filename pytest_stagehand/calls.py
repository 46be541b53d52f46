"""What one model call used: a leaf value that errors, events and the model layer carry."""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class CallUsage:
    """What one model call used.

    `input_tokens` counts every prompt token, cached ones included (providers differ on
    this; the clients normalise), and `cached_tokens` is the part served from the
    provider's prompt cache. `cost_usd` is None when the model has no known price. A
    memo hit cost nothing and carries no tokens.
    """

    model: str  # "provider/model"
    purpose: str
    input_tokens: int
    output_tokens: int
    cached_tokens: int
    latency_s: float
    cost_usd: float | None
    memo_hit: bool = False
    retries: int = 0
    images: int = 0  # screenshots sent (vision, visual claims): their tokens are in input
    image_pixels: int = 0  # width x height, summed over them

    @property
    def provider(self) -> str:
        return self.model.partition("/")[0]

    def __add__(self, other: CallUsage) -> CallUsage:
        """Two calls made for one answer (a repair): tokens, time and cost add up."""
        cost = (
            None
            if self.cost_usd is None or other.cost_usd is None
            else self.cost_usd + other.cost_usd
        )
        return replace(
            self,
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cached_tokens=self.cached_tokens + other.cached_tokens,
            latency_s=self.latency_s + other.latency_s,
            cost_usd=cost,
            memo_hit=self.memo_hit and other.memo_hit,
            retries=self.retries + other.retries,
            images=self.images + other.images,
            image_pixels=self.image_pixels + other.image_pixels,
        )
