"""pytest-stagehand: AI-driven end-to-end tests for pytest.

Tests use the fixtures (`ai_page`, `agent`, `evaluator`); these names are for type hints,
for replaying actions, and for catching errors.
"""

from pytest_stagehand.actions.perform import Action, ActResult
from pytest_stagehand.agent.agent import Agent
from pytest_stagehand.agent.run import AgentResult
from pytest_stagehand.browser.files import SavedDownload
from pytest_stagehand.errors import (
    ActionError,
    ActionFailed,
    AgentError,
    AIAssertionError,
    BrowserNotFound,
    BrowserUnreachable,
    BudgetExceeded,
    CacheError,
    CacheMiss,
    ConfigError,
    ElementCovered,
    ElementNotFound,
    HealFailed,
    InvalidArgument,
    InvalidModelChoice,
    MissingApiKey,
    ModelAuthError,
    ModelError,
    ModelOutputError,
    ModelRefused,
    ModelRequired,
    ModelUnavailable,
    PageClosed,
    RecordingFileError,
    RegionChanged,
    RemoteLaunchFailed,
    SafetyCheckPending,
    StagehandError,
    StoreError,
)
from pytest_stagehand.page import AIPage
from pytest_stagehand.pipelines.judge import Evaluator, Verdict

__all__ = [
    "AIAssertionError",
    "AIPage",
    "ActResult",
    "Action",
    "ActionError",
    "ActionFailed",
    "Agent",
    "AgentError",
    "AgentResult",
    "BrowserNotFound",
    "BrowserUnreachable",
    "BudgetExceeded",
    "CacheError",
    "CacheMiss",
    "ConfigError",
    "ElementCovered",
    "ElementNotFound",
    "Evaluator",
    "HealFailed",
    "InvalidArgument",
    "InvalidModelChoice",
    "MissingApiKey",
    "ModelAuthError",
    "ModelError",
    "ModelOutputError",
    "ModelRefused",
    "ModelRequired",
    "ModelUnavailable",
    "PageClosed",
    "RecordingFileError",
    "RegionChanged",
    "RemoteLaunchFailed",
    "SafetyCheckPending",
    "SavedDownload",
    "StagehandError",
    "StoreError",
    "Verdict",
]
