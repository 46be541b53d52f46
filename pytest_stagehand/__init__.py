"""pytest-stagehand: AI-driven end-to-end tests for pytest.

Tests use the fixtures (`ai_page`, `agent`, `evaluator`); these names are for type hints,
for replaying actions, and for catching errors.
"""

from .actions import Action, ActResult
from .agent import Agent, AgentResult
from .errors import (
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
    ModelRequired,
    ModelUnavailable,
    PageClosed,
    RecordingFileError,
    RegionChanged,
    StagehandError,
    StoreError,
)
from .evaluator import Evaluator, Verdict
from .page import AIPage

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
    "ModelRequired",
    "ModelUnavailable",
    "PageClosed",
    "RecordingFileError",
    "RegionChanged",
    "StagehandError",
    "StoreError",
    "Verdict",
]
