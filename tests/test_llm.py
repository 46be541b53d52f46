"""The model layer, driven through the real openai and anthropic SDKs over HTTP.

Every answer here comes from the scripted model server on 127.0.0.1 (the
`scripted_model` fixture); no real provider is ever called.
"""

from __future__ import annotations

import base64
import json
import os

import fault_matrix
import pytest
from pydantic import BaseModel, Field, HttpUrl

from pytest_stagehand.errors import (
    BudgetExceeded,
    ConfigError,
    MissingApiKey,
    ModelAuthError,
    ModelError,
    ModelOutputError,
    ModelUnavailable,
)
from pytest_stagehand.model import openai_client
from pytest_stagehand.model.client import Message, ModelConfig
from pytest_stagehand.model.providers import create_client
from pytest_stagehand.model.usage import PriceTable, UsageLedger
from pytest_stagehand.testing.scripted_model import (
    LLAMA_CPP_JSON_SCHEMA_REJECTION,
    Broken,
    Fault,
    Reply,
    ScriptedModelServer,
)

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)
PROVIDERS = ["openai", "anthropic"]
MODELS = {"openai": "openai/gpt-4o-mini", "anthropic": "anthropic/claude-haiku-4-5"}


class Cart(BaseModel):
    items: int
    total: str


ASK = [Message("system", "You read shopping carts."), Message("user", "How many items?")]
GOOD = {"items": 1, "total": "$29.99"}


@pytest.fixture(autouse=True)
def no_real_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keys or base URLs from the developer's shell must not send a test anywhere real."""
    for name in (
        "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL",
        "GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL",
    ):  # fmt: skip
        monkeypatch.delenv(name, raising=False)


def client_for(server: ScriptedModelServer, provider: str, ledger=None, modes=None, **options):
    """A real client pointed at the scripted server, with millisecond backoff."""
    base_url = server.openai_base_url if provider == "openai" else server.anthropic_base_url
    options = {"backoff_base": 0.001, "backoff_cap": 0.005, **options}
    config = ModelConfig(options.pop("model", MODELS[provider]), base_url=base_url, **options)
    return create_client(config, ledger, modes)


def user_texts(body: dict) -> list[str]:
    texts = []
    for message in body["messages"]:
        content = message["content"]
        if isinstance(content, str):
            texts.append(content)
        else:
            texts.extend(block["text"] for block in content if block["type"] == "text")
    return texts


# --- structured output ---------------------------------------------------------------------


def test_openai_structured_output_uses_strict_json_schema(scripted_model):
    scripted_model.enqueue(GOOD)
    client = client_for(scripted_model, "openai")

    result = client.complete(ASK, Cart, purpose="extract")

    assert result.value == Cart(**GOOD)
    assert json.loads(result.raw) == GOOD
    body = scripted_model.last_request.body
    fmt = body["response_format"]
    assert fmt["type"] == "json_schema"
    assert fmt["json_schema"]["name"] == "Cart"
    assert fmt["json_schema"]["strict"] is True
    assert fmt["json_schema"]["schema"]["additionalProperties"] is False
    assert fmt["json_schema"]["schema"]["required"] == ["items", "total"]
    assert body["model"] == "gpt-4o-mini"
    assert body["temperature"] == 0
    assert body["seed"] == 0
    assert body["messages"][0] == {"role": "system", "content": "You read shopping carts."}


def test_anthropic_structured_output_is_a_forced_tool_call(scripted_model):
    scripted_model.enqueue(GOOD)
    client = client_for(scripted_model, "anthropic")

    result = client.complete(ASK, Cart)

    assert result.value == Cart(**GOOD)
    body = scripted_model.last_request.body
    assert body["tool_choice"] == {"type": "tool", "name": "Cart"}
    assert body["tools"][0]["input_schema"] == Cart.model_json_schema()
    assert body["system"] == "You read shopping carts."
    assert [m["role"] for m in body["messages"]] == ["user"]
    assert body["max_tokens"] == 4096


class Page(BaseModel):
    link: HttpUrl = Field(description="where it points")
    title: str = ""


class Loose(BaseModel):
    counts: dict[str, int]


def test_strict_schema_only_where_the_schema_allows(scripted_model):
    scripted_model.enqueue({"link": "https://example.com/", "title": "x"}, {"counts": {"a": 1}})
    client = client_for(scripted_model, "openai")

    assert str(client.complete(ASK, Page).value.link) == "https://example.com/"
    page_format = scripted_model.requests[0].body["response_format"]["json_schema"]
    assert page_format["strict"] is True
    link = page_format["schema"]["properties"]["link"]
    assert "format" not in link and "maxLength" not in link  # unsupported in strict mode
    assert page_format["schema"]["required"] == ["link", "title"]

    assert client.complete(ASK, Loose).value.counts == {"a": 1}
    loose_format = scripted_model.requests[1].body["response_format"]["json_schema"]
    assert loose_format["strict"] is False  # dict[str, int] cannot be strict
    assert loose_format["schema"] == Loose.model_json_schema()


class Folder(BaseModel):
    name: str
    parent: Folder | None = Field(default=None, description="the folder above")


class Point(BaseModel):
    xy: tuple[int, int]


def test_strict_schema_handles_recursive_models_and_skips_tuples(scripted_model):
    scripted_model.enqueue({"name": "b", "parent": {"name": "a", "parent": None}}, {"xy": [1, 2]})
    client = client_for(scripted_model, "openai")

    assert client.complete(ASK, Folder).value.parent.name == "a"
    folder = scripted_model.requests[0].body["response_format"]["json_schema"]
    assert folder["strict"] is True
    assert folder["schema"]["required"] == ["name", "parent"]
    assert folder["schema"]["$defs"]["Folder"]["additionalProperties"] is False

    assert client.complete(ASK, Point).value.xy == (1, 2)
    assert scripted_model.requests[1].body["response_format"]["json_schema"]["strict"] is False


@pytest.mark.parametrize(
    ("dialect", "modes"),
    [
        ("json_schema", ["json_schema"]),  # OpenAI, llama.cpp's server, vLLM, Ollama
        ("json_object+schema", ["json_schema", "json_object+schema"]),  # llama-cpp-python
        ("json_object", ["json_schema", "json_object+schema", "json_object"]),
    ],
)
def test_the_strongest_structured_output_mode_is_found_once_per_endpoint(
    scripted_model, dialect, modes
):
    scripted_model.structured_output = dialect
    scripted_model.enqueue(GOOD, {"items": 2, "total": "$1"})

    session = openai_client.EndpointModes()
    first, second = (
        client_for(scripted_model, "openai", modes=session, model="openai/qwen2.5-0.5b")
        .complete(ASK, Cart)
        for _ in range(2)
    )

    assert (first.value.items, second.value.items) == (1, 2)
    assert first.usage.retries == 0
    sent = [_mode(r.body["response_format"]) for r in scripted_model.requests]
    assert sent == [*modes, modes[-1]]  # probed on the first call only, then remembered
    chosen = scripted_model.last_request.body
    if dialect == "json_schema":
        assert chosen["response_format"]["json_schema"]["schema"]["required"] == ["items", "total"]
    else:  # the schema travels where the server takes it, and in the prompt as well
        schema_field = chosen["response_format"].get("schema")
        assert schema_field == (Cart.model_json_schema() if dialect != "json_object" else None)
        system = chosen["messages"][0]
        assert system["role"] == "system"
        assert system["content"].startswith("You read shopping carts.")
        assert json.dumps(Cart.model_json_schema()) in system["content"]


def _mode(response_format: dict) -> str:
    if response_format["type"] == "json_object" and "schema" in response_format:
        return "json_object+schema"
    return response_format["type"]


def test_each_endpoint_keeps_its_own_mode_for_all_of_a_sessions_clients(scripted_model):
    strict_server = scripted_model
    session = openai_client.EndpointModes()  # one per session, as the fixtures keep it
    with ScriptedModelServer(reject_json_schema=True) as llama_cpp_python:
        strict_server.enqueue(GOOD, GOOD)
        llama_cpp_python.enqueue(GOOD, GOOD)
        for _ in range(2):  # a client per test (a marker's model), each learning nothing anew
            for server in (llama_cpp_python, strict_server):
                client = client_for(server, "openai", modes=session, model="openai/local")
                client.complete(ASK, Cart)
        assert [_mode(r.body["response_format"]) for r in llama_cpp_python.requests] == [
            "json_schema",
            "json_object+schema",
            "json_object+schema",
        ]
    assert [_mode(r.body["response_format"]) for r in strict_server.requests] == ["json_schema"] * 2


def test_a_server_error_is_not_taken_for_a_refused_mode(scripted_model):
    scripted_model.enqueue(Fault(500, "scripted overload"), GOOD)
    client = client_for(scripted_model, "openai")

    assert client.complete(ASK, Cart).usage.retries == 1
    assert [r.response_format for r in scripted_model.requests] == ["json_schema"] * 2
    assert client.structured_mode == "json_schema"


def test_the_emulated_llama_cpp_rejection_is_what_the_sdk_sees(scripted_model):
    import openai

    scripted_model.reject_json_schema = True
    sdk = openai.OpenAI(api_key="x", base_url=scripted_model.openai_base_url, max_retries=0)
    with pytest.raises(openai.InternalServerError) as caught:
        sdk.chat.completions.create(
            model="m",
            messages=[{"role": "user", "content": "hi"}],
            response_format={"type": "json_schema", "json_schema": {"name": "x", "schema": {}}},
        )
    assert LLAMA_CPP_JSON_SCHEMA_REJECTION in str(caught.value)


# --- repair and invalid answers ---------------------------------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS)
def test_invalid_json_is_repaired_once(scripted_model, provider):
    scripted_model.enqueue('{"items": 1, "total": ', GOOD)
    client = client_for(scripted_model, provider)

    result = client.complete(ASK, Cart)

    assert result.value == Cart(**GOOD)
    assert scripted_model.calls == 2
    first, repair = (r.body for r in scripted_model.requests)
    assert repair["messages"][: len(first["messages"])] == first["messages"]
    assert repair["messages"][-2]["role"] == "assistant"
    assert user_texts(repair)[-2] == '{"items": 1, "total": '  # the model sees its answer
    assert "Invalid JSON" in user_texts(repair)[-1]  # and what was wrong with it


@pytest.mark.parametrize("provider", PROVIDERS)
def test_schema_violation_is_repaired_with_the_validation_error(scripted_model, provider):
    scripted_model.enqueue(
        Reply({"items": "several", "total": "$1"}, input_tokens=100, output_tokens=10),
        Reply(GOOD, input_tokens=130, output_tokens=12),
    )
    client = client_for(scripted_model, provider)

    result = client.complete(ASK, Cart)

    assert result.value == Cart(**GOOD)
    problem = user_texts(scripted_model.requests[1].body)[-1]
    assert "items" in problem and "integer" in problem
    assert (result.usage.input_tokens, result.usage.output_tokens) == (230, 22)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_second_invalid_answer_is_a_typed_error_with_what_came_back(scripted_model, provider):
    scripted_model.enqueue("I think there is one item.", "Still one item, honestly.")
    client = client_for(scripted_model, provider)

    with pytest.raises(ModelOutputError) as caught:
        client.complete(ASK, Cart, purpose="extract")

    assert caught.value.raw == "Still one item, honestly."
    assert "Still one item, honestly." in str(caught.value)
    assert "Cart" in str(caught.value) and "extract" in str(caught.value)
    assert scripted_model.calls == 2


@pytest.mark.parametrize("provider", PROVIDERS)
def test_truncated_answer_is_asked_again_with_more_room(scripted_model, provider):
    scripted_model.enqueue(Reply('{"items": 1, "to', finish_reason="length"), GOOD)
    client = client_for(scripted_model, provider)

    result = client.complete(ASK, Cart, max_tokens=50)

    assert result.value == Cart(**GOOD)
    first, second = (r.body for r in scripted_model.requests)
    limit = "max_tokens"
    assert (first[limit], second[limit]) == (50, 100)
    assert second["messages"] == first["messages"]  # the same question, not a conversation


@pytest.mark.parametrize("provider", PROVIDERS)
def test_truncated_twice_says_it_was_cut_off(scripted_model, provider):
    cut = Reply('{"items": 1, "to', finish_reason="length")
    scripted_model.enqueue(cut, cut)
    client = client_for(scripted_model, provider)

    with pytest.raises(ModelOutputError, match="cut off at the limit of 100 tokens") as caught:
        client.complete(ASK, Cart, max_tokens=50)
    assert caught.value.raw == '{"items": 1, "to'


def test_json_in_a_code_fence_is_accepted(scripted_model):
    scripted_model.enqueue(f"```json\n{json.dumps(GOOD)}\n```")
    assert client_for(scripted_model, "openai").complete(ASK, Cart).value == Cart(**GOOD)
    assert scripted_model.calls == 1


# --- faults ------------------------------------------------------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS)
def test_rate_limit_then_success(scripted_model, provider):
    scripted_model.enqueue(Fault(429), Fault(503), GOOD)
    client = client_for(scripted_model, provider)

    result = client.complete(ASK, Cart)

    assert result.value == Cart(**GOOD)
    assert scripted_model.calls == 3
    assert result.usage.retries == 2


@pytest.mark.parametrize("provider", PROVIDERS)
def test_server_errors_exhaust_the_bounded_retries(scripted_model, provider):
    scripted_model.default = Fault(500, "scripted overload")
    client = client_for(scripted_model, provider, max_retries=2)

    with pytest.raises(ModelUnavailable) as caught:
        client.complete(ASK, Cart)

    assert scripted_model.calls == 3
    message = str(caught.value)
    assert "HTTP 500" in message and "scripted overload" in message
    assert "3 attempts" in message and scripted_model.url in message


def test_backoff_grows_is_jittered_and_bounded(scripted_model):
    client = client_for(scripted_model, "openai", backoff_base=1.0, backoff_cap=5.0)
    delays = [[client._backoff(retry, None) for _ in range(50)] for retry in range(5)]
    assert all(0.5 <= d <= 1.0 for d in delays[0])
    assert all(1.0 <= d <= 2.0 for d in delays[1])
    assert all(2.5 <= d <= 5.0 for d in delays[4])  # capped
    assert len(set(delays[2])) > 1  # jittered
    assert client._backoff(0, retry_after=3.0) == 3.0
    assert client._backoff(0, retry_after=60.0) == 5.0  # Retry-After is bounded too


@pytest.mark.parametrize("provider", PROVIDERS)
def test_timeout_is_retried_then_reported(scripted_model, provider):
    late = Fault.timeout(4.0)
    scripted_model.enqueue(late, GOOD, late, late)
    client = client_for(scripted_model, provider, timeout=1.0, max_retries=1)  # GOOD fits

    assert client.complete(ASK, Cart).usage.retries == 1
    with pytest.raises(ModelUnavailable, match=r"no answer within 1s"):
        client.complete(ASK, Cart)
    assert scripted_model.calls == 4


# Replies with status 200 that are no reply: retried like a 5xx, then a typed error.
UNUSABLE = {
    "not_json": "a body that is not JSON",
    "truncated_body": "a body that is not JSON",
    "html": "an HTML page",
    "error_object": "an error object (model overloaded)",
    "missing_fields": "without",  # a choice without a message, a reply without content
    "empty_body": "an empty body",
}
UNUSABLE_CASES = [(provider, kind) for provider in PROVIDERS for kind in UNUSABLE] + [
    ("openai", "empty_choices"),
    ("anthropic", "null_content"),
]


@pytest.mark.parametrize(("provider", "kind"), UNUSABLE_CASES)
def test_an_unusable_reply_is_retried(scripted_model, provider, kind):
    scripted_model.enqueue(Broken(kind), GOOD)
    result = client_for(scripted_model, provider).complete(ASK, Cart)
    assert result.value == Cart(**GOOD)
    assert result.usage.retries == 1


@pytest.mark.parametrize(("provider", "kind"), UNUSABLE_CASES)
def test_unusable_replies_end_as_unavailable_with_what_came_back(scripted_model, provider, kind):
    scripted_model.default = Broken(kind)
    client = client_for(scripted_model, provider, max_retries=1)

    with pytest.raises(ModelUnavailable) as caught:
        client.complete(ASK, Cart)

    message = str(caught.value)
    assert "HTTP 200 but" in message and UNUSABLE.get(kind, "a reply without") in message
    assert "sent 2 replies that are not answers" in message and "--ai-base-url" in message
    assert caught.value.raw is not None
    assert caught.value.raw[:20] in message  # what came back, shown (shortened)
    if kind == "html":
        assert "502 Bad Gateway" in caught.value.raw
    assert scripted_model.calls == 2


def test_the_key_is_masked_in_what_came_back(scripted_model):
    key = "sk-scripted-key-42"
    scripted_model.default = Fault(200, {"error": {"message": f"bad key {key}"}})
    client = client_for(scripted_model, "openai", max_retries=0, api_key=key)
    with pytest.raises(ModelUnavailable) as caught:
        client.complete(ASK, Cart)
    assert key not in str(caught.value) and key not in (caught.value.raw or "")
    assert "bad key ***" in str(caught.value)


@pytest.mark.parametrize(
    ("provider", "kind"), [("openai", "null_content"), ("anthropic", "empty_choices")]
)
def test_an_empty_answer_is_repaired_then_an_output_error(scripted_model, provider, kind):
    scripted_model.enqueue(Broken(kind), GOOD)
    assert client_for(scripted_model, provider).complete(ASK, Cart).value == Cart(**GOOD)

    scripted_model.default = Broken(kind)
    with pytest.raises(ModelOutputError, match=r"It answered: \(nothing\)"):
        client_for(scripted_model, provider).complete(ASK, Cart, purpose="extract")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_cut_off_from_a_full_context_names_the_context(scripted_model, provider):
    # The server stopped at 300 of the 4096 tokens allowed: its context (2048) was full.
    scripted_model.enqueue(
        Reply('{"items": 1, "to', finish_reason="length", input_tokens=1748, output_tokens=300)
    )
    with pytest.raises(ModelOutputError) as caught:
        client_for(scripted_model, provider).complete(ASK, Cart)
    message = str(caught.value)
    assert "cut off after 300 tokens, before the limit of 4096" in message
    assert "context was full (1748 prompt + 300 answer = 2048 tokens)" in message
    assert "--ctx-size" in message
    assert scripted_model.calls == 1  # more room would not help: not asked again


def test_a_prompt_too_long_for_the_context_says_so(scripted_model):
    scripted_model.default = Fault(
        400, "This model's maximum context length is 2048 tokens. However, you requested 5012"
    )
    with pytest.raises(ModelError, match=r"larger one .*--n_ctx") as caught:
        client_for(scripted_model, "openai").complete(ASK, Cart)
    assert "--ai-model" not in str(caught.value)


def test_a_timeout_advises_the_timeout_and_the_retries(scripted_model):
    scripted_model.default = Fault.timeout(1.0)
    client = client_for(scripted_model, "openai", timeout=0.2, max_retries=0)
    with pytest.raises(ModelUnavailable) as caught:
        client.complete(ASK, Cart)
    message = str(caught.value)
    assert "raise --ai-timeout" in message and "now 0.2s" in message
    assert "single-slot" in message and "--ai-retries" in message


@pytest.mark.parametrize("provider", PROVIDERS)
def test_errors_carry_the_usage_of_the_calls_answered_before_them(scripted_model, provider):
    ledger = UsageLedger(prices=PriceTable())
    bad = Reply("not a cart", input_tokens=1000, output_tokens=20)
    scripted_model.enqueue(bad, bad)
    with pytest.raises(ModelOutputError) as invalid:
        client_for(scripted_model, provider, ledger).complete(ASK, Cart)
    calls = invalid.value.calls
    assert [(c.input_tokens, c.output_tokens) for c in calls] == [(1000, 20), (1000, 20)]
    assert all(c.cost_usd is not None and c.cost_usd > 0 for c in calls)

    scripted_model.enqueue(bad)
    scripted_model.default = Fault(503)
    with pytest.raises(ModelUnavailable) as unavailable:  # the repair call never answered
        client_for(scripted_model, provider, ledger, max_retries=0).complete(ASK, Cart)
    assert [c.input_tokens for c in unavailable.value.calls] == [1000]
    assert ledger.session.calls == 3

    with pytest.raises(ModelUnavailable) as nothing_answered:
        client_for(scripted_model, provider, max_retries=0).complete(ASK, Cart)
    assert nothing_answered.value.calls == []


def test_a_repaired_answer_lists_both_calls(scripted_model):
    scripted_model.enqueue(Reply("no", input_tokens=10, output_tokens=1), GOOD)
    result = client_for(scripted_model, "openai").complete(ASK, Cart)
    assert len(result.calls) == 2 and result.calls[0].input_tokens == 10
    assert result.usage.input_tokens == 10 + result.calls[1].input_tokens


def test_the_repair_log_names_what_was_asked_for(scripted_model, caplog):
    scripted_model.enqueue("not json", GOOD)
    with caplog.at_level("INFO", logger="pytest_stagehand.model.client"):
        client_for(scripted_model, "openai").complete(ASK, Cart)
    assert "invalid answer for Cart, one repair attempt" in caplog.text


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("status", [401, 403])
def test_refused_key_fails_at_once_naming_the_variable(scripted_model, provider, status):
    secret = "sk-scripted-secret-123"
    scripted_model.default = Fault(status, f"Incorrect API key provided: {secret}")
    base_url = scripted_model.openai_base_url if provider == "openai" else scripted_model.url
    client = create_client(ModelConfig(MODELS[provider], api_key=secret, base_url=base_url))

    with pytest.raises(ModelAuthError) as caught:
        client.complete(ASK, Cart)

    assert scripted_model.calls == 1  # not retried
    variable = "OPENAI_API_KEY" if provider == "openai" else "ANTHROPIC_API_KEY"
    assert variable in str(caught.value)
    assert f"HTTP {status}" in str(caught.value)
    assert secret not in str(caught.value) and "***" in str(caught.value)
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


def test_other_client_errors_are_not_retried(scripted_model):
    scripted_model.default = Fault(404, "model 'nope' not found")
    with pytest.raises(ModelError, match="model 'nope' not found") as caught:
        client_for(scripted_model, "openai").complete(ASK, Cart)
    assert type(caught.value) is ModelError
    assert scripted_model.calls == 1


def test_unreachable_server_is_unavailable_not_a_crash(scripted_model):
    client = client_for(scripted_model, "openai", max_retries=1)
    scripted_model.stop()
    with pytest.raises(ModelUnavailable, match="could not connect"):
        client.complete(ASK, Cart)


# --- keys and configuration -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "variable"),
    [
        ("openai/gpt-4o-mini", "OPENAI_API_KEY"),
        ("anthropic/claude-sonnet-4-5", "ANTHROPIC_API_KEY"),
        ("google/gemini-2.5-flash", "GEMINI_API_KEY or GOOGLE_API_KEY"),
    ],
)
def test_missing_key_is_reported_before_any_call(model, variable):
    config = ModelConfig(model)
    with pytest.raises(MissingApiKey, match=variable) as caught:
        config.check_credentials()
    assert "--ai-api-key" in str(caught.value)
    with pytest.raises(MissingApiKey):
        create_client(config)


def test_keys_come_from_the_environment_unless_given(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    assert ModelConfig("openai/gpt-4o").resolved_api_key() == "sk-from-env"
    assert ModelConfig("openai/gpt-4o", api_key="sk-option").resolved_api_key() == "sk-option"
    ModelConfig("openai/gpt-4o").check_credentials()  # no error
    monkeypatch.setenv("GOOGLE_API_KEY", "google-from-env")  # what google-genai reads too
    assert ModelConfig("google/gemini-2.5-flash").resolved_api_key() == "google-from-env"
    monkeypatch.setenv("GEMINI_API_KEY", "gemini-from-env")
    assert ModelConfig("google/gemini-2.5-flash").resolved_api_key() == "gemini-from-env"


def test_a_google_model_answers_through_google_genai_with_faults_retried(scripted_model):
    pytest.importorskip(
        "google.genai", reason="google/ models need: pip install 'pytest-stagehand[google]'"
    )
    scripted_model.enqueue(Fault(429), Broken("html"), Fault(500), GOOD)
    config = ModelConfig(
        "google/scripted-gemini", base_url=scripted_model.google_base_url, backoff_base=0.01
    )
    with create_client(config) as client:
        answer = client.complete(ASK, Cart)
    assert answer.value == Cart(**GOOD) and answer.usage.retries == 3
    request = scripted_model.last_request
    assert request.path.endswith("/models/scripted-gemini:generateContent")
    assert request.body["generationConfig"]["responseJsonSchema"] == Cart.model_json_schema()
    assert request.body["systemInstruction"]["parts"][0]["text"] == ASK[0].text
    assert request.body["contents"] == [{"role": "user", "parts": [{"text": ASK[1].text}]}]


def test_local_server_needs_no_key(scripted_model, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", scripted_model.openai_base_url)
    config = ModelConfig("openai/llama3.2")
    config.check_credentials()
    scripted_model.enqueue(GOOD)
    assert create_client(config).complete(ASK, Cart).value == Cart(**GOOD)
    assert scripted_model.last_request.path == "/v1/chat/completions"


def test_the_key_never_shows(scripted_model):
    secret = "sk-scripted-never-shown"
    config = ModelConfig(
        "openai/gpt-4o", api_key=secret, base_url=f"http://u:pw@127.0.0.1:1/v1?api-key={secret}"
    )
    client = create_client(config)
    assert secret not in repr(config) and secret not in repr(client)
    assert config.endpoint == "http://127.0.0.1:1/v1"  # no userinfo, no query


@pytest.mark.parametrize("model", ["gpt-4o", "azure/gpt-4o", "openai/", ""])
def test_model_string_needs_a_known_provider(model):
    with pytest.raises(ConfigError, match="--ai-model"):
        ModelConfig(model)


def test_model_names_may_contain_slashes():
    config = ModelConfig("openai/meta-llama/Llama-3.2-1B-Instruct", base_url="http://127.0.0.1:1")
    assert (config.provider, config.name) == ("openai", "meta-llama/Llama-3.2-1B-Instruct")


def test_reasoning_models_get_no_temperature_but_a_seed(scripted_model):
    scripted_model.enqueue(GOOD)
    client_for(scripted_model, "openai", model="openai/o4-mini", seed=7).complete(ASK, Cart)
    body = scripted_model.last_request.body
    assert "temperature" not in body and body["seed"] == 7


def test_images_only_in_user_messages():
    with pytest.raises(ValueError, match="user messages"):
        Message("system", "look", (PNG,))


# --- images --------------------------------------------------------------------------------


def test_openai_image_wire_shape(scripted_model):
    scripted_model.enqueue(GOOD)
    client_for(scripted_model, "openai").complete(
        [Message("user", "What is in the cart?", images=(PNG,))], Cart
    )
    request = scripted_model.last_request
    content = request.body["messages"][0]["content"]
    assert content[0] == {"type": "text", "text": "What is in the cart?"}
    assert content[1]["type"] == "image_url"
    assert content[1]["image_url"]["url"].startswith("data:image/png;base64,")
    assert request.images == [PNG]


def test_anthropic_image_wire_shape(scripted_model):
    scripted_model.enqueue(GOOD)
    client_for(scripted_model, "anthropic").complete(
        [Message("user", "What is in the cart?", images=(PNG,))], Cart
    )
    request = scripted_model.last_request
    image = request.body["messages"][0]["content"][1]
    assert image["type"] == "image"
    assert image["source"]["type"] == "base64"
    assert image["source"]["media_type"] == "image/png"
    assert request.images == [PNG]


# --- usage, cost, budget -------------------------------------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS)
def test_usage_is_normalised_and_priced(scripted_model, provider):
    prices = PriceTable(defaults=False)
    prices.register(MODELS[provider], input=2.0, output=10.0, cached=0.5)
    ledger = UsageLedger(prices=prices)
    scripted_model.enqueue(Reply(GOOD, input_tokens=1000, output_tokens=200, cached_tokens=400))

    usage = client_for(scripted_model, provider, ledger).complete(ASK, Cart, purpose="act").usage

    # Anthropic reports cache reads apart from input_tokens; both come out the same here.
    assert (usage.input_tokens, usage.output_tokens, usage.cached_tokens) == (1000, 200, 400)
    assert usage.cost_usd == pytest.approx((600 * 2.0 + 400 * 0.5 + 200 * 10.0) / 1e6)
    assert usage.model == MODELS[provider] and usage.purpose == "act"
    assert usage.latency_s > 0
    assert ledger.session.cost_usd == usage.cost_usd


def test_usage_sums_per_test_and_session(scripted_model):
    ledger = UsageLedger()
    client = client_for(scripted_model, "openai", ledger)
    scripted_model.enqueue(
        *(Reply(GOOD, input_tokens=1_000_000, output_tokens=0) for _ in range(3))
    )

    ledger.begin_test("t1")
    client.complete(ASK, Cart)
    client.complete(ASK, Cart)
    first = ledger.end_test()
    ledger.begin_test("t2")
    client.complete(ASK, Cart)
    second = ledger.end_test()

    assert (first.calls, second.calls, ledger.session.calls) == (2, 1, 3)
    assert first.cost_usd == pytest.approx(0.30)  # gpt-4o-mini: $0.15 per 1M input tokens
    assert ledger.session.cost_usd == pytest.approx(0.45)
    assert ledger.session.input_tokens == 3_000_000
    assert set(ledger.tests) == {"t1", "t2"}


def test_unknown_model_cost_is_none_not_zero(scripted_model):
    ledger = UsageLedger()
    scripted_model.enqueue(GOOD)
    usage = client_for(scripted_model, "openai", ledger, model="openai/my-finetune").complete(
        ASK, Cart
    )
    assert usage.usage.cost_usd is None
    assert ledger.session.unpriced_calls == 1


def test_budget_stops_further_calls(scripted_model):
    ledger = UsageLedger(max_cost=0.10)
    client = client_for(scripted_model, "openai", ledger)
    scripted_model.default = Reply(GOOD, input_tokens=1_000_000, output_tokens=0)  # $0.15 each

    client.complete(ASK, Cart)  # crosses the budget: paid for, so it is kept
    with pytest.raises(BudgetExceeded, match="--ai-max-cost"):
        client.complete(ASK, Cart)
    assert scripted_model.calls == 1


def test_a_test_budget_stops_calls_in_that_test_only(scripted_model):
    ledger = UsageLedger()
    client = client_for(scripted_model, "anthropic", ledger, model="anthropic/claude-haiku-4-5")
    scripted_model.default = Reply(GOOD, input_tokens=10_000, output_tokens=0)  # $0.01 each

    ledger.begin_test("tests/test_shop.py::test_cart", max_cost=0.015)
    client.complete(ASK, Cart)
    client.complete(ASK, Cart)
    with pytest.raises(BudgetExceeded, match="test_cart"):
        client.complete(ASK, Cart)
    ledger.end_test()
    ledger.begin_test("tests/test_shop.py::test_next")
    client.complete(ASK, Cart)
    assert scripted_model.calls == 3


def test_budget_also_guards_the_repair_call(scripted_model):
    ledger = UsageLedger(max_cost=0.10)
    scripted_model.enqueue(Reply("not json", input_tokens=1_000_000, output_tokens=0), GOOD)
    with pytest.raises(BudgetExceeded):
        client_for(scripted_model, "openai", ledger).complete(ASK, Cart)
    assert scripted_model.calls == 1


# --- memo ----------------------------------------------------------------------------------


def test_memo_answers_identical_requests_for_free(scripted_model, tmp_path):
    ledger = UsageLedger()
    client = client_for(scripted_model, "openai", ledger, memo_dir=tmp_path / "memo")
    scripted_model.enqueue(GOOD, {"items": 5, "total": "$5"})

    first = client.complete(ASK, Cart)
    again = client_for(scripted_model, "openai", ledger, memo_dir=tmp_path / "memo").complete(
        ASK, Cart
    )
    other = client.complete([*ASK, Message("user", "And now?")], Cart)

    assert again.value == first.value and again.raw == first.raw
    assert again.usage.memo_hit and again.usage.cost_usd == 0 and again.usage.input_tokens == 0
    assert other.value.items == 5
    assert scripted_model.calls == 2
    assert ledger.session.memo_hits == 1


def test_memo_is_off_by_default(scripted_model):
    scripted_model.enqueue(GOOD, GOOD)
    client = client_for(scripted_model, "openai")
    client.complete(ASK, Cart)
    client.complete(ASK, Cart)
    assert scripted_model.calls == 2


# --- the scripted server itself -------------------------------------------------------------


def test_scripted_answer_can_read_the_prompt(scripted_model):
    scripted_model.default = lambda request: {
        "items": request.text.count("backpack"),
        "total": request.model,
    }
    result = client_for(scripted_model, "anthropic").complete(
        [Message("user", "cart: backpack, backpack, bike light")], Cart
    )
    assert result.value == Cart(items=2, total="claude-haiku-4-5")


def test_scripted_server_says_when_nothing_is_queued(scripted_model):
    with pytest.raises(ModelUnavailable, match="no reply queued"):
        client_for(scripted_model, "openai", max_retries=0).complete(ASK, Cart)


def test_scripted_server_keeps_no_secrets(scripted_model):
    scripted_model.enqueue(GOOD, GOOD)
    for provider in PROVIDERS:
        base_url = scripted_model.openai_base_url if provider == "openai" else scripted_model.url
        config = ModelConfig(MODELS[provider], api_key="sk-scripted-secret", base_url=base_url)
        create_client(config).complete(ASK, Cart)
    for request in scripted_model.requests:
        assert "sk-scripted-secret" not in json.dumps(request.headers)
        assert "user-agent" in request.headers
    assert [r.provider for r in scripted_model.requests] == PROVIDERS


def test_a_failing_scripted_answer_is_reported_not_swallowed(scripted_model):
    def broken(request):
        raise LookupError("no element id in the prompt")

    scripted_model.default = broken
    with pytest.raises(ModelUnavailable, match="no element id in the prompt"):
        client_for(scripted_model, "openai", max_retries=0).complete(ASK, Cart)


# --- a real local model (optional) ------------------------------------------------------------


@pytest.mark.local_model
def test_structured_output_from_a_real_local_model():
    """Set STAGEHAND_LOCAL_MODEL_URL to a llama.cpp-compatible server's /v1 to run this."""
    url = os.environ.get("STAGEHAND_LOCAL_MODEL_URL")
    if not url:
        pytest.skip("STAGEHAND_LOCAL_MODEL_URL is not set")
    model = os.environ.get("STAGEHAND_LOCAL_MODEL", "openai/local")
    client = create_client(ModelConfig(model, base_url=url, timeout=300))

    class Answer(BaseModel):
        city: str
        country: str

    result = client.complete(
        [Message("user", "Which city is the capital of France? Answer as JSON.")], Answer
    )
    assert "paris" in result.value.city.lower()


# --- how a model failure reads in pytest ------------------------------------------------------

OUTAGE_TEST = """
def test_total(ai_page):
    ai_page.set_content("<p>Total: $5</p>")
    ai_page.extract("the total")
"""


def _failure_section(output: str) -> list[str]:
    """The lines pytest prints for the one failing test, header to the next section."""
    lines = output.splitlines()
    start = next(
        i for i, line in enumerate(lines) if line.startswith("___") and "test_total" in line
    )
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith(("___", "===")))
    return lines[start:end]


def test_an_outage_reads_in_a_few_lines_message_and_advice_first(pytester, scripted_model):
    scripted_model.default = Fault(503, "scripted overload")
    pytester.makepyfile(test_outage=OUTAGE_TEST)
    options = [
        "-p",
        "no:cacheprovider",
        "--ai-model=openai/scripted",
        "--ai-retries=1",
        f"--ai-base-url={scripted_model.openai_base_url}",
        "--ai-cache=off",
    ]

    result = pytester.runpytest_subprocess(*options)

    result.assert_outcomes(failed=1)
    section = _failure_section(result.stdout.str())
    assert len(section) <= 15, "\n".join(section)
    errors = [line for line in section if line.startswith("E ")]
    assert errors[0].split()[1:3] == [
        "pytest_stagehand.errors.ModelUnavailable:",
        "openai/scripted",
    ]
    assert "kept failing (HTTP 503: scripted overload) after 2 attempts" in errors[0]
    assert "try again later" in errors[0]
    assert any('ai_page.extract("the total")' in line for line in section)  # the test's line
    assert "InternalServerError" not in result.stdout.str()

    chained = pytester.runpytest_subprocess(*options, "-vv")
    assert "openai.InternalServerError" in chained.stdout.str()  # the chain, when asked for
    assert "openai_client.py" in chained.stdout.str()


# --- the fault matrix: every operation, both wires ---------------------------------------------


@pytest.mark.parametrize("operation", fault_matrix.OPERATIONS)
@pytest.mark.parametrize("wire", fault_matrix.WIRES)
def test_every_model_fault_ends_recovered_or_in_a_typed_error(
    page, scripted_model, wire, operation
):
    """Each fault (HTTP errors, timeouts, bad answers, replies that are no reply) once and on
    every call: once is recovered from, always is a typed error. bench/bench_faults.py
    prints the counts over the same matrix."""
    cases = [case for case in fault_matrix.cases((operation,)) if case.wire == wire]
    with fault_matrix.fault_page(page, scripted_model, wire) as ai_page:
        results = [fault_matrix.run_case(ai_page, scripted_model, case) for case in cases]
    wrong = [
        f"{r.case.name}: {r.outcome} ({r.detail})"
        for r in results
        if r.outcome != fault_matrix.expected(r.case)
    ]
    assert not wrong, "\n".join(wrong)
    assert len(results) == 2 * len(fault_matrix.FAULTS)
