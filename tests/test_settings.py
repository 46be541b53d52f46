"""Settings resolve option > marker > ini > environment > default, and bad values fail once."""

from __future__ import annotations

import pytest

from pytest_stagehand.errors import ConfigError
from pytest_stagehand.settings import OPTIONS, resolve


def build(cli=None, ini=None, env=None):
    return resolve(cli or {}, ini or {}, env or {})


def test_defaults_without_any_source():
    settings, explicit = build()
    assert settings.cache == "auto"
    assert settings.model is None
    assert settings.max_cost is None
    assert not settings.may_call_model
    assert explicit == frozenset()


def test_option_beats_ini_beats_environment():
    env = {"STAGEHAND_CACHE": "off", "STAGEHAND_MODEL": "openai/env-model"}
    settings, _ = build(ini={"cache": "refresh"}, env=env)
    assert settings.cache == "refresh"
    assert settings.model == "openai/env-model"
    settings, explicit = build(cli={"cache": "offline"}, ini={"cache": "refresh"}, env=env)
    assert settings.cache == "offline"
    assert "cache" in explicit


def test_model_is_picked_from_the_key_in_the_environment():
    settings, _ = build(env={"ANTHROPIC_API_KEY": "k"})
    assert settings.model.startswith("anthropic/")
    assert settings.may_call_model


def test_offline_mode_never_calls_a_model():
    settings, _ = build(cli={"cache": "offline", "model": "openai/gpt-4.1-mini"})
    assert not settings.may_call_model


def test_a_zero_budget_is_a_budget():
    settings, _ = build(cli={"max_cost": "0"})
    assert settings.max_cost == 0.0


@pytest.mark.parametrize(
    ("cli", "fragment"),
    [
        ({"cache": "sometimes"}, "--ai-cache: 'sometimes' is not valid: must be one of"),
        ({"max_cost": "-1"}, "--ai-max-cost: '-1' is not valid: must be a cost in USD, 0 or more"),
        ({"max_cost": "cheap"}, "--ai-max-cost: 'cheap' is not valid"),
        ({"model": "gpt-4"}, "--ai-model 'gpt-4' is not valid: write provider/name"),
        ({"model_retries": "-2"}, "--ai-retries: '-2' is not valid"),
    ],
)
def test_bad_values_name_the_option(cli, fragment):
    with pytest.raises(ConfigError) as error:
        build(cli=cli)
    assert fragment in str(error.value)


def test_bad_ini_value_names_the_ini_key():
    with pytest.raises(ConfigError, match="ini key ai_cache"):
        build(ini={"cache": "never"})


def test_secret_values_are_not_echoed_in_errors():
    settings, _ = build(cli={"api_key": "sk-live-123"})
    assert "sk-live-123" not in repr(settings)


def test_marker_overrides_ini_but_not_the_command_line():
    settings, explicit = build(cli={"cache": "offline"}, ini={"max_cost": "5"})
    marked = settings.with_marker({"cache": "refresh", "max_cost": 0.25}, explicit)
    assert marked.cache == "offline"
    assert marked.max_cost == 0.25


def test_marker_with_unknown_argument_lists_the_known_ones():
    settings, explicit = build()
    with pytest.raises(ConfigError, match=r"unknown argument.*modle.*known: "):
        settings.with_marker({"modle": "x"}, explicit)


def test_every_option_has_flag_ini_and_help():
    flags = [o.flag for o in OPTIONS]
    assert len(flags) == len(set(flags))
    for option in OPTIONS:
        assert option.flag.startswith("--") and option.ini and option.help


def test_bad_option_fails_the_session_once(pytester):
    pytester.makepyfile("def test_a():\n    pass\n\ndef test_b():\n    pass\n")
    result = pytester.runpytest("--ai-cache=maybe")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.errlines if "--ai-cache" in line]
    assert len(errors) == 1
