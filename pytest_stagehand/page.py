"""The page a test drives in plain English; everything else stays Playwright's page."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TypeVar, overload
from urllib.parse import urljoin

from playwright.sync_api import Page, Response
from pydantic import BaseModel

from .act import ModelResolver, Resolver, act
from .actions import Action, ActResult, settle, watch_network
from .evaluator import Evaluator, Verdict
from .events import StepLog
from .extract import extract
from .llm import ModelClient
from .observe import observe
from .replay import RecordingResolver, StepRecorder

T = TypeVar("T", bound=BaseModel)


class AIPage:
    """`act`, `observe` and `extract` on top of a Playwright page.

    Anything else is the Playwright page's own (`ai_page.locator(...)`, `ai_page.url`),
    and `ai_page.page` is the page itself. `client` None means no model: steps that need
    one raise ModelRequired. `resolver` is how act instructions become actions: the model
    by default, or a cache wrapped around it.
    """

    def __init__(
        self,
        page: Page,
        client: ModelClient | None = None,
        *,
        steplog: StepLog | None = None,
        base_url: str | None = None,
        resolver: Resolver | None = None,
        evaluator: Evaluator | None = None,
        recorder: StepRecorder | None = None,
    ) -> None:
        self.page = page
        self.client = client
        self.steplog = steplog if steplog is not None else StepLog()
        self.base_url = base_url
        self.resolver = resolver or ModelResolver(page, client, self.steplog)
        self.evaluator = evaluator or Evaluator(page, client, self.steplog)  # judges claims
        self.recorder = recorder  # recordings of extract and observe, when there are any
        watch_network(page)  # from now on, so settling sees the requests goto starts

    @contextmanager
    def unrecorded(self) -> Iterator[None]:
        """Steps inside neither replay nor record on their own: an agent run records
        them as part of its own recording."""
        saved = self.resolver, self.recorder
        if isinstance(self.resolver, RecordingResolver):
            self.resolver = self.resolver.inner
        self.recorder = None
        try:
            yield
        finally:
            self.resolver, self.recorder = saved

    def __getattr__(self, name: str) -> Any:
        return getattr(self.page, name)

    def __repr__(self) -> str:
        return f"<AIPage url={self.page.url!r}>"

    def goto(self, url: str, **kwargs: Any) -> Response | None:
        """Playwright's goto, relative to the base URL (--base-url), then wait to settle."""
        target = urljoin(self.base_url, url) if self.base_url else url
        with self.steplog.step("goto", target, self.page.url):
            response = self.page.goto(target, **kwargs)
            settle(self.page)
        return response

    def act(
        self,
        step: str | Action,
        variables: Mapping[str, str] | None = None,
        timeout: float | None = None,
    ) -> ActResult:
        """Do what `step` says: an instruction, or an Action (from observe or a result),
        which runs with no model. `%name%` in the instruction stands for
        `variables[name]`; the model sees only the name. `timeout` in ms per action."""
        return act(self.page, self.resolver, self.steplog, step, variables, timeout)

    def observe(self, instruction: str | None = None, scope: str | None = None) -> list[Action]:
        """Elements matching `instruction` (or the main interactive ones) as replayable Actions."""
        return observe(
            self.page, self.client, self.steplog, instruction, scope, recorder=self.recorder
        )

    @overload
    def extract(
        self, instruction: str | None, schema: type[T], scope: str | None = None
    ) -> T: ...

    @overload
    def extract(
        self, instruction: str | None = None, schema: None = None, scope: str | None = None
    ) -> str: ...

    def extract(
        self,
        instruction: str | None = None,
        schema: type[BaseModel] | None = None,
        scope: str | None = None,
    ) -> BaseModel | str:
        """A validated `schema` instance; text without a schema; the page text without either."""
        return extract(
            self.page, self.client, self.steplog, instruction, schema, scope,
            recorder=self.recorder,
        )

    # --- judgments (issue 6): the evaluator decides claims about the page ---

    def assert_that(self, claim: str, screenshot: bool = False) -> Verdict:
        """Fail the test (AIAssertionError with the verdict and reasoning) unless the judge
        finds `claim` true of the page; `screenshot=True` judges from a screenshot."""
        __tracebackhide__ = True  # a failure points at the test's line
        return self.evaluator.assert_that(claim, screenshot)

    def check(self, claim: str, screenshot: bool = False) -> Verdict:
        """The judge's verdict on `claim`, without failing the test."""
        return self.evaluator.check(claim, screenshot)
