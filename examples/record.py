"""Re-record the example suite's recordings with the scripted shop oracle.

    python examples/record.py                         # every example, on the classic shop
    python examples/record.py examples/test_login.py  # extra arguments go to pytest

No model was reachable when these examples were written, so their recordings
(`examples/__stagehand__/*.json`) were made by this script. It is NOT a model: the
"scripted shop oracle" is a table of the answers a correct model gives to exactly the
instructions, extracts, claims and agent goal the examples use. For each request it reads
the prompt the plugin really sent (the page snapshot with its element ids, the instruction)
and answers in the plugin's answer schemas: an act names the id of the element the
instruction means, an extract reads its values out of the snapshot text, a claim gets YES
and a deterministic check on the element it is about, the agent gets its plan one step at a
time. Everything else is real: the shop, Chromium, the plugin, the OpenAI SDK talking
HTTP to `ScriptedModelServer` on 127.0.0.1, and the recordings written by the plugin in
`--ai-cache=refresh` mode.

To record with a real model instead, skip this script:

    OPENAI_API_KEY=sk-... ./dev examples --ai-cache=refresh --ai-prune

Importable too: `scripted_shop_oracle()` is the server, `answer(request)` one answer.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from pytest_stagehand.prompts import agent as agent_texts  # noqa: E402
from pytest_stagehand.prompts import judge as judge_texts  # noqa: E402
from pytest_stagehand.prompts import texts as prompts  # noqa: E402
from pytest_stagehand.snapshot.outline import without_ids  # noqa: E402
from pytest_stagehand.testing.scripted_model import (  # noqa: E402
    ComputerCall,
    FunctionCall,
    ScriptedModelServer,
    ScriptedRequest,
)

MODEL = "openai/scripted-shop-oracle"
PLACEHOLDER_KEY = "scripted-oracle-needs-no-key"


class NoScriptedAnswer(Exception):
    """The oracle was asked something the examples do not ask: add it to the tables below."""


# --- reading a prompt --------------------------------------------------------------------

LINE = re.compile(
    r'^(?P<indent> *)(?:(?P<id>e\d+) )?(?P<role>[\w-]+)'
    r'(?: "(?P<name>(?:[^"\\]|\\.)*)")?(?P<rest>.*)$'
)


@dataclass(frozen=True)
class Line:
    """One line of a snapshot: `[id] role "name" states -> url` or `role: text`."""

    depth: int
    id: str | None
    role: str
    name: str
    rest: str
    raw: str

    @property
    def text(self) -> str:
        """The text after `role:` (paragraphs, terms, definitions, alerts)."""
        return self.rest[2:].strip() if self.rest.startswith(": ") else ""

    def value(self, state: str) -> str | None:
        found = re.search(rf'\b{state}="((?:[^"\\]|\\.)*)"', self.rest)
        return found.group(1) if found else None


def snapshot_lines(text: str) -> list[Line]:
    """The lines of the last snapshot in a prompt (or of the elements that appeared)."""
    starts = [text.rfind(marker) + len(marker) for marker in
              ("Snapshot:\n", "These elements appeared:\n") if marker in text]
    if not starts:
        raise NoScriptedAnswer("the prompt has no snapshot")
    body = text[max(starts):]
    body = re.split(r"\n\n(?:Instruction|Claim|Extract|Questions):", body)[0]
    lines: list[Line] = []
    row = False  # a blank line: a table row with nothing of its own, its cells in its place
    for raw in body.splitlines():
        found = LINE.match(raw)
        if not raw:
            row = True
        elif found:
            depth = len(found["indent"])  # one space per level
            if row:
                lines.append(Line(depth - 1, None, "row", "", "", ""))
                row = False
            lines.append(Line(depth, found["id"], found["role"], found["name"] or "",
                              found["rest"], raw))
    return lines


def asked(prompt: str, label: str) -> str:
    """What follows `label:` in the prompt up to the next blank line, e.g. the instruction."""
    found = list(re.finditer(rf"(?:^|\n){re.escape(label)}: ", prompt))
    if not found:
        raise NoScriptedAnswer(f"the prompt has no {label}")
    return prompt[found[-1].end() :].split("\n\n")[0].strip()


def find(
    lines: list[Line],
    role: str,
    name: str | None = None,
    *,
    prefix: bool = False,
    text: str | None = None,
    after: str | None = None,
) -> Line | None:
    """The first line with an id, of `role`, named `name` (or starting with it), holding
    `text`, after the first line that mentions `after` (to tell look-alikes apart)."""
    start = 0
    if after is not None:
        start = next((i for i, line in enumerate(lines) if after in line.raw), len(lines))
    for line in lines[start:]:
        if line.id is None or line.role != role:
            continue
        if name is not None and not (
            line.name.startswith(name) if prefix else line.name == name
        ):
            continue
        if text is not None and text not in line.text:
            continue
        return line
    return None


def terms(lines: list[Line]) -> dict[str, str]:
    """`term: X` followed by `definition: Y` pairs (the shop's <dl> summaries)."""
    found = {}
    for term, definition in pairwise(lines):
        if term.role == "term" and definition.role == "definition":
            found[term.text] = definition.text
    return found


# --- act: instruction -> the element and method ------------------------------------------


@dataclass(frozen=True)
class Pick:
    """An element by role and name (`after`: below the line that mentions it)."""

    role: str
    name: str
    method: str = "click"
    arguments: tuple[str, ...] = ()
    after: str | None = None
    prefix: bool = False
    then: Pick | None = None  # a custom dropdown: the option to choose once it is open


def click(role: str, name: str, **kw: Any) -> Pick:
    return Pick(role, name, "click", **kw)


def fill(name: str, text: str, role: str = "textbox") -> Pick:
    return Pick(role, name, "fill", (text,))


def add_to_cart(product: str) -> Pick:
    return click("button", "Add to cart", after=f'link "{product}"')


ACT: dict[str, Pick] = {
    # log in (examples/conftest.py)
    "type %user% into the username field": fill("Username", "%user%"),
    "type %password% into the password field": fill("Password", "%password%"),
    "click the log in button": click("button", "Log in"),
    # catalogue and cart
    "sort the products by price, low to high": Pick(
        "combobox", "Sort by", "select_option", ("Price (low to high)",)
    ),
    "search the products for bottle": fill("Search", "bottle", role="searchbox"),
    "add the Baby Onesie to the cart": add_to_cart("Baby Onesie"),
    "add the Bike Light to the cart": add_to_cart("Bike Light"),
    "add the Trail Backpack to the cart": add_to_cart("Trail Backpack"),
    "add the Fleece Jacket to the cart": add_to_cart("Fleece Jacket"),
    "open the cart": click("link", "Cart"),
    # checkout
    "click the checkout button": click("button", "Checkout"),
    "type Ada into the first name field": fill("First name", "Ada"),
    "type Lovelace into the last name field": fill("Last name", "Lovelace"),
    "type 10115 into the postal code field": fill("Postal code", "10115"),
    "choose Express delivery as the shipping method": click(
        "button", "Shipping method", prefix=True,
        then=click("option", "Express delivery", prefix=True),
    ),
    "pay with PayPal": Pick("radio", "PayPal", "check"),
    "click continue": click("button", "Continue"),
    "finish the order": click("button", "Finish"),
    # support: the contact form inside the iframe
    "type Ada into the name field of the contact form": fill("Name", "Ada"),
    "type ada@example.com into the email field of the contact form": fill(
        "Email", "ada@example.com"
    ),
    "type Where is my order? into the message field": fill("Message", "Where is my order?"),
    "click send message": click("button", "Send message"),
    # order tracking: a menu that opens after the hover, a lookup that takes its time
    "hover over Help": Pick("button", "Help", "hover"),
    "click Delivery times in the Help menu": click("link", "Delivery times"),
    "click track order": click("button", "Track order"),
    # the agent's acts (its instructions come from the plan below)
    'click the "Sign up" link in the header': click("link", "Sign up"),
    'check "I agree to the terms and conditions"': Pick(
        "checkbox", "I agree to the terms and conditions", "check"
    ),
    'click "Create account"': click("button", "Create account"),
    # the account page: what a browser does around the page (dialogs, tabs, files)
    "delete the saved addresses": click("button", "Delete saved addresses"),
    "rename the wishlist": click("button", "Rename wishlist"),
    "open help in a new tab": click("link", "Open help in a new tab"),
    "upload %photo% as the profile photo": Pick("button", "Choose photo", "upload", ("%photo%",)),
    "download the last invoice": click("link", "Download the last invoice"),
}


def open_tab(title: str) -> Callable[[str], tuple[str, list[str]]]:
    """switch_tab to the open tab whose title starts with `title`, as the prompt lists it."""

    def answer(prompt: str) -> tuple[str, list[str]]:
        found = re.search(rf'^- "({re.escape(title)}[^"]*)"', prompt, re.M)
        if found is None:
            raise NoScriptedAnswer(f"the prompt lists no open tab titled {title!r}")
        return "switch_tab", [found[1]]

    return answer


def dialog(kind: str, method: str, *arguments: str) -> Callable[[str], tuple[str, list[str]]]:
    """Answer the `kind` dialog the prompt shows in place of the page."""

    def answer(prompt: str) -> tuple[str, list[str]]:
        if f"[dialog] {kind} " not in prompt:
            raise NoScriptedAnswer(f"the prompt shows no {kind} dialog")
        return method, list(arguments)

    return answer


# Steps on no element of the page: a dialog, a tab. Each reads what the prompt shows.
PAGE_ACT: dict[str, Callable[[str], tuple[str, list[str]]]] = {
    "accept the confirmation": dialog("confirm", "accept_dialog"),
    "type %list% into the prompt and accept it": dialog("prompt", "accept_dialog", "%list%"),
    "switch back to the account tab": open_tab("Your account"),
}


def answer_act(prompt: str) -> dict[str, Any]:
    instruction = asked(prompt, "Instruction")
    if instruction in PAGE_ACT:
        method, arguments = PAGE_ACT[instruction](prompt)
        return {"found": True, "element_id": None, "method": method, "arguments": arguments,
                "description": instruction, "two_step": False}
    if instruction in SEEN:  # drawn on a canvas: the text has nothing for it
        return {"found": False, "element_id": None, "method": "click", "arguments": [],
                "description": "nothing in the page text", "two_step": False}
    pick = ACT.get(instruction)
    if pick is None:
        raise NoScriptedAnswer(f"no act answer for {instruction!r}")
    options = "These elements appeared:\n" in prompt
    if options:  # the second step of a custom dropdown: choose among what appeared
        if pick.then is None:
            raise NoScriptedAnswer(f"{instruction!r} is not a two-step act")
        pick = pick.then
    line = find(snapshot_lines(prompt), pick.role, pick.name, prefix=pick.prefix, after=pick.after)
    if line is None:  # what a correct model says when the page has no such element
        return {"found": False, "element_id": None, "method": pick.method, "arguments": [],
                "description": f'no {pick.role} "{pick.name}" on the page', "two_step": False}
    return {
        "found": True,
        "element_id": line.id,
        "method": pick.method,
        "arguments": list(pick.arguments),
        "description": f'the "{line.name}" {pick.role}',
        "two_step": pick.then is not None and not options,
    }


# --- observe: instruction -> elements with their methods -----------------------------------

OBSERVE: dict[str, list[Pick]] = {
    "what to fill in and click to subscribe ada@example.com": [
        fill("Email address", "ada@example.com"), click("button", "Subscribe"),
    ],
}

# The agent's fill_form asks observe for "- field: value" lines: each field is the text box
# (or checkbox) of that label.
FIELD = re.compile(r"^- (?P<field>[^:\n]+): (?P<value>.*)$", re.M)


def answer_observe(prompt: str) -> dict[str, Any]:
    instruction = asked(prompt, "Instruction")
    lines = snapshot_lines(prompt)
    if instruction.startswith(agent_texts.FILL_FORM.split("\n")[0]):
        picks = [fill(m["field"], m["value"]) for m in FIELD.finditer(instruction)]
    elif instruction in OBSERVE:
        picks = OBSERVE[instruction]
    else:
        raise NoScriptedAnswer(f"no observe answer for {instruction!r}")
    elements = []
    for pick in picks:
        line = find(lines, pick.role, pick.name)
        if line is not None:
            elements.append({
                "element_id": line.id,
                "description": f'the "{line.name}" {pick.role}',
                "method": pick.method,
                "arguments": list(pick.arguments),
            })
    return {"elements": elements}


# --- extract: instruction -> values read from the snapshot --------------------------------


def cart_lines(lines: list[Line]) -> dict[str, Any]:
    """Each product row of the cart: its link (name, id), unit price and quantity."""
    rows: list[dict[str, Any]] = []
    for line in lines:
        if line.role == "link" and line.rest.startswith(" -> /products/"):
            rows.append({"name": line.name, "page": line.id, "price": None, "quantity": None})
        elif rows and line.role == "paragraph" and rows[-1]["price"] is None:
            rows[-1]["price"] = line.text
        elif rows and line.role == "spinbutton" and line.name == "Quantity":
            rows[-1]["quantity"] = int(line.value("value") or 0)
    return {"lines": rows, "total": terms(lines).get("Total")}


def order_totals(lines: list[Line]) -> dict[str, Any]:
    found = terms(lines)
    return {"item_total": found.get("Item total"), "shipping": found.get("Shipping"),
            "tax": found.get("Tax (8%)"), "total": found.get("Total")}


def welcome_banner(lines: list[Line]) -> dict[str, Any]:
    line = find(lines, "status", text="Welcome")
    return {"text": line.text if line else "There is no welcome banner on the page."}


def order_status(lines: list[Line]) -> dict[str, Any]:
    line = find(lines, "status", text="Order #1001")
    return {"text": line.text if line else ""}  # nothing yet: the lookup has not answered


EXTRACT: dict[str, Callable[[list[Line]], dict[str, Any]]] = {
    "the status of order #1001": order_status,
    "the products in the cart and the cart total": cart_lines,
    "the order totals": order_totals,
    "the text of the welcome banner": welcome_banner,
}


def answer_extract(prompt: str) -> dict[str, Any]:
    instruction = asked(prompt, "Extract")
    reader = EXTRACT.get(instruction)
    if reader is None:
        raise NoScriptedAnswer(f"no extract answer for {instruction!r}")
    return reader(snapshot_lines(prompt))


# --- assert_that: claim -> verdict and a deterministic check -------------------------------


@dataclass(frozen=True)
class Evidence:
    """The element a claim is about, and what it must say; or exact page text."""

    role: str | None = None
    name: str | None = None
    text: str | None = None  # the element's own text holds this
    match: str = "contains"
    page_text: str | None = None
    after: str | None = None  # the element comes after the line mentioning this


JUDGE: dict[str, Evidence] = {
    "the catalogue shows all 8 products": Evidence(
        "paragraph", text="Showing 8 of 8 products", match="equals"
    ),
    "the catalogue shows only the Steel Water Bottle": Evidence(
        "paragraph", text="Showing 1 of 8 products", match="equals"
    ),
    "an error message says the user has been locked out": Evidence(
        "alert", text="this user has been locked out"
    ),
    # The badge is a bare <span> beside the Cart link: short text standing on its own, it
    # has an id (`e9 text "2"`), so the check is its text, equal to the count.
    "the cart badge in the header shows 2": Evidence(
        "text", "2", match="equals", after='link "Cart"'
    ),
    "an error asks the customer to choose a shipping method": Evidence(
        "alert", text="Please choose a shipping method"
    ),
    "the page thanks the customer for the order": Evidence(
        "heading", "Thank you for your order!", match="equals"
    ),
    "the contact form confirms the message was sent to ada@example.com": Evidence(
        "paragraph", text="We will reply to ada@example.com"
    ),
    "the newsletter thanks the customer for subscribing": Evidence(
        "status", text="Thanks for subscribing!"
    ),
    "the page says order #1001 has shipped": Evidence(
        "status", text="Order #1001 has shipped"
    ),
}


def collapsed(lines: list[Line]) -> str:
    """The snapshot text as page_text checks see it: no ids, whitespace collapsed."""
    return " ".join(without_ids(line.raw).strip() for line in lines)


def answer_judge(prompt: str) -> dict[str, Any]:
    claim = asked(prompt, "Claim")
    evidence = JUDGE.get(claim)
    if evidence is None:
        raise NoScriptedAnswer(f"no verdict for the claim {claim!r}")
    return judged(prompt, evidence)


def judged(prompt: str, evidence: Evidence) -> dict[str, Any]:
    """The verdict on the prompt's snapshot, and its check on the element `evidence` names."""
    lines = snapshot_lines(prompt)
    if evidence.page_text is not None:
        if evidence.page_text not in collapsed(lines):
            return {"verdict": "NO", "reasoning": "The page does not show that.", "check": None}
        return {
            "verdict": "YES",
            "reasoning": f"The page shows {evidence.page_text}.",
            "check": {"kind": "page_text", "text": evidence.page_text, "present": True},
        }
    line = find(lines, evidence.role or "", evidence.name, text=evidence.text, after=evidence.after)
    if line is None:
        return {"verdict": "NO", "reasoning": "The page does not show that.", "check": None}
    shown = line.name if evidence.name else line.text
    expected = evidence.name if evidence.name else evidence.text
    return {
        "verdict": "YES",
        "reasoning": f'The {line.role} reads "{shown}".',
        "check": {"kind": "element", "element_id": line.id, "property": "text",
                  "match": evidence.match, "expected": expected},
    }


# --- the agent: goal -> its plan, one step per request ------------------------------------

SIGN_UP = (
    "Sign up for a new account as Ada Lovelace with the email ada@example.com and the "
    "password %password%, accepting the terms, and confirm the welcome banner."
)


def tool(name: str, thought: str, **arguments: Any) -> dict[str, Any]:
    return {"thought": thought, "call": {"tool": name, **arguments}}


def sign_up_plan(step: int, text: str) -> dict[str, Any]:
    plan = [
        tool("act", "The header links to the sign-up form.",
             instruction='click the "Sign up" link in the header'),
        tool("fill_form", "The sign-up form is open: fill in its fields.", fields=[
            {"field": "Full name", "value": "Ada Lovelace"},
            {"field": "Email", "value": "ada@example.com"},
            {"field": "Password", "value": "%password%"},
            {"field": "Confirm password", "value": "%password%"},
        ]),
        tool("act", "The terms must be accepted.",
             instruction='check "I agree to the terms and conditions"'),
        tool("act", "The form is complete: submit it.", instruction='click "Create account"'),
        tool("extract", "The product page greets the new customer: save the banner.",
             instruction="the text of the welcome banner"),
    ]
    if step <= len(plan):
        return plan[step - 1]
    saved = re.search(r"^- the text of the welcome banner: (.+)$", text, re.M)
    banner = saved.group(1).strip() if saved else ""
    greeted = re.match(r"Welcome, (.+?)!", banner)
    return tool(
        "done", "The welcome banner is saved.",
        success=greeted is not None,
        reasoning=f"Signed up; the banner reads {banner!r}." if greeted else "No banner.",
        output={"name": greeted.group(1), "banner": banner} if greeted else None,
    )


AGENT: dict[str, Callable[[int, str], dict[str, Any]]] = {SIGN_UP: sign_up_plan}


def answer_agent(task: str, state: str) -> dict[str, Any]:
    """`task`: the first user message (the goal); `state`: the last one (the last step's
    result, the step number, the data saved and the page)."""
    goal = asked(task, "Goal")
    plan = AGENT.get(goal)
    if plan is None:
        raise NoScriptedAnswer(f"no plan for the goal {goal!r}")
    if state.startswith("Result: error: "):  # a correct model stops and says why
        return tool("done", "The last step failed.", success=False,
                    reasoning=state.splitlines()[0].removeprefix("Result: "), output=None)
    step = int(re.search(r"^Step (\d+) of \d+\.", state, re.M).group(1))
    return plan(step, state)


# --- vision: what is seen on the screenshot ----------------------------------------------
# The sales chart is drawn on a canvas pinned at (40, 300) CSS pixels of the window
# (examples/app/templates/sales.html, static/sales.js): its bars have no element, so the
# text answers "not found" and the plugin shows a screenshot; a model sees each bar there.

WINDOW_WIDTH = 1280  # pytest-playwright's default window
SEEN: dict[str, tuple[float, float]] = {
    # the Feb bar: x 150..220 and y 30..220 on the canvas
    "click the Feb bar of the sales chart": (40 + 185, 300 + 125),
}


def answer_seen(request: ScriptedRequest, prompt: str) -> dict[str, Any]:
    """An act answer from the screenshot: the point where the thing asked for is drawn,
    in the screenshot's pixels (scaled from the window's)."""
    instruction = asked(prompt, "Instruction")
    if instruction not in SEEN:
        raise NoScriptedAnswer(f"nothing seen for {instruction!r}")
    width = int.from_bytes(request.images[-1][16:20], "big")  # the PNG's width
    x, y = (value * width / WINDOW_WIDTH for value in SEEN[instruction])
    return {"found": True, "element_id": None, "point": [x, y], "method": "click",
            "arguments": [], "description": instruction.removeprefix("click "),
            "two_step": False}
# --- the computer-use agent: goal -> its plan, one action per request ---------------------
# A computer-use model answers in the Responses API's computer_call actions. This plan logs
# in from the keyboard, as a keyboard user would: Tab to "Skip to content", Enter, Tab into
# the username field, and so on. Each request carries "Step N of M.", which says where in
# the plan it is; the count is the one the shop shows after logging in.

LOG_IN_BY_KEYBOARD = (
    "log in as %user% with the password %password% and report how many products are listed"
)


def keys(*names: str) -> ComputerCall:
    return ComputerCall({"type": "keypress", "keys": list(names)})


def typed(text: str) -> ComputerCall:
    return ComputerCall({"type": "type", "text": text})


def keyboard_log_in_plan(step: int) -> ComputerCall | FunctionCall:
    plan = [
        keys("TAB"), keys("ENTER"), keys("TAB"), typed("%user%"), keys("TAB"),
        typed("%password%"), keys("ENTER"),
    ]  # fmt: skip
    if step <= len(plan):
        return plan[step - 1]
    return FunctionCall(
        "done",
        {"success": True, "reasoning": "Logged in: the product list shows.",
         "output": {"products": 8}},
    )  # fmt: skip


COMPUTER_USE: dict[str, Callable[[int], ComputerCall | FunctionCall]] = {
    LOG_IN_BY_KEYBOARD: keyboard_log_in_plan,
}


def answer_computer_use(request: ScriptedRequest) -> ComputerCall | FunctionCall:
    """A Responses API request of a computer-use run: the goal's plan at the step asked."""
    goal = asked(request.text, "Goal")
    plan = COMPUTER_USE.get(goal)
    if plan is None:
        raise NoScriptedAnswer(f"no computer-use plan for the goal {goal!r}")
    return plan(int(re.findall(r"Step (\d+) of \d+\.", request.text)[-1]))


# --- the oracle ----------------------------------------------------------------------------

PIPELINES: dict[str, Callable[[str], dict[str, Any]]] = {
    prompts.ACT_SYSTEM: answer_act,
    prompts.OBSERVE_SYSTEM: answer_observe,
    prompts.EXTRACT_SYSTEM: answer_extract,
    judge_texts.JUDGE_SYSTEM: answer_judge,
}
ANSWERED: Counter[str] = Counter()


def user_messages(request: ScriptedRequest) -> list[str]:
    texts = []
    for message in request.messages:
        content = message.get("content")
        if message.get("role") != "user":
            continue
        if isinstance(content, list):
            content = "\n".join(b.get("text", "") for b in content if b.get("type") == "text")
        texts.append(content or "")
    return texts


def answer(request: ScriptedRequest) -> Any:
    """The scripted answer to one request, by the pipeline that sent it (its system
    prompt) and what its prompt asks."""
    system = request.messages[0].get("content", "") if request.messages else ""
    asking = user_messages(request)
    try:
        if request.api == "responses":
            pipeline, value = "computer use", answer_computer_use(request)
        elif system.startswith(agent_texts.AGENT_SYSTEM.split("\n")[0]):
            pipeline, value = "agent", answer_agent(asking[0], asking[-1])
        elif request.images and system.startswith(prompts.ACT_SYSTEM):
            pipeline, value = "vision", answer_seen(request, asking[-1])
        else:
            reply = next((PIPELINES[s] for s in PIPELINES if system.startswith(s)), None)
            if reply is None:
                raise NoScriptedAnswer("a request from a pipeline the examples do not use")
            # The prompt with the page in it (a retry after feedback adds messages after it).
            prompt = next(
                (t for t in reversed(asking) if "Snapshot:\n" in t or "appeared:\n" in t), ""
            )
            pipeline, value = reply.__name__.removeprefix("answer_"), reply(prompt)
    except NoScriptedAnswer as exc:
        print(f"scripted shop oracle: {exc}; add it to {Path(__file__).name}", file=sys.stderr)
        raise
    ANSWERED[pipeline] += 1
    return value


def scripted_shop_oracle() -> ScriptedModelServer:
    """The oracle as a (not yet started) OpenAI-compatible server on 127.0.0.1."""
    return ScriptedModelServer(default=answer)


def record(pytest_args: list[str]) -> int:
    """Run the examples against the oracle with --ai-cache=refresh; return pytest's status."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("STAGEHAND_", "OPENAI_", "ANTHROPIC_"))}
    env.update(SHOP_VARIANT="classic", OPENAI_API_KEY=PLACEHOLDER_KEY)
    # A working store of its own, so no other pytest run in this checkout can take (or
    # flush) what this one records.
    paths = [a for a in pytest_args if not a.startswith("-") and Path(a.split("::")[0]).exists()]
    with scripted_shop_oracle() as server, tempfile.TemporaryDirectory() as store:
        command = [
            sys.executable, "-m", "pytest", *([] if paths else [str(HERE)]), *pytest_args,
            "--ai-cache=refresh", "--ai-prune", "--ai-retries=0", "--ai-cache-dir", store,
            "--ai-model", MODEL, "--ai-base-url", server.openai_base_url,
        ]
        print("$", " ".join(command), flush=True)
        status = subprocess.call(command, env=env)
        print(f"scripted shop oracle: {server.calls} requests, answered "
              + json.dumps(dict(sorted(ANSWERED.items()))), flush=True)
    return status


if __name__ == "__main__":
    sys.exit(record(sys.argv[1:]))
