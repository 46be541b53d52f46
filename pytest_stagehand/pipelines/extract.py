"""extract: data from the page, validated by the caller's pydantic schema.

Link fields are exact: every field typed as a URL (pydantic `AnyUrl` and its kinds, such
as `HttpUrl`, also inside lists, optionals and nested models) is asked for as the
element id of the link, and the id is mapped back to that link's real href before the
caller's schema validates the answer. The model never retypes a URL. Plain `str` fields
stay text, whatever their name.

A snapshot larger than the token budget is split by lines into parts, one model call
each; the answers merge (lists concatenated, the first non-null value of anything else).
"""

from __future__ import annotations

import json
import re
import types
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any, TypeVar, Union, get_args, get_origin, overload

from pydantic import AnyUrl, BaseModel, Field, ValidationError, create_model
from pydantic.fields import FieldInfo

from pytest_stagehand.actions.action import element_id
from pytest_stagehand.actions.settle import settle
from pytest_stagehand.browser.watch import PageWatch
from pytest_stagehand.errors import InvalidModelChoice, ModelOutputError
from pytest_stagehand.events import StepEvent, StepLog, shortened
from pytest_stagehand.model.client import ModelClient
from pytest_stagehand.model.inference import ChoiceProblem, ask_checked
from pytest_stagehand.pipelines import vision
from pytest_stagehand.pipelines.vision import Look, VisionMode
from pytest_stagehand.pipelines.waiting import Waiting, is_empty
from pytest_stagehand.prompts import texts as prompts
from pytest_stagehand.prompts.texts import ExtractedText
from pytest_stagehand.prompts.vision import with_screenshot
from pytest_stagehand.snapshot.outline import (
    ELEMENT_ID,
    Snapshot,
    estimate_tokens,
    snapshot,
    without_ids,
)

if TYPE_CHECKING:
    from pytest_stagehand.pipelines.replay import StepRecorder

T = TypeVar("T", bound=BaseModel)

CHUNK_TOKENS = 24_000  # snapshot tokens per model call; larger pages are split
LINK_ID = "the element id of the link, e.g. e12"
ANY_ELEMENT_ID = re.compile(rf"\b{ELEMENT_ID}\b")  # in an answer, as element_id reads it


@overload
def extract(
    watch: PageWatch, client: ModelClient | None, steplog: StepLog, instruction: str | None,
    schema: type[T], scope: str | None = ..., *, chunk_tokens: int = ...,
    recorder: StepRecorder | None = ..., vision_mode: VisionMode = ...,
) -> T: ...


@overload
def extract(
    watch: PageWatch, client: ModelClient | None, steplog: StepLog, instruction: str | None = ...,
    schema: None = ..., scope: str | None = ..., *, chunk_tokens: int = ...,
    recorder: StepRecorder | None = ..., vision_mode: VisionMode = ...,
) -> str: ...


def extract(
    watch: PageWatch,
    client: ModelClient | None,
    steplog: StepLog,
    instruction: str | None = None,
    schema: type[BaseModel] | None = None,
    scope: str | None = None,
    *,
    chunk_tokens: int = CHUNK_TOKENS,
    recorder: StepRecorder | None = None,
    vision_mode: VisionMode = "fallback",
    waiting: Waiting | None = None,
) -> BaseModel | str:
    """A `schema` instance; text without a schema; the page text without either.

    `scope` is a selector limiting the snapshot to part of the page. With a `recorder`,
    the step follows the recorded-step protocol (steps.py): a recording read again from
    the page replaces the model call. With `waiting`, an empty answer is asked again on
    each page change until its timeout. With `vision_mode` "always", or "fallback" on a view
    that is mostly canvas/SVG, the model reads a marked screenshot too (vision.py).
    """
    page = watch.page
    settled = settle(watch)
    label = instruction or (f"{schema.__name__} from the page" if schema else "the page text")
    with steplog.step("extract", label, page.url) as event:
        if instruction is None and schema is None:
            text = without_ids(snapshot(page, scope).text)
            event.result = f"page text, {len(text)} characters"
            return text
        wanted = schema or ExtractedText
        asked_for = instruction or prompts.EXTRACT_ALL

        @cache
        def by_sight() -> bool:  # measured when the model is asked: a replay needs not
            return vision_mode == "always" or (
                vision_mode == "fallback" and vision.mostly_visual(page, scope)
            )

        def ask() -> BaseModel:
            page_snapshot = snapshot(page, scope)  # a fresh one each time it is asked
            seen = vision.look(page, page_snapshot, scope, steplog.secrets) if by_sight() else None
            return _ask(
                client, steplog, instruction, wanted, page_snapshot, chunk_tokens, event, seen
            )

        def step(ask: Callable[[], BaseModel]) -> BaseModel:
            if recorder is None:
                return ask()
            return recorder.extract(asked_for, wanted, scope, event, ask, by_sight)

        # An empty answer may be a page still loading: asked again when the page changes.
        value = (waiting or Waiting(watch, 0)).answered(
            step, ask, lambda answer: not is_empty(answer), event, settled
        )
        event.result = shortened(value.model_dump_json(), 300)
    return value.text if isinstance(value, ExtractedText) else value


def _ask(
    client: ModelClient | None,
    steplog: StepLog,
    instruction: str | None,
    wanted: type[T],
    page_snapshot: Snapshot,
    chunk_tokens: int,
    event: StepEvent,
    seen: Look | None = None,
) -> T:
    """The model's answer, in parts when the snapshot is over `chunk_tokens`; with `seen`,
    each part shows the model that screenshot too."""
    parts = split(page_snapshot.text, chunk_tokens)
    asked = model_schema(wanted, partial=len(parts) > 1)
    merged: Any = None
    for number, part in enumerate(parts, 1):
        messages = prompts.extract_messages(
            instruction, page_snapshot.url, part, number, len(parts)
        )
        if seen is not None:
            messages = with_screenshot(messages, seen.caption, seen.image, pointing=False)
        try:
            answer = ask_checked(
                client,
                messages,
                asked,
                lambda value: answer_with_urls(wanted, value, page_snapshot),
                feedback=prompts.feedback, event=event,
                steplog=steplog,
            )
        except ChoiceProblem as exc:
            raise InvalidModelChoice(
                f"The model's answer to extract {instruction!r} on {page_snapshot.url} "
                f"names a link that is not on the page, even after feedback: {exc}"
            ) from None
        merged = merge(merged, answer)
    try:
        return wanted.model_validate(merged)
    except ValidationError as exc:
        raise ModelOutputError(
            f"What the model extracted from {page_snapshot.url} for {instruction!r} "
            f"is not a valid {wanted.__name__}: {exc}",
            raw=str(merged),
        ) from None


# --- parts ------------------------------------------------------------------------------


def split(text: str, budget: int) -> list[str]:
    """The snapshot text in whole lines, each part within `budget` tokens where a line allows."""
    parts: list[str] = []
    lines: list[str] = []
    size = 0
    for line in text.splitlines():
        cost = estimate_tokens(line + "\n")
        if lines and size + cost > budget:
            parts.append("\n".join(lines))
            lines, size = [], 0
        lines.append(line)
        size += cost
    if lines or not parts:
        parts.append("\n".join(lines))
    return parts


def merge(first: Any, second: Any) -> Any:
    """Answers of two parts as one: lists concatenate, objects merge by key, else first wins."""
    if first is None:
        return second
    if isinstance(first, dict) and isinstance(second, dict):
        return {key: merge(first.get(key), second.get(key)) for key in first | second}
    if isinstance(first, list) and isinstance(second, list):
        return first + second
    return first


# --- link fields -------------------------------------------------------------------------


def _is_url(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, AnyUrl)


def _model_type(annotation: Any, partial: bool) -> Any:
    """`annotation` with URL types replaced by element-id text, all the way down."""
    if _is_url(annotation):
        return str
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return model_schema(annotation, partial)
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Annotated:
        inner = _model_type(args[0], partial)
        return annotation if inner is args[0] else inner
    if not args:
        return annotation
    mapped = tuple(_model_type(arg, partial) for arg in args)
    if mapped == args:
        return annotation
    if origin in (Union, types.UnionType):
        return Union[mapped]  # noqa: UP007 - built from a tuple
    return origin[mapped]


def _is_link_field(annotation: Any) -> bool:
    """A URL, or a list or optional of URLs: asked for as element ids."""
    return _is_url(annotation) or any(_is_link_field(arg) for arg in get_args(annotation))


def _has_url(annotation: Any) -> bool:
    """A URL anywhere inside, nested models included."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return any(_has_url(info.annotation) for info in annotation.model_fields.values())
    return _is_url(annotation) or any(_has_url(arg) for arg in get_args(annotation))


def model_schema(schema: type[BaseModel], partial: bool = False) -> type[BaseModel]:
    """The schema the model answers: link fields as element ids; with `partial` (one part
    of a split page) every field may be null, since a part may not hold it. A schema that
    needs neither is sent as it is, so its own validators guide the model's repair."""
    if not partial and not _has_url(schema):
        return schema
    fields: dict[str, Any] = {}
    for name, info in schema.model_fields.items():
        annotation = _model_type(info.annotation, partial)
        changes: dict[str, Any] = {}
        if _is_link_field(info.annotation):
            changes["description"] = " ".join(filter(None, [info.description, f"({LINK_ID})"]))
        if partial:
            annotation = annotation | None
            changes["default"] = None
        if annotation is info.annotation and not changes:
            fields[name] = (info.annotation, info)
        else:
            fields[name] = (annotation, FieldInfo.merge_field_infos(info, Field(**changes)))
    return create_model(schema.__name__, __doc__=schema.__doc__, **fields)


def answer_with_urls(wanted: Any, answer: BaseModel, page_snapshot: Snapshot) -> Any:
    """The model's answer as data, its link ids replaced by their hrefs (`links_to_urls`),
    the ids it names taken from the page first, in one call."""
    value = answer.model_dump(mode="json", by_alias=True)
    if _has_url(wanted):
        page_snapshot.take(ANY_ELEMENT_ID.findall(json.dumps(value)))
    return links_to_urls(wanted, value, page_snapshot)


def links_to_urls(annotation: Any, value: Any, page_snapshot: Snapshot) -> Any:
    """`value` (the model's answer as data) with link element ids replaced by their hrefs.

    Raises ChoiceProblem for an id that is not a link in the snapshot.
    """
    if value is None:
        return None
    if _is_url(annotation):
        return _href(page_snapshot, str(value))
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if not isinstance(value, dict):
            return value
        mapped = dict(value)
        for name, info in annotation.model_fields.items():
            key = info.alias or name
            if key in mapped and _has_url(info.annotation):
                mapped[key] = links_to_urls(info.annotation, mapped[key], page_snapshot)
        return mapped
    origin, args = get_origin(annotation), get_args(annotation)
    if origin in (list, set, frozenset, tuple) and isinstance(value, list):
        return [links_to_urls(args[0], item, page_snapshot) for item in value]
    if origin is dict and isinstance(value, dict):
        return {key: links_to_urls(args[1], item, page_snapshot) for key, item in value.items()}
    if args and _has_url(annotation):
        return links_to_urls(next(arg for arg in args if _has_url(arg)), value, page_snapshot)
    return value


def _href(page_snapshot: Snapshot, raw: str) -> str:
    key = element_id(raw)
    ref = page_snapshot.elements.get(key)
    if ref is None or not ref.href:
        raise ChoiceProblem(f"{raw!r} is not the id of a link in the snapshot ({LINK_ID}).")
    return ref.href
