"""A scripted stand-in for a model provider, served over real HTTP on 127.0.0.1.

It speaks the OpenAI Chat Completions and Responses, the Anthropic Messages and the Gemini
generateContent wire formats (with the providers' computer-use tools) well enough for the
official SDKs, so tests (ours, the example suites', users' own) exercise the real client
code path without a real model, a key or a network. Nothing here is a model: every answer
comes from a script the test wrote.

    with ScriptedModelServer() as scripted:
        scripted.enqueue({"element_id": 3}, Fault(429), Reply('{"cut', finish_reason="length"))
        config = ModelConfig("openai/scripted", base_url=scripted.openai_base_url)

A reply is a value (dict or list: the JSON answer, or the tool input when the request
forces a tool; str: raw text content, so tests can send malformed JSON), a `Reply`
(the same with usage numbers, a finish reason or a delay), a `Fault` (an HTTP error,
optionally late enough to be a timeout), a `Broken` reply (a status 200 whose body is
not a usable reply: HTML, an error object, no choices, null content...) or a callable
`fn(request) -> reply` that reads the prompt it received and answers as a correct model
would. For computer use, a reply is a `ComputerCall` (an action in the request's wire
format), a `FunctionCall` of a declared tool, a `Refusal`, or a list of these and texts.
For Gemini (`google_base_url`), a `ComputerCall` is a predefined function call,
`{"name": "click_at", "args": {"x": 500, "y": 300}}` (0-999 coordinates; a
`safety_decision` goes in the args, as Gemini sends it).

A server can also play a structured-output dialect (`structured_output=`): which
OpenAI `response_format` shapes it accepts and which it refuses, as real servers do.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal, TypeAlias

from pytest_stagehand.testing.script import (
    BROKEN_KINDS,
    LLAMA_CPP_JSON_SCHEMA_REJECTION,
    SECRET_HEADERS,
    Broken,
    ComputerCall,
    Fault,
    FunctionCall,
    Provider,
    Refusal,
    Reply,
    ScriptedReply,
    ScriptedRequest,
)
from pytest_stagehand.testing.wire import (
    EXTRA_SCHEMA_REJECTION,
    anthropic_message,
    broken_body,
    error_body,
    gemini_reply,
    json_bytes,
    llama_cpp_rejection,
    openai_completion,
    responses_reply,
)

__all__ = [
    "BROKEN_KINDS",
    "LLAMA_CPP_JSON_SCHEMA_REJECTION",
    "Broken",
    "ComputerCall",
    "Fault",
    "FunctionCall",
    "Refusal",
    "Reply",
    "ScriptedModelServer",
    "ScriptedReply",
    "ScriptedRequest",
]


NO_REPLY = Fault(500, "scripted model has no reply queued: call enqueue() before the request")


StructuredOutput: TypeAlias = Literal["json_schema", "json_object+schema", "json_object"]


class ScriptedModelServer:
    """A threaded HTTP server on 127.0.0.1 answering from a queue of scripted replies.

    `default` answers when the queue is empty (a value, Reply, Fault or callable).
    `structured_output` is the strongest OpenAI response_format the server plays:
    "json_schema" (OpenAI, llama.cpp's server, vLLM, Ollama) takes everything;
    "json_object+schema" (llama-cpp-python's server) refuses json_schema with an HTTP
    500 but takes `{"type": "json_object", "schema": ...}`; "json_object" takes only a
    bare json_object and refuses a schema beside it (HTTP 400). `reject_json_schema=True`
    is the llama-cpp-python dialect. Thread-safe.
    """

    def __init__(
        self,
        *,
        default: ScriptedReply = NO_REPLY,
        reject_json_schema: bool = False,
        structured_output: StructuredOutput = "json_schema",
    ) -> None:
        self.default = default
        self.structured_output: StructuredOutput = (
            "json_object+schema" if reject_json_schema else structured_output
        )
        self._queue: deque[ScriptedReply] = deque()
        self._requests: list[ScriptedRequest] = []
        self._responses: dict[str, ScriptedRequest] = {}  # Responses API id → its request
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def reject_json_schema(self) -> bool:
        return self.structured_output != "json_schema"

    @reject_json_schema.setter
    def reject_json_schema(self, value: bool) -> None:
        self.structured_output = "json_object+schema" if value else "json_schema"

    # --- lifecycle -------------------------------------------------------------------

    def start(self) -> ScriptedModelServer:
        if self._httpd is None:
            self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
            self._httpd.daemon_threads = True
            self._httpd.block_on_close = False
            self._thread = threading.Thread(
                target=self._httpd.serve_forever,
                kwargs={"poll_interval": 0.02},  # so stop() returns at once
                name="scripted-model",
                daemon=True,
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> ScriptedModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("the scripted model server is not started")
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def openai_base_url(self) -> str:
        return f"{self.url}/v1"

    @property
    def anthropic_base_url(self) -> str:
        return self.url

    @property
    def google_base_url(self) -> str:
        return self.url

    # --- scripting and records -------------------------------------------------------

    def enqueue(self, *replies: ScriptedReply) -> None:
        """Queue replies, answered one per request in order."""
        with self._lock:
            self._queue.extend(replies)

    def clear(self) -> None:
        """Drop the replies still queued (the requests received are kept)."""
        with self._lock:
            self._queue.clear()

    @property
    def pending(self) -> int:
        """Replies queued and not yet used."""
        with self._lock:
            return len(self._queue)

    @property
    def requests(self) -> list[ScriptedRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def calls(self) -> int:
        with self._lock:
            return len(self._requests)

    @property
    def last_request(self) -> ScriptedRequest:
        with self._lock:
            return self._requests[-1]

    # --- answering -------------------------------------------------------------------

    def _in_conversation(self, request: ScriptedRequest) -> ScriptedRequest:
        """A Responses request with the turns its previous_response_id continues."""
        with self._lock:
            before = self._responses.get(str(request.body.get("previous_response_id")))
        if before is None:
            return request
        return dataclasses.replace(request, earlier=(*before.earlier, before))

    def _next_reply(self, request: ScriptedRequest) -> Reply | Fault | Broken:
        with self._lock:
            self._requests.append(request)
            refusal = self._refusal(request)
            if refusal is not None:
                return refusal
            reply = self._queue.popleft() if self._queue else self.default
        if callable(reply) and not isinstance(reply, Reply | Fault | Broken):
            try:
                reply = reply(request)  # outside the lock: a scripted model may be slow
            except Exception as exc:  # a bug in the test's script: say so in the answer
                return Fault(500, f"scripted reply function raised {exc!r}")
        return reply if isinstance(reply, Reply | Fault | Broken) else Reply(reply)

    def _refusal(self, request: ScriptedRequest) -> Fault | None:
        """The error the played dialect gives a response_format it does not take."""
        if request.provider != "openai" or self.structured_output == "json_schema":
            return None
        if request.response_format == "json_schema":
            return llama_cpp_rejection()
        fmt = request.body.get("response_format") or {}
        if self.structured_output == "json_object" and "schema" in fmt:
            return Fault(400, EXTRA_SCHEMA_REJECTION)
        return None

    def _answer(self, request: ScriptedRequest) -> tuple[int, dict[str, str], bytes]:
        request = self._in_conversation(request)
        reply = self._next_reply(request)
        if isinstance(reply, Reply | Fault) and reply.delay:
            time.sleep(reply.delay)
        if isinstance(reply, Fault):
            return reply.status, reply.headers, json_bytes(error_body(request.provider, reply))
        if isinstance(reply, Broken):
            return broken_body(request, reply, next(self._ids))
        n = next(self._ids)
        if request.api == "responses":
            with self._lock:
                self._responses[f"resp_scripted_{n}"] = request
            return 200, {}, json_bytes(responses_reply(request, reply, n))
        if request.provider == "google":
            return 200, {}, json_bytes(gemini_reply(request, reply, n))
        if request.provider == "openai":
            return 200, {}, json_bytes(openai_completion(request, reply, n))
        return 200, {}, json_bytes(anthropic_message(request, reply, n))


def _handler_for(server: ScriptedModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "ScriptedModel/1"

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            path = self.path.split("?", 1)[0].rstrip("/")
            if path.endswith(("/chat/completions", "/responses")):
                provider: Provider = "openai"
            elif path.endswith("/v1/messages"):
                provider = "anthropic"
            elif path.endswith(":generateContent"):
                provider = "google"
            else:
                self._send(404, {}, {"error": {"message": f"scripted server: no route {path}"}})
                return
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                self._send(400, {}, {"error": {"message": "scripted server: body is not JSON"}})
                return
            headers = {
                k.lower(): v for k, v in self.headers.items() if k.lower() not in SECRET_HEADERS
            }
            request = ScriptedRequest(provider, path, headers, body)
            self._send(*server._answer(request))

        def _send(self, status: int, headers: dict[str, str], body: dict[str, Any] | bytes) -> None:
            data = body if isinstance(body, bytes) else json_bytes(body)
            headers = {"content-type": "application/json", **headers}
            try:
                self.send_response(status)
                self.send_header("content-length", str(len(data)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True  # the client gave up (a scripted timeout)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # quiet: tests assert on `requests`, not on logs

    return Handler
