"""Django's admin as released on PyPI (tests/django_admin.py): a login whose password is a
variable, and a list its index shows in table rows, recorded with a scripted model and
replayed offline; the password reaches no prompt, recording or store."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django_admin import USER, DjangoAdmin
from pydantic import BaseModel
from scripted_answers import act_answer, element_id, recorded_ai_page

from pytest_stagehand.testing.scripted_model import ScriptedRequest

pytest.importorskip("django")  # the dev extra installs it

MODELS = ["Authors", "Books"]
STEPS = {  # instruction: the element a correct model names, its method and arguments
    f"type {USER} into the username field": ("textbox", "Username:", "fill", USER),
    "type %password% into the password field": ("textbox", "Password:", "fill", "%password%"),
    "click Log in": ("button", "Log in", "click", None),
}
EXTRACT = "the models of the Library app"


class Names(BaseModel):
    names: list[str]


@pytest.fixture(scope="module")
def admin(tmp_path_factory) -> Iterator[DjangoAdmin]:
    admin = DjangoAdmin(tmp_path_factory.mktemp("django")).start()
    yield admin
    admin.close()


def answer(request: ScriptedRequest) -> dict:
    """The scripted model: the login form's fields by their labels, the models read off
    the index (as the prompt's snapshot shows them)."""
    if "\n\nExtract: " in request.text:
        return {"names": [name for name in MODELS if f'rowheader "{name}"' in request.text]}
    instruction = request.text.rsplit("Instruction: ", 1)[1].split("\n", 1)[0]
    role, name, method, argument = STEPS[instruction]
    return act_answer(element_id(request.text, role, name), method,
                      [argument] if argument else [])


def log_in_and_read(ai, admin: DjangoAdmin) -> list[str]:
    ai.goto(admin.url("admin/"))
    for instruction in STEPS:
        ai.act(instruction, variables={"password": admin.password} if "%" in instruction
               else None)
    ai.page.get_by_role("heading", name="Site administration").wait_for()
    return ai.extract(EXTRACT, schema=Names).names


def test_a_django_admin_login_and_its_index_replay_offline_without_the_password(
    page, browser, scripted_model, store, tmp_path, admin
):
    scripted_model.default = answer
    test_file = tmp_path / "test_admin.py"
    with recorded_ai_page(page, scripted_model, store, test_file, "auto") as ai:
        assert log_in_and_read(ai, admin) == MODELS
    asked = scripted_model.calls
    replay_page = browser.new_page()  # a later run's own page: logged out again
    with recorded_ai_page(replay_page, scripted_model, store, test_file, "offline") as ai:
        assert log_in_and_read(ai, admin) == MODELS
        assert [event.cache for event in ai.steplog.events[1:]] == ["hit"] * 4
    replay_page.close()
    assert scripted_model.calls == asked
    store.flush()
    secret = admin.password.encode()
    prompts = "".join(request.text for request in scripted_model.requests)
    assert "%password%" in prompts and admin.password not in prompts
    kept = [path for path in tmp_path.rglob("*") if path.is_file()]
    assert kept and not [path for path in kept if secret in path.read_bytes()]
