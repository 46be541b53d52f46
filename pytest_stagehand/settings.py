"""One settings object, resolved option > marker > ini > environment > default.

Every setting is declared once in `OPTIONS`; the command-line options, ini keys,
environment variables, `@pytest.mark.ai(...)` arguments and the reference in
docs/reference.md all come from that table, so they cannot drift apart.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from pytest_stagehand.errors import ConfigError

CacheMode = Literal["auto", "offline", "refresh", "off"]
CACHE_MODES: tuple[str, ...] = ("auto", "offline", "refresh", "off")
SCREENSHOT_MODES: tuple[str, ...] = ("off", "on-failure", "every-step")
JudgeInputs = Literal["auto", "both"]  # evaluator (issue 6)
JUDGE_INPUTS: tuple[str, ...] = ("auto", "both")
VisionMode = Literal["fallback", "off", "always"]  # vision (issue 17)
VISION_MODES: tuple[str, ...] = ("fallback", "off", "always")
AgentMode = Literal["dom", "cua"]  # computer-use agents (issue 17)
AGENT_MODES: tuple[str, ...] = ("dom", "cua")

# Which model to use when only a key is present in the environment.
DEFAULT_BUDGET = 6_000  # tokens of page outline in one prompt
MIN_BUDGET = 1_000

DEFAULT_MODELS = {
    "OPENAI_API_KEY": "openai/gpt-4.1-mini",
    "ANTHROPIC_API_KEY": "anthropic/claude-sonnet-4-5",
}


def _positive_float(text: str) -> float:
    value = float(text)
    if value <= 0:
        raise ValueError("must be greater than 0")
    return value


def _cost(text: str) -> float:
    value = float(text)
    if value < 0:
        raise ValueError("must be a cost in USD, 0 or more")
    return value


def _non_negative_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise ValueError("must be 0 or more")
    return value


def _milliseconds(text: str) -> float:
    value = float(text)
    if value < 0:
        raise ValueError("must be a time in milliseconds, 0 or more")
    return value


def _prompt_budget(text: str) -> int:
    value = int(text)
    if value < MIN_BUDGET:
        raise ValueError(
            f"must be at least {MIN_BUDGET} tokens: the instructions of a prompt alone take "
            "about 800"
        )
    return value


def _bool(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off", ""):
        return False
    raise ValueError("must be true or false")


def _choice(choices: tuple[str, ...]) -> Callable[[str], str]:
    def parse(text: str) -> str:
        if text not in choices:
            raise ValueError(f"must be one of {', '.join(choices)}")
        return text

    return parse


def _text(text: str) -> str | None:
    return text.strip() or None


def _endpoint(*schemes: str) -> Callable[[str], str | None]:
    def parse(text: str) -> str | None:
        url = text.strip()
        if url and not url.startswith(tuple(f"{scheme}://" for scheme in schemes)):
            raise ValueError(f"must be a URL starting with {' or '.join(schemes)}://")
        return url or None

    return parse


def _shard(text: str) -> tuple[int, int] | None:
    """ "2/3" → (2, 3): the second of three shards."""
    if not text.strip():
        return None
    index, slash, count = text.strip().partition("/")
    if not (slash and index.isdigit() and count.isdigit() and 1 <= int(index) <= int(count)):
        raise ValueError("must be i/n with 1 <= i <= n, e.g. 2/3")
    return int(index), int(count)


def _origins(text: str) -> tuple[str, ...]:
    return tuple(text.replace(",", " ").split())


@dataclass(frozen=True)
class Option:
    """One setting: where it can be given, how it is parsed, what it means."""

    name: str  # attribute on Settings and keyword of @pytest.mark.ai
    flag: str
    ini: str
    env: str | None
    parse: Callable[[str], Any]
    default: Any
    help: str
    secret: bool = False
    is_flag: bool = False  # a bare --flag meaning true


OPTIONS: tuple[Option, ...] = (
    Option(
        "model", "--ai-model", "ai_model", "STAGEHAND_MODEL", _text, None,
        "Model as provider/name, e.g. openai/gpt-4.1-mini or anthropic/claude-sonnet-4-5. "
        "Default: picked from OPENAI_API_KEY or ANTHROPIC_API_KEY when set; else no model "
        "(replay only).",
    ),
    Option(
        "base_url", "--ai-base-url", "ai_base_url", "STAGEHAND_BASE_URL", _text, None,
        "Base URL of an OpenAI-compatible server (Ollama, vLLM, llama.cpp, LM Studio, a "
        "gateway). OPENAI_BASE_URL / ANTHROPIC_BASE_URL are honoured too.",
    ),
    Option(
        "api_key", "--ai-api-key", "ai_api_key", None, _text, None,
        "API key for the model's provider. Prefer OPENAI_API_KEY / ANTHROPIC_API_KEY.",
        secret=True,
    ),
    Option(
        "cache", "--ai-cache", "ai_cache", "STAGEHAND_CACHE", _choice(CACHE_MODES), "auto",
        "Recorded steps: auto (replay, resolve misses with the model, record), offline "
        "(never call a model; a miss fails), refresh (re-resolve and re-record every "
        "step), off (always ask the model, record nothing).",
    ),
    Option(
        "prune", "--ai-prune", "ai_prune", None, _bool, False,
        "Remove recordings no test used in this run (only after a full, green run).",
        is_flag=True,
    ),
    Option(
        "cache_per_origin", "--ai-cache-per-origin", "ai_cache_per_origin", None, _bool, False,
        "Key recordings by origin too. By default a step recorded on one host (staging) "
        "replays on another (production) with the same path.",
        is_flag=True,
    ),
    Option(
        "cache_dir", "--ai-cache-dir", "ai_cache_dir", "STAGEHAND_CACHE_DIR", _text,
        ".stagehand",
        "Working directory for the shared selector store and the response memo "
        "(not committed; relative to the rootdir).",
    ),
    Option(
        "max_cost", "--ai-max-cost", "ai_max_cost", "STAGEHAND_MAX_COST", _cost,
        None,
        "Budget in USD for model calls in this session; further calls fail once it is "
        "spent. @pytest.mark.ai(max_cost=...) sets a per-test budget.",
    ),
    Option(
        "memo", "--ai-memo", "ai_memo", "STAGEHAND_MEMO", _bool, False,
        "Memoise model responses on disk by full request, so identical requests during "
        "development cost nothing.",
        is_flag=True,
    ),
    Option(
        "model_timeout", "--ai-timeout", "ai_timeout", "STAGEHAND_TIMEOUT", _positive_float,
        60.0, "Seconds to wait for one model response before retrying.",
    ),
    Option(
        "wait_timeout", "--ai-wait-timeout", "ai_wait_timeout", "STAGEHAND_WAIT_TIMEOUT",
        _milliseconds, 5000.0,
        "Milliseconds act, observe, extract and assert_that wait for what they look for to "
        "appear (retried on each page change, like Playwright's locators and expect); 0 "
        "does not wait. A step's own timeout= overrides it. (--ai-timeout is the model's.)",
    ),
    Option(
        "model_retries", "--ai-retries", "ai_retries", "STAGEHAND_RETRIES", _non_negative_int,
        3, "Retries for 429, 5xx and timeouts, with exponential backoff and jitter.",
    ),
    Option(
        "prompt_budget", "--ai-prompt-budget", "ai_prompt_budget", "STAGEHAND_PROMPT_BUDGET",
        _prompt_budget, DEFAULT_BUDGET,
        "Most tokens an act, observe or assertion prompt may take. A larger page is sent in "
        "parts, the parts most relevant to the instruction first; a further part only when "
        "the model found no answer in the first.",
    ),
    Option(
        "screenshots", "--ai-screenshots", "ai_screenshots", None,
        _choice(SCREENSHOT_MODES), "on-failure",
        "Screenshots for reports and evidence: off, on-failure or every-step.",
    ),
    Option(
        "evidence_dir", "--ai-evidence", "ai_evidence", "STAGEHAND_EVIDENCE", _text, None,
        "Write an evidence folder per test (action log JSON and screenshots) under this "
        "directory.",
    ),
    Option(
        "report", "--ai-report", "ai_report", "STAGEHAND_REPORT", _text, None,
        "Write one self-contained HTML report of the run to this file: every test's AI "
        "steps with a screenshot after each, the chosen element outlined, heals, prompts "
        "and answers, tokens, cost and time.",
    ),
    Option(
        "export_dir", "--ai-export", "ai_export", None, _text, None,
        "Write each test module that ran as a plain pytest-playwright module, "
        "<module>_playwright.py, into this directory (see python -m pytest_stagehand "
        "export).",
    ),
    Option(
        "allowed_origins", "--ai-allowed-origins", "ai_allowed_origins", None, _origins, (),
        "Origins the agent may navigate to, space or comma separated. Default: the base "
        "URL's origin (or the first page's).",
    ),
    Option(
        "agent_mode", "--ai-agent-mode", "ai_agent_mode", "STAGEHAND_AGENT_MODE",
        _choice(AGENT_MODES), "dom",
        "How the agent fixture reaches goals: dom (tools over the page's elements) or cua "
        "(the provider's own computer-use tool, acting on screenshots).",
    ),
    Option(
        "cua_model", "--ai-cua-model", "ai_cua_model", "STAGEHAND_CUA_MODEL", _text, None,
        "Model for agent runs in mode cua, e.g. openai/computer-use-preview, "
        "anthropic/claude-sonnet-4-5 or google/gemini-2.5-computer-use-preview-10-2025 "
        "(pytest-stagehand[google]), at the same --ai-base-url. Default: --ai-model.",
    ),
    Option(
        "browser_executable_path", "--browser-executable-path", "browser_executable_path",
        "STAGEHAND_BROWSER_PATH", _text, None,
        "Chromium/Chrome binary to launch. Default: Playwright's own, else a system "
        "Chromium or Chrome found on PATH or at the usual paths.",
    ),
    Option(
        "connect", "--ai-connect", "ai_connect", "STAGEHAND_CONNECT",
        _endpoint("ws", "wss"), None,
        "Run the browser elsewhere: the ws:// endpoint of a Playwright server (`playwright "
        "run-server`, a Selenium Grid 4 or browserless endpoint that speaks Playwright's "
        "protocol).",
    ),
    Option(
        "cdp_url", "--ai-cdp-url", "ai_cdp_url", "STAGEHAND_CDP_URL",
        _endpoint("http", "https", "ws", "wss"), None,
        "Attach to a running Chromium over the Chrome DevTools Protocol (a Chromium started "
        "with --remote-debugging-port, a cloud browser's CDP URL).",
    ),
    Option(
        "shard", "--ai-shard", "ai_shard", "STAGEHAND_SHARD", _shard, None,
        "Run one shard of the suite, i/n (e.g. 2/3): whole test modules, split the same "
        "way on every machine, so each recordings file is written by one shard.",
    ),
    # evaluator (issue 6)
    Option(
        "judge_inputs", "--ai-judge-inputs", "ai_judge_inputs", "STAGEHAND_JUDGE_INPUTS",
        _choice(JUDGE_INPUTS), "auto",
        "What assert_that, check and the evaluator judge from: auto (the page text; a "
        "screenshot instead for visual claims or screenshot=True) or both (the page text "
        "and a screenshot, every time).",
    ),
    # vision (issue 17)
    Option(
        "vision", "--ai-vision", "ai_vision", "STAGEHAND_VISION", _choice(VISION_MODES),
        "fallback",
        "When act, observe and extract show the model a screenshot with the page's elements "
        "marked: fallback (when the page text gives it nothing that fits, or the view is "
        "mostly canvas/SVG), always, or off. Per step: vision=True/False/mode.",
    ),
)
OPTIONS_BY_NAME = {option.name: option for option in OPTIONS}


@dataclass(frozen=True)
class Settings:
    """Everything pytest-stagehand was told, validated once."""

    model: str | None = None
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    cache: CacheMode = "auto"
    prune: bool = False
    cache_per_origin: bool = False
    cache_dir: str = ".stagehand"
    max_cost: float | None = None
    memo: bool = False
    model_timeout: float = 60.0
    wait_timeout: float = 5000.0  # ms a step waits for what it looks for
    model_retries: int = 3
    prompt_budget: int = DEFAULT_BUDGET
    screenshots: str = "on-failure"
    evidence_dir: str | None = None
    report: str | None = None
    export_dir: str | None = None
    allowed_origins: tuple[str, ...] = ()
    agent_mode: AgentMode = "dom"
    cua_model: str | None = None
    browser_executable_path: str | None = None
    connect: str | None = None
    cdp_url: str | None = None
    shard: tuple[int, int] | None = None
    judge_inputs: JudgeInputs = "auto"  # evaluator (issue 6)
    vision: VisionMode = "fallback"  # vision (issue 17)

    @property
    def may_call_model(self) -> bool:
        return self.cache != "offline" and self.model is not None

    def with_marker(self, kwargs: Mapping[str, Any], explicit: frozenset[str]) -> Settings:
        """Apply `@pytest.mark.ai(...)` arguments, except those given on the command line."""
        unknown = sorted(set(kwargs) - OPTIONS_BY_NAME.keys())
        if unknown:
            raise ConfigError(
                f"@pytest.mark.ai got unknown argument(s) {', '.join(unknown)}; known: "
                f"{', '.join(sorted(OPTIONS_BY_NAME))}."
            )
        changes = {}
        for key, value in kwargs.items():
            if key in explicit:
                continue
            option = OPTIONS_BY_NAME[key]
            changes[key] = _parse(option, value, f"@pytest.mark.ai({key}=...)")
        return replace(self, **changes)


def _parse(option: Option, value: Any, where: str) -> Any:
    if value is None or (not isinstance(value, str) and not isinstance(value, bool)):
        # Already typed (marker arguments such as max_cost=0.5) or unset.
        if value is None:
            return None
        value = str(value)
    if isinstance(value, bool):
        value = "true" if value else "false"
    try:
        return option.parse(value)
    except ValueError as exc:
        shown = "***" if option.secret else repr(value)
        raise ConfigError(f"{where}: {shown} is not valid: {exc}.") from None


def resolve(
    cli: Mapping[str, Any],
    ini: Mapping[str, Any],
    env: Mapping[str, str] | None = None,
) -> tuple[Settings, frozenset[str]]:
    """Build Settings from the three sources; return which names came from the command line.

    `cli` and `ini` map option names to raw values (None or "" when not given).
    """
    env = os.environ if env is None else env
    values: dict[str, Any] = {}
    explicit: set[str] = set()
    for option in OPTIONS:
        raw, where = None, None
        if cli.get(option.name) not in (None, "", False):
            raw, where = cli[option.name], option.flag
            explicit.add(option.name)
        elif ini.get(option.name) not in (None, "", []):
            raw, where = ini[option.name], f"ini key {option.ini}"
        elif option.env and env.get(option.env):
            raw, where = env[option.env], f"environment variable {option.env}"
        if where is None:
            values[option.name] = option.default
        else:
            values[option.name] = _parse(option, raw, where)
    if values["model"] is None:
        values["model"] = _model_from_environment(env)
    settings = Settings(**values)
    _check_model_string(settings.model)
    _check_model_string(settings.cua_model)
    if settings.connect and settings.cdp_url:
        raise ConfigError(
            "--ai-connect and --ai-cdp-url both name a remote browser; give one of them."
        )
    return settings, frozenset(explicit)


def _model_from_environment(env: Mapping[str, str]) -> str | None:
    for variable, model in DEFAULT_MODELS.items():
        if env.get(variable):
            return model
    return None


def _check_model_string(model: str | None) -> None:
    if model is None:
        return
    provider, _, name = model.partition("/")
    if provider not in ("openai", "anthropic", "google") or not name:
        raise ConfigError(
            f"--ai-model {model!r} is not valid: write provider/name, e.g. "
            "openai/gpt-4.1-mini, anthropic/claude-sonnet-4-5, google/<name> (with "
            "pytest-stagehand[google]), or openai/<name> for an OpenAI-compatible server "
            "given with --ai-base-url."
        )


def cache_root(settings: Settings, rootdir: Path) -> Path:
    path = Path(settings.cache_dir).expanduser()
    return path if path.is_absolute() else rootdir / path
