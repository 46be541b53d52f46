"""The page a test drives in plain English; everything else stays Playwright's page."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar, get_type_hints, overload
from urllib.parse import urljoin

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, Response
from pydantic import BaseModel, Field, TypeAdapter, create_model
from typing_extensions import is_typeddict

from pytest_stagehand.actions.action import Action, ActResult
from pytest_stagehand.actions.settle import settle
from pytest_stagehand.browser.dialogs import Dialogs
from pytest_stagehand.browser.files import SavedDownload, upload_variables
from pytest_stagehand.browser.tabs import Tabs
from pytest_stagehand.browser.watch import PageWatch, PageWatches, ReadsPage
from pytest_stagehand.errors import InvalidArgument, PageClosed, WaitTimeout
from pytest_stagehand.events import StepLog
from pytest_stagehand.heal.resolve import watch_documents
from pytest_stagehand.model.client import ModelClient
from pytest_stagehand.pipelines.act import ModelResolver, Resolver, act
from pytest_stagehand.pipelines.extract import extract
from pytest_stagehand.pipelines.judge import Evaluator, Verdict
from pytest_stagehand.pipelines.observe import observe
from pytest_stagehand.pipelines.replay import RecordingResolver, StepRecorder
from pytest_stagehand.pipelines.vision import VisionMode, vision_mode
from pytest_stagehand.pipelines.waiting import DEFAULT_TIMEOUT_MS, Waiting, WaitingResolver
from pytest_stagehand.recordings.store import Recordings
from pytest_stagehand.settings import DEFAULT_BUDGET

T = TypeVar("T", bound=BaseModel)
D = TypeVar("D")


class AIPage:
    """`act`, `observe` and `extract` on top of a Playwright page.

    Anything else is the Playwright page's own (`ai_page.locator(...)`, `ai_page.url`),
    and `ai_page.page` is the page itself. `client` None means no model: steps that need
    one raise ModelRequired. `resolver` is how act instructions become actions: the model
    by default, or a cache wrapped around it. `prompt_budget`: the most tokens an act,
    observe or assertion prompt takes; a larger page is sent in parts (chunks.py).
    `wait_timeout` (ms) is how long a step waits for what it looks for (waiting.py); a
    step's own `timeout=` overrides it. `watches`: what is kept about the pages the steps
    act on (watch.py), when the caller owns it (the fixture); else the AIPage owns its own.
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
        vision: VisionMode = "fallback",
        wait_timeout: float = DEFAULT_TIMEOUT_MS,
        prompt_budget: int = DEFAULT_BUDGET,
        watches: PageWatches | None = None,
    ) -> None:
        self.page = page
        self.client = client
        self.steplog = steplog if steplog is not None else StepLog()
        # Each page the steps may act on is watched from now on: the handlers the test
        # registers (which win over the plugin's), its requests (so settling sees the
        # requests goto starts), its changes, dialogs and downloads; the page acted on
        # follows the tabs steps open.
        self.watches = watches or PageWatches(page, self.steplog, watch_documents)
        watch = self.watches.of(page)  # the parts it makes read the page through it
        self.base_url = base_url
        self.prompt_budget = prompt_budget  # tokens per prompt (--ai-prompt-budget)
        self.resolver = resolver or ModelResolver(watch, client, self.steplog, prompt_budget)
        self.evaluator = evaluator or Evaluator(  # judges claims
            watch, client, self.steplog, prompt_budget=prompt_budget
        )
        self.recorder = recorder  # recordings of extract and observe, when there are any
        self.vision = vision  # when steps show the model a marked screenshot (--ai-vision)
        self.wait_timeout = wait_timeout

    # The parts read the page acted on through this AIPage's watch of it, also a part the
    # test made apart and gave it, now or later (`ai.resolver = RecordingResolver(...)`).

    @property
    def resolver(self) -> Resolver:
        return self._resolver

    @resolver.setter
    def resolver(self, resolver: Resolver) -> None:
        self._resolver = resolver
        self._give(resolver, getattr(resolver, "inner", None))

    @property
    def evaluator(self) -> Evaluator:
        return self._evaluator

    @evaluator.setter
    def evaluator(self, evaluator: Evaluator) -> None:
        self._evaluator = evaluator
        self._give(evaluator)

    @property
    def recorder(self) -> StepRecorder | None:
        return self._recorder

    @recorder.setter
    def recorder(self, recorder: StepRecorder | None) -> None:
        self._recorder = recorder
        self._give(recorder)

    def _give(self, *parts: object) -> None:
        """Have `parts` act on the page acted on, read through its watch."""
        for part in parts:
            if isinstance(part, ReadsPage):
                part.watch = self.watch
            elif part is not None and hasattr(part, "page"):
                part.page = self.page  # type: ignore[attr-defined]

    @property
    def watch(self) -> PageWatch:
        """What is kept about the page acted on (its dialogs, downloads, requests)."""
        return self.watches.of(self.page)

    @property
    def tabs(self) -> Tabs:
        """The tabs the steps follow."""
        return self.watches.tabs

    @property
    def dialogs(self) -> Dialogs:
        """The native dialogs of the page acted on: `.pending`, `.seen`."""
        return self.watch.dialogs

    @property
    def pages(self) -> list[Page]:
        """The open pages (tabs and popups) of the browser context, in the order they opened."""
        return self.tabs.pages

    def switch_to(self, tab: int | str | Page) -> Page:
        """Act on another open tab from now on: an index into `pages`, its exact title or
        URL, or the Page. `act("switch to the tab titled ...")` does the same in English."""
        with self.open_page(f"switch_to({tab!r})"):
            self._use(self.tabs.switch(tab))
        return self.page

    def back_on_an_open_page(self) -> bool:
        """Whether the page acted on is open, after going back to the page a closed one was
        opened from by a step (`Tabs.back_from_closed`)."""
        if not self.page.is_closed():
            return True
        back = self.tabs.back_from_closed()
        if back is None:
            return False
        self._use(back)
        return True

    def _use(self, page: Page) -> None:
        """Act on `page` from now on: every part that reads the page reads this one."""
        if page is self.page:
            return
        self.page = page
        self._give(self.resolver, getattr(self.resolver, "inner", None), self.evaluator,
                   self.recorder)

    @contextmanager
    def unrecorded(self) -> Iterator[None]:
        """Steps inside neither replay, record nor wait on their own: an agent run records
        them as part of its own recording, and waits with its own tool when it decides to."""
        saved = self.resolver, self.recorder, self.wait_timeout
        if isinstance(self.resolver, RecordingResolver):
            self.resolver = self.resolver.inner
        self.recorder = None
        self.wait_timeout = 0
        try:
            yield
        finally:
            self.resolver, self.recorder, self.wait_timeout = saved

    def waiting(self, timeout: float | None = None) -> Waiting:
        """How long a step waits: its own `timeout` (ms), else the page's wait_timeout."""
        if timeout is not None and timeout < 0:
            raise InvalidArgument(f"timeout={timeout!r}: give milliseconds, 0 or more.")
        timeout_ms = self.wait_timeout if timeout is None else timeout
        return Waiting(self.watch, timeout_ms, self._recordings())

    def _recordings(self) -> tuple[Recordings, ...]:
        """The recordings the steps use (one, unless a test built the parts itself)."""
        found = [
            self.resolver.recordings if isinstance(self.resolver, RecordingResolver) else None,
            self.recorder.recordings if self.recorder is not None else None,
            self.evaluator.recordings,
        ]
        unique = {id(recordings.taken): recordings for recordings in found if recordings}
        return tuple(unique.values())

    def __getattr__(self, name: str) -> Any:
        return getattr(self.page, name)

    def __repr__(self) -> str:
        return f"<AIPage url={self.page.url!r}>"

    @contextmanager
    def open_page(self, step: str) -> Iterator[None]:
        """Run `step` only on an open page; a page closed before or during it is one
        PageClosed error, not Playwright's TargetClosedError."""
        closed = PageClosed(
            f"{step} cannot run: the page is closed (by the test, a popup handler, or a "
            "crash). Act on a page that is open: keep this one open until the step, or "
            "wrap the new one (AIPage(context.pages[-1], ...))."
        )
        if not self.back_on_an_open_page():
            raise closed
        self.dialogs.log_expired()
        if not step.startswith("act("):  # only act answers a held dialog: others would block
            self.dialogs.dismiss_pending(f"{step} does not answer it")
        try:
            yield
        except PlaywrightError:
            if self.page.is_closed():
                raise closed from None
            raise

    def goto(self, url: str, **kwargs: Any) -> Response | None:
        """Playwright's goto, relative to the base URL (--base-url), then wait to settle:
        at once when the page's loading has done all it started (`settle`'s `early`)."""
        target = urljoin(self.base_url, url) if self.base_url else url
        with self.open_page(f"goto({url!r})"), self.steplog.step("goto", target, self.page.url):
            response = self.page.goto(target, **kwargs)
            settle(self.watch, early=True)
        return response

    def act(
        self,
        step: str | Action,
        variables: Mapping[str, str] | None = None,
        timeout: float | None = None,
        *,
        secret_fields: Mapping[str, Sequence[str]] | None = None,
        settled: bool = False,
        vision: bool | str | None = None,
    ) -> ActResult:
        """Do what `step` says: an instruction, or an Action (from observe or a result),
        which runs with no model. `%name%` in the instruction stands for
        `variables[name]`; the model sees only the name. `timeout` (ms) is how long the
        step waits for its element to appear, and the action's own Playwright timeout.
        `secret_fields` limits, per variable, the fields its value may be typed into (the
        agent passes it; by default the instruction names the field). `vision`: show the
        model a marked screenshot (True), never (False), or a mode; None: --ai-vision.

        Like a Playwright action, act returns without waiting for the page's reaction
        (only for a navigation or requests it started): the next step settles the page
        before reading it, and `expect` waits. `settled=True` also waits until the page
        has settled (no open requests, a quiet DOM), for plain reads that do not wait."""
        mode = vision_mode(vision, self.vision)
        resolver = WaitingResolver(self.resolver, self.waiting(timeout))
        with self.open_page(f"act({step!r})"):
            result = act(
                self.watch, resolver, self.steplog, step, variables, timeout, secret_fields,
                mode, settled=settled,
            )
            downloads = self._downloaded(self.watch.downloads.take())
        opens = [action.opens for action in result.actions]
        acting = self.tabs.current  # the step's own switch_tab has chosen it already
        page = self.tabs.after_step(None if None in opens else sum(opens))
        if page is not acting:  # a page the step opened: a step of its own in the log
            with self.steplog.step("tab", page.url, page.url):
                pass
        self._use(page)
        return dataclasses.replace(result, downloads=downloads) if downloads else result

    def _downloaded(self, downloads: list[SavedDownload]) -> list[SavedDownload]:
        """Log each finished download as a step, its file kept with the evidence."""
        for download in downloads:
            with self.steplog.step("download", download.suggested_filename, self.page.url) as e:
                e.files = [str(download.path())]
                e.result = f"saved as {download.path()}"
        return downloads

    def download(
        self,
        instruction: str,
        variables: Mapping[str, str] | None = None,
        timeout: float | None = None,
    ) -> ActResult:
        """Act, and wait (up to `timeout` ms, else the page's default) for the download the
        step starts, as Playwright's `expect_download` does: `.downloads[0]` is the
        finished download, copied to a local file (`.path()`, `.save_as()`,
        `.suggested_filename`), with a local or a remote browser alike. Plain act returns
        only the downloads that began while the step ran."""
        with self.page.expect_download(timeout=timeout):  # its end waits until one began
            result = self.act(instruction, variables, timeout)
        if not result.downloads:  # it began after the step's action returned
            late = self.watch.downloads.take()  # this step's, not the next's
            result = dataclasses.replace(result, downloads=self._downloaded(late))
        return result

    def upload(
        self,
        instruction: str,
        files: Mapping[str, str | Path],
        timeout: float | None = None,
    ) -> ActResult:
        """Choose files in a file field (or with the button that opens the file chooser):
        `files` maps each %name% of the instruction to a path, e.g.
        `upload("upload %resume% to the resume field", files={"resume": "cv.pdf"})`.
        Like variables, the paths never reach the model or the recordings."""
        return self.act(instruction, upload_variables(instruction, files), timeout)

    def observe(
        self, instruction: str | None = None, scope: str | None = None, *,
        timeout: float | None = None,
        vision: bool | str | None = None,
    ) -> list[Action]:
        """Elements matching `instruction` (or the main interactive ones) as replayable
        Actions; waits up to `timeout` ms for any to appear. `vision` as for act."""
        mode = vision_mode(vision, self.vision)
        with self.open_page(f"observe({instruction!r})"):
            return observe(
                self.watch, self.client, self.steplog, instruction, scope,
                recorder=self.recorder, prompt_budget=self.prompt_budget,
                waiting=self.waiting(timeout), vision_mode=mode,
            )

    @overload
    def extract(
        self, instruction: str | None, schema: type[T], scope: str | None = None, *,
        timeout: float | None = None,
        vision: bool | str | None = None,
    ) -> T: ...

    @overload
    def extract(
        self, instruction: str | None, schema: type[D], scope: str | None = None, *,
        timeout: float | None = None,
        vision: bool | str | None = None,
    ) -> D: ...

    @overload
    def extract(
        self, instruction: str | None = None, schema: None = None, scope: str | None = None, *,
        timeout: float | None = None,
        vision: bool | str | None = None,
    ) -> str: ...

    def extract(
        self,
        instruction: str | None = None,
        schema: type[Any] | BaseModel | None = None,
        scope: str | None = None,
        *,
        timeout: float | None = None,
        vision: bool | str | None = None,
    ) -> Any:
        """A validated `schema` instance; text without a schema; the page text without either.

        `schema` is a pydantic model class; a dataclass or TypedDict is converted (and the
        answer given back as one), and a model instance stands for its class. An empty
        answer is asked again on each page change for up to `timeout` ms. `vision`: read a
        screenshot of the page (or of `scope`) too (True), never (False), or a mode; None:
        --ai-vision, whose "fallback" reads one where the view is mostly canvas/SVG."""
        model, give_back = (None, None) if schema is None else _as_model(schema)
        mode = vision_mode(vision, self.vision)
        with self.open_page(f"extract({instruction!r})"):
            value = extract(
                self.watch, self.client, self.steplog, instruction, model, scope,
                recorder=self.recorder, waiting=self.waiting(timeout), vision_mode=mode,
            )
        return give_back(value) if give_back is not None else value

    # --- judgments (issue 6): the evaluator decides claims about the page ---

    def assert_that(
        self, claim: str, screenshot: bool = False, *, timeout: float | None = None
    ) -> Verdict:
        """Fail the test (AIAssertionError with the verdict and reasoning) unless the judge
        finds `claim` true of the page within `timeout` ms (judged again on each page
        change, like Playwright's expect); `screenshot=True` judges from a screenshot."""
        __tracebackhide__ = True  # a failure points at the test's line
        with self.open_page(f"assert_that({claim!r})"):
            return self.evaluator.assert_that(claim, screenshot, self.waiting(timeout))

    def wait_for(
        self, claim: str, *, timeout: float | None = None, screenshot: bool = False
    ) -> Verdict:
        """Wait until the judge finds `claim` true of the page (judged again on each page
        change) and return the verdict; raise WaitTimeout, with the judge's last reasoning,
        when it is not true within `timeout` ms."""
        waiting = self.waiting(timeout)
        with self.open_page(f"wait_for({claim!r})"):
            verdict = self.evaluator.check(claim, screenshot, waiting)
        if not verdict.passed:
            raise WaitTimeout(
                self.steplog.mask(
                    f"Waited {waiting.timeout_ms:.0f} ms for a claim that did not come true.\n"
                    f"{verdict}"
                ),
                verdict,
            )
        return verdict

    def check(self, claim: str, screenshot: bool = False) -> Verdict:
        """The judge's verdict on `claim`, without failing the test."""
        with self.open_page(f"check({claim!r})"):
            return self.evaluator.check(claim, screenshot)


# --- extract's schema: what a test author may pass -----------------------------------------


def _as_model(schema: object) -> tuple[type[BaseModel], Callable[[BaseModel], Any]]:
    """The pydantic model to extract into, and how to give the answer back in the
    caller's own type. Refuses (InvalidArgument) what cannot describe fields."""
    if isinstance(schema, BaseModel) or (
        dataclasses.is_dataclass(schema) and not isinstance(schema, type)
    ):
        schema = type(schema)  # an instance stands for its class
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return schema, lambda value: value
    convertible = dataclasses.is_dataclass(schema) or is_typeddict(schema)
    if not (isinstance(schema, type) and convertible):
        raise InvalidArgument(
            f"extract(schema={getattr(schema, '__name__', repr(schema))}) cannot describe the "
            "data wanted: pass a pydantic model class (a dataclass or TypedDict also works), "
            "e.g. class Cart(BaseModel): items: int; total: str."
        )
    try:
        hints = get_type_hints(schema)
    except NameError as exc:
        raise InvalidArgument(
            f"extract(schema={schema.__name__}): a field's type is not resolvable ({exc})."
        ) from None
    if dataclasses.is_dataclass(schema):
        fields = {f.name: (hints[f.name], _default(f)) for f in dataclasses.fields(schema)}
        adapter = TypeAdapter(schema)
        model = create_model(schema.__name__, __doc__=schema.__doc__, **fields)  # type: ignore[call-overload]
        return model, lambda value: adapter.validate_python(value.model_dump())
    required = schema.__required_keys__  # type: ignore[attr-defined]
    fields = {
        name: (hint, ...) if name in required else (hint | None, None)
        for name, hint in hints.items()
    }
    model = create_model(schema.__name__, __doc__=schema.__doc__, **fields)  # type: ignore[call-overload]
    return model, lambda value: {
        key: item for key, item in value.model_dump().items() if key in required or item is not None
    }


def _default(field: dataclasses.Field) -> Any:
    if field.default is not dataclasses.MISSING:
        return field.default
    if field.default_factory is not dataclasses.MISSING:
        return Field(default_factory=field.default_factory)
    return ...
