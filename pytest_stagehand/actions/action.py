"""The action value: one step of what to do to the page, named by a replayable selector,
and the checks that a model's choice of element and method can be done."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from playwright.sync_api import Locator, Page

from pytest_stagehand.browser.dialogs import DIALOG_METHODS
from pytest_stagehand.browser.files import SavedDownload
from pytest_stagehand.calls import CallUsage
from pytest_stagehand.events import CacheStatus
from pytest_stagehand.model.inference import ChoiceProblem
from pytest_stagehand.model.usage import UsageTotals
from pytest_stagehand.prompts.texts import Method
from pytest_stagehand.recordings.format import RecordedElement, RecordedPoint
from pytest_stagehand.snapshot.element import ElementRef, Kept, describe, frame_scope
from pytest_stagehand.snapshot.outline import Snapshot

PAGE_METHODS: frozenset[str] = frozenset({"press", "scroll", "switch_tab"} | DIALOG_METHODS)


EDITABLE_ROLES = frozenset({"textbox", "searchbox", "combobox", "spinbutton", "slider"})


CHECKABLE_ROLES = frozenset(
    {"checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"}
)


ONE_ARGUMENT = {
    "fill": "the text",
    "type": "the text",
    "press": "the key",
    "scroll": "the amount",
    "switch_tab": "the title or URL of the tab",
}


SCROLL_AMOUNT = re.compile(r"^-?\d+(\.\d+)?(px|%)?$")


VARIABLE = re.compile(r"%(\w+)%")


@dataclass(frozen=True)
class Action:
    """One thing done to the page: a method, its arguments and the element it acts on.

    `arguments` keep %name% placeholders; values are put in only when performing.
    `selector` None means the page itself (press, scroll). For drag_and_drop the first
    argument is the selector of the drop target, in the same frame.
    """

    method: Method
    arguments: tuple[str, ...] = ()
    description: str = ""
    selector: str | None = None
    frame_path: tuple[str, ...] = ()
    # The element as a recording keeps it, from the snapshot it was chosen in to the
    # recording: its selectors best first, its fingerprint, and what tells it from its
    # look-alikes (see heal.identity). None for the page itself.
    target: RecordedElement | None = field(default=None, repr=False, compare=False)
    element: str | None = None  # e.g. 'button "Log in"', for people reading reports
    # What a person's click went to in the element's place, when it was covered or
    # invisible: 'label "Dark mode"', or the visible part of its own wrapper (see `perform`).
    via: str = field(default="", compare=False)
    # A point on the element to act at instead of its centre (a bar of a canvas chart),
    # with the look of the region around it that replay checks first (vision.py).
    point: RecordedPoint | None = None
    # What stood in for the element when it was looked up just before acting (STAND_IN),
    # which saves a click looking again; None: not looked up.
    stand_in: str | None = field(default=None, repr=False, compare=False)
    # Where the page keeps the element as that look found and verified it (snapshot.KEEP),
    # which saves finding it again; None: not kept.
    kept: Kept | None = field(default=None, repr=False, compare=False)
    # How many pages the action asked to open, where it read that itself as it acted (a
    # direct click or fill), which saves the step asking the page; None: not read.
    opens: int | None = field(default=None, repr=False, compare=False)

    @property
    def candidates(self) -> tuple[str, ...]:
        """Every selector that finds the element, best first."""
        return tuple(self.target.selectors) if self.target else ()

    @property
    def context(self) -> str:
        """The text of the card, row or form around the element, as last looked at."""
        return self.target.context if self.target else ""

    def locator(self, page: Page) -> Locator:
        """The element in `page` (through its frames). Only for element actions."""
        if self.selector is None:
            raise ValueError(f"{self.method} acts on the page, not on an element")
        return frame_scope(page, self.frame_path).locator(self.selector)


@dataclass(frozen=True)
class ActResult:
    """What `act` did: the actions performed (replayable), and what the model calls cost.

    A result is only returned on success: a step that fails raises a typed error.
    """

    success: bool
    message: str
    actions: list[Action]
    usage: UsageTotals = field(default_factory=UsageTotals)
    cache: CacheStatus = "none"
    # The files the step downloaded, each copied to a local file (`.path()`).
    downloads: list[SavedDownload] = field(default_factory=list)

    @classmethod
    def of(
        cls, actions: list[Action], calls: list[CallUsage], cache: CacheStatus
    ) -> ActResult:
        usage = UsageTotals()
        for call in calls:
            usage.add(call)
        message = "; then ".join(f"{a.method} {a.description}" for a in actions)
        return cls(True, message, actions, usage, cache)


def element_id(raw: str) -> str:
    """Tolerate "[e12]" and " e12 " for the id "e12"."""
    return raw.strip().strip("[]").strip()


def action_for(
    snapshot: Snapshot,
    element: str | None,
    method: Method,
    arguments: list[str],
    description: str,
    allowed: frozenset[str] | None = None,
) -> Action:
    """The Action a model's choice means, or ChoiceProblem saying why it cannot be done.

    `allowed` limits the ids the model may choose (the options that appeared after a
    dropdown opened, the part of a large page it was shown).
    """
    count = ONE_ARGUMENT.get(method)
    if count and len(arguments) != 1:
        raise ChoiceProblem(f"{method} takes exactly one argument, {count}.")
    if method == "select_option" and not arguments:
        raise ChoiceProblem("select_option needs the label of the option to choose.")
    if method == "accept_dialog" and len(arguments) > 1:
        raise ChoiceProblem("accept_dialog takes at most one argument, the text for a prompt.")
    if method == "upload" and (not arguments or not all(VARIABLE.fullmatch(a) for a in arguments)):
        raise ChoiceProblem('upload takes the files as variables, one each, e.g. ["%resume%"].')
    if method == "scroll" and not SCROLL_AMOUNT.match(arguments[0].strip()):
        raise ChoiceProblem(
            f'scroll takes pixels ("400", "-400") or a fraction ("50%"), not {arguments[0]!r}.'
        )
    if method in PAGE_METHODS - {"press", "scroll"}:
        element = None  # a dialog or a tab: no element of the page, whatever the model says
    if element is None:
        if method not in PAGE_METHODS:
            raise ChoiceProblem(f"{method} needs an element_id.")
        return Action(method, tuple(arguments), description or f"{method} on the page")
    ref = _ref(snapshot, element, allowed)
    _check_method(ref, method)
    if method == "drag_and_drop":
        arguments = [_drop_target(snapshot, ref, arguments, allowed)]
    return from_ref(ref, method, arguments, description)


def from_ref(
    ref: ElementRef, method: Method, arguments: Sequence[str] = (), description: str = ""
) -> Action:
    """An Action on a snapshot element, carrying everything needed to replay and record it."""
    return Action(
        method=method,
        arguments=tuple(arguments),
        description=description or describe(ref.fingerprint),
        selector=ref.selector,
        frame_path=ref.frame_path,
        target=RecordedElement(
            selectors=list(ref.candidates) or [ref.selector],
            frame_path=list(ref.frame_path),
            fingerprint=ref.fingerprint,
        ),
        element=describe(ref.fingerprint),
    )


def _ref(snapshot: Snapshot, element: str, allowed: frozenset[str] | None) -> ElementRef:
    key = element_id(element)
    if key not in snapshot.elements or (allowed is not None and key not in allowed):
        where = "among the elements shown" if allowed is not None else "in the snapshot"
        raise ChoiceProblem(f"there is no element {element!r} {where}.")
    return snapshot.elements[key]


def _check_method(ref: ElementRef, method: Method) -> None:
    label = describe(ref.fingerprint)
    native_select = ref.fingerprint.tag == "select"
    editable = ref.role in EDITABLE_ROLES or ref.states.get("editable")
    if method in ("fill", "type") and (native_select or not editable):
        raise ChoiceProblem(f"{label} is not a text field, so it cannot take {method}.")
    if method in ("check", "uncheck") and ref.role not in CHECKABLE_ROLES:
        raise ChoiceProblem(f"{label} is not a checkbox, radio button or switch.")
    if method == "uncheck" and ref.role in ("radio", "menuitemradio"):
        raise ChoiceProblem(f"{label} is a radio button: check another option instead.")
    if method == "select_option" and not native_select:
        raise ChoiceProblem(
            f"{label} is not a native <select>. For a custom dropdown, click the element "
            "that opens it with two_step true."
        )


def _drop_target(
    snapshot: Snapshot, ref: ElementRef, arguments: list[str], allowed: frozenset[str] | None
) -> str:
    if len(arguments) != 1:
        raise ChoiceProblem("drag_and_drop takes one argument, the id of the drop target.")
    target = _ref(snapshot, arguments[0], allowed)
    if target.frame_path != ref.frame_path:
        raise ChoiceProblem("drag_and_drop works only within one frame.")
    return target.selector


def substitute(text: str, values: Mapping[str, str]) -> str:
    """Put variable values in for their %name% placeholders; unknown names stay as written."""
    return VARIABLE.sub(lambda m: values.get(m.group(1), m.group(0)), text)
