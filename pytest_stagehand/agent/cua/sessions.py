"""One provider's computer-use conversation: what it is sent and what it answers, in one shape."""

from __future__ import annotations

import base64
import json
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_stagehand.agent.cua.actions import (
    ScreenAction,
    Unsupported,
    anthropic_action,
    gemini_action,
    openai_action,
)
from pytest_stagehand.agent.cua.screen import Screen
from pytest_stagehand.model.client import ModelClient
from pytest_stagehand.prompts import cua as cua_texts

ANTHROPIC_TOOL, ANTHROPIC_BETA = "computer_20250124", "computer-use-2025-01-24"
KEPT_SCREENSHOTS = 3  # screenshots kept in an Anthropic conversation; older ones are dropped


# A test's browser is open already, and a search engine is outside the allowed origins.
GEMINI_EXCLUDED = ["open_web_browser", "search", "go_forward"]


# Gemini finish reasons that mean the model declined.
GEMINI_REFUSALS = frozenset({"SAFETY", "PROHIBITED_CONTENT", "BLOCKLIST", "SPII", "IMAGE_SAFETY"})


MAX_TOKENS = 4096


@dataclass(frozen=True)
class Call:
    """One tool call of a reply: computer actions, or the done tool's arguments, or what
    cannot be done with it (told back to the model)."""

    id: str
    actions: tuple[ScreenAction, ...] = ()
    done: dict[str, Any] | None = None
    problem: str | None = None
    safety_checks: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class Answer:
    """One reply: its calls in order, its text, and a refusal, if it is one."""

    calls: tuple[Call, ...]
    text: str = ""
    refusal: str | None = None


@dataclass(frozen=True)
class CallResult:
    """What one call came to, as the model is told: text, a screenshot, the safety checks
    the test acknowledged."""

    call: Call
    text: str
    ok: bool = True
    image: bytes | None = None
    acknowledged: tuple[dict[str, Any], ...] = ()
    url: str = ""  # the page's after the call (Gemini wants it)


@dataclass
class Session(ABC):
    """One provider's computer-use conversation over the official SDK (`converse`)."""

    client: ModelClient
    screen: Screen
    system: str
    done_schema: dict[str, Any]
    started: bool = field(default=False, init=False)

    @abstractmethod
    def ask(
        self,
        task: str,
        image: bytes,
        results: Sequence[CallResult],
        notice: str | None,
        only_done: bool,
    ) -> tuple[Answer, tuple[Any, ...]]:
        """Send the results of the last calls (the task and first screenshot the first
        time) and a notice; return the answer and the calls made (their usage)."""  # fmt: skip


def _data_url(image: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(image).decode()


def _image_block(image: bytes) -> dict[str, Any]:
    data = base64.b64encode(image).decode()
    return {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}


class AnthropicSession(Session):
    """The Messages API with the computer-use tool (beta header); the whole conversation
    is sent each time, with only the latest screenshots."""

    messages: list[dict[str, Any]]

    def ask(
        self, task: str, image: bytes, results: Sequence[CallResult], notice: str | None,
        only_done: bool,
    ) -> tuple[Answer, tuple[Any, ...]]:  # fmt: skip
        content: list[dict[str, Any]] = []
        if not self.started:
            self.messages = []
            content += [{"type": "text", "text": task}, _image_block(image)]
            self.started = True
        for result in results:
            blocks: list[dict[str, Any]] = [{"type": "text", "text": result.text}]
            if result.image is not None:
                blocks.append(_image_block(result.image))
            block = {"type": "tool_result", "tool_use_id": result.call.id, "content": blocks}
            content.append({**block, "is_error": True} if not result.ok else block)
        if notice:
            content.append({"type": "text", "text": notice})
        self.messages.append({"role": "user", "content": content})
        self._drop_old_screenshots()
        width, height = self.screen.display_width, self.screen.display_height
        computer = {
            "type": ANTHROPIC_TOOL, "name": "computer",
            "display_width_px": width, "display_height_px": height,
        }  # fmt: skip
        done = {"name": "done", "description": cua_texts.CUA_DONE, "input_schema": self.done_schema}
        kwargs: dict[str, Any] = {
            "model": self.client.config.name,
            "max_tokens": MAX_TOKENS,
            "system": self.system,
            "tools": [computer, done],
            "messages": self.messages,
            "betas": [ANTHROPIC_BETA],
        }
        if only_done:
            kwargs["tool_choice"] = {"type": "tool", "name": "done"}
        reply, calls = self.client.converse(
            lambda sdk: sdk.beta.messages.with_raw_response.create(**kwargs), purpose="agent"
        )
        blocks = [b for b in reply.get("content") or () if isinstance(b, dict)]
        self.messages.append({"role": "assistant", "content": blocks})
        text = " ".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")
        if reply.get("stop_reason") == "refusal":
            return Answer((), text, refusal=text or "(no reason given)"), calls
        found = []
        for block in blocks:
            if block.get("type") != "tool_use":
                continue
            given, call_id = block.get("input") or {}, str(block.get("id"))
            if block.get("name") == "done":
                found.append(Call(call_id, done=given))
                continue
            if block.get("name") != "computer":
                found.append(Call(call_id, problem=f"there is no tool {block.get('name')!r}"))
                continue
            try:
                found.append(Call(call_id, (anthropic_action(given),)))
            except Unsupported as exc:
                found.append(Call(call_id, problem=str(exc)))
        return Answer(tuple(found), text), calls

    def _drop_old_screenshots(self) -> None:
        """Keep the latest KEPT_SCREENSHOTS images: each costs the same tokens every turn."""
        holders = []
        for message in self.messages:
            if message["role"] == "user":
                holders.append(message["content"])
                holders += [
                    b["content"] for b in message["content"] if b.get("type") == "tool_result"
                ]
        images = [
            (blocks, i)
            for blocks in holders
            for i, b in enumerate(blocks)
            if b.get("type") == "image"
        ]
        for blocks, i in images[:-KEPT_SCREENSHOTS]:
            blocks[i] = {"type": "text", "text": "(an older screenshot, no longer shown)"}


class OpenAISession(Session):
    """The Responses API with the computer_use_preview tool; turns are chained by
    previous_response_id, so only the new items are sent."""

    previous: str | None = None

    def ask(
        self, task: str, image: bytes, results: Sequence[CallResult], notice: str | None,
        only_done: bool,
    ) -> tuple[Answer, tuple[Any, ...]]:  # fmt: skip
        items: list[dict[str, Any]] = []
        if not self.started:
            content = [
                {"type": "input_text", "text": task},
                {"type": "input_image", "image_url": _data_url(image)},
            ]
            items.append({"role": "user", "content": content})
            self.started = True
        failures = []
        for result in results:
            if result.call.done is not None or result.image is None:
                items.append(
                    {"type": "function_call_output", "call_id": result.call.id,
                     "output": result.text}
                )  # fmt: skip
                continue
            item: dict[str, Any] = {
                "type": "computer_call_output",
                "call_id": result.call.id,
                "output": {"type": "computer_screenshot", "image_url": _data_url(result.image)},
            }
            if result.acknowledged:
                item["acknowledged_safety_checks"] = list(result.acknowledged)
            items.append(item)
            if not result.ok:
                failures.append(result.text)
        texts = [*failures, *([notice] if notice else [])]
        if texts:
            items.append(
                {"role": "user", "content": [{"type": "input_text", "text": "\n".join(texts)}]}
            )
        width, height = self.screen.display_width, self.screen.display_height
        computer = {
            "type": "computer_use_preview", "display_width": width, "display_height": height,
            "environment": "browser",
        }  # fmt: skip
        done = {
            "type": "function", "name": "done", "description": cua_texts.CUA_DONE,
            "parameters": self.done_schema, "strict": False,
        }  # fmt: skip
        kwargs: dict[str, Any] = {
            "model": self.client.config.name,
            "instructions": self.system,
            "tools": [computer, done],
            "input": items,
            "truncation": "auto",
            "max_output_tokens": MAX_TOKENS,
        }
        if self.previous:
            kwargs["previous_response_id"] = self.previous
        if only_done:
            kwargs["tool_choice"] = {"type": "function", "name": "done"}
        reply, calls = self.client.converse(
            lambda sdk: sdk.responses.with_raw_response.create(**kwargs), purpose="agent"
        )
        self.previous = reply.get("id")
        found, texts, refusals = [], [], []
        for item in reply.get("output") or ():
            if not isinstance(item, dict):
                continue
            kind, call_id = item.get("type"), str(item.get("call_id"))
            if kind == "message":
                for part in item.get("content") or ():
                    if part.get("type") == "refusal":
                        refusals.append(str(part.get("refusal", "")))
                    else:
                        texts.append(str(part.get("text", "")))
            elif kind == "function_call":
                found.append(self._function_call(item, call_id))
            elif kind == "computer_call":
                checks = tuple(item.get("pending_safety_checks") or ())
                given = item.get("actions") or [item.get("action") or {}]
                try:
                    actions = tuple(openai_action(a) for a in given)
                except Unsupported as exc:
                    found.append(Call(call_id, problem=str(exc), safety_checks=checks))
                else:
                    found.append(Call(call_id, actions, safety_checks=checks))
        text = " ".join(texts)
        if refusals and not found:
            return Answer((), text, refusal=" ".join(refusals) or "(no reason given)"), calls
        return Answer(tuple(found), text), calls

    @staticmethod
    def _function_call(item: dict[str, Any], call_id: str) -> Call:
        if item.get("name") != "done":
            return Call(call_id, problem=f"there is no tool {item.get('name')!r}")
        try:
            arguments = json.loads(item.get("arguments") or "{}")
        except ValueError:
            return Call(call_id, done={}, problem="done's arguments are not JSON")
        return Call(call_id, done=arguments if isinstance(arguments, dict) else {})


class GeminiSession(Session):
    """generateContent with Gemini's computer-use tool through google-genai (the
    `pytest-stagehand[google]` extra); the whole conversation is sent each time, with the
    latest screenshots in the function responses, beside the page's URL."""

    contents: list[Any]

    def ask(
        self, task: str, image: bytes, results: Sequence[CallResult], notice: str | None,
        only_done: bool,
    ) -> tuple[Answer, tuple[Any, ...]]:  # fmt: skip
        from google.genai import types  # the client for a google/ model has imported it

        parts: list[Any] = []
        if not self.started:
            self.contents = []
            parts += [
                types.Part(text=task),
                types.Part.from_bytes(data=image, mime_type="image/png"),
            ]
            self.started = True
        for result in results:
            response: dict[str, Any] = {"url": result.url} if result.url else {}
            response["output" if result.ok else "error"] = result.text
            if result.acknowledged:
                response["safety_acknowledgement"] = "true"
            shots = (
                [types.FunctionResponsePart(inline_data=types.FunctionResponseBlob(
                    mime_type="image/png", data=result.image))]
                if result.image is not None
                else None
            )  # fmt: skip
            answered = types.FunctionResponse(name=result.call.id, response=response, parts=shots)
            parts.append(types.Part(function_response=answered))
        if notice:
            parts.append(types.Part(text=notice))
        self.contents.append(types.Content(role="user", parts=parts))
        self._drop_old_screenshots()
        computer = types.ComputerUse(
            environment=types.Environment.ENVIRONMENT_BROWSER,
            excluded_predefined_functions=GEMINI_EXCLUDED,
        )
        done = types.FunctionDeclaration(
            name="done", description=cua_texts.CUA_DONE, parameters_json_schema=self.done_schema
        )
        config = types.GenerateContentConfig(
            system_instruction=self.system,
            tools=[types.Tool(computer_use=computer), types.Tool(function_declarations=[done])],
            max_output_tokens=MAX_TOKENS,
            should_return_http_response=True,  # the raw body, checked like the others'
        )
        if only_done:
            config.tool_config = types.ToolConfig(
                function_calling_config=types.FunctionCallingConfig(
                    mode=types.FunctionCallingConfigMode.ANY, allowed_function_names=["done"]
                )
            )
        reply, calls = self.client.converse(
            lambda sdk: sdk.models.generate_content(
                model=self.client.config.name, contents=self.contents, config=config
            ),
            purpose="agent",
        )
        candidates = reply.get("candidates") or [{}]
        candidate = candidates[0] if isinstance(candidates[0], dict) else {}
        given = [
            p for p in (candidate.get("content") or {}).get("parts") or () if isinstance(p, dict)
        ]
        text = " ".join(str(p["text"]) for p in given if "text" in p)
        blocked = (reply.get("promptFeedback") or {}).get("blockReason")
        if blocked or candidate.get("finishReason") in GEMINI_REFUSALS:
            reason = blocked or candidate.get("finishReason")
            return Answer((), text, refusal=text or f"(blocked: {reason})"), calls
        kept = ("text", "functionCall", "thoughtSignature", "thought")
        model_parts = [{k: v for k, v in p.items() if k in kept} for p in given]
        if model_parts:
            self.contents.append(
                types.Content.model_validate({"role": "model", "parts": model_parts})
            )
        found = [
            self._call(p["functionCall"]) for p in given if isinstance(p.get("functionCall"), dict)
        ]
        return Answer(tuple(found), text), calls

    def _call(self, function: dict[str, Any]) -> Call:
        name, args = str(function.get("name")), dict(function.get("args") or {})
        if name == "done":
            return Call(name, done=args)
        decision = args.pop("safety_decision", None) or {}
        checks: tuple[dict[str, Any], ...] = ()
        if decision.get("decision") == "require_confirmation":
            checks = ({"code": "require_confirmation", "message": decision.get("explanation")},)
        try:
            return Call(name, gemini_action(name, args, self.screen), safety_checks=checks)
        except Unsupported as exc:
            return Call(name, problem=str(exc), safety_checks=checks)

    def _drop_old_screenshots(self) -> None:
        """Keep the latest KEPT_SCREENSHOTS images: each costs the same tokens every turn."""
        holders = [
            part
            for content in self.contents
            if content.role == "user"
            for part in content.parts or ()
            if part.inline_data is not None
            or (part.function_response is not None and part.function_response.parts)
        ]
        for part in holders[:-KEPT_SCREENSHOTS]:
            if part.inline_data is not None:
                part.inline_data, part.text = None, "(an older screenshot, no longer shown)"
            else:
                part.function_response.parts = None
