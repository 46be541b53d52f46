"""Benchmark: what a vision step costs against a text step on the same page.

Run: PYTHONPATH=. .venv/bin/python bench/bench_vision.py

On the vision test page (a canvas chart, an SVG toolbar, a form) at three window sizes,
one act is sent as the plugin sends it (real SDK, HTTP, a scripted model on 127.0.0.1
answering "not found" from the text, then a point on the screenshot). For the text request
and the vision request it prints the prompt's text tokens (about four characters a token),
the screenshot's size in pixels and bytes, and its tokens by the providers' published
formulas (OpenAI high detail: 85 + 170 per 512-pixel tile after fitting 2048 and a 768
short side; Anthropic: width x height / 750 after fitting 1568), beside the screenshot a
window of that size would make unscaled (the baseline), with the ratios.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from scripted_answers import NOT_FOUND, pointing, scripted_ai_page  # noqa: E402
from servers import PagesServer  # noqa: E402

from pytest_stagehand.browser.launch import find_chromium  # noqa: E402
from pytest_stagehand.snapshot.outline import estimate_tokens  # noqa: E402
from pytest_stagehand.testing.scripted_model import ScriptedModelServer  # noqa: E402

WINDOWS = [(1280, 720), (1920, 1080), (2560, 1440)]
FEB_BAR = (171, 211)  # a point inside the chart's Feb bar, in CSS pixels


def openai_image_tokens(width: int, height: int) -> int:
    scale = min(1.0, 2048 / max(width, height))
    width, height = width * scale, height * scale
    scale = min(1.0, 768 / min(width, height))
    width, height = width * scale, height * scale
    return 85 + 170 * math.ceil(width / 512) * math.ceil(height / 512)


def anthropic_image_tokens(width: int, height: int) -> int:
    scale = min(1.0, 1568 / max(width, height))
    return round(width * scale * height * scale / 750)


def png_size(image: bytes) -> tuple[int, int]:
    return int.from_bytes(image[16:20], "big"), int.from_bytes(image[20:24], "big")


def main() -> None:
    pages = PagesServer().start()
    rows = []
    chromium = find_chromium()
    with sync_playwright() as playwright, ScriptedModelServer() as scripted:
        browser = playwright.chromium.launch(
            executable_path=chromium.executable_path, args=list(chromium.args)
        )
        for width, height in WINDOWS:
            page = browser.new_page(viewport={"width": width, "height": height})
            with scripted_ai_page(page, scripted, base_url=pages.url()) as ai:
                ai.goto("vision.html")
                before = scripted.calls
                scripted.enqueue(NOT_FOUND, pointing(*FEB_BAR, width))
                result = ai.act("click the Feb bar of the chart")
                assert ai.locator("#picked").inner_text() == "Feb: 80", "the bench step failed"
                text, sight = scripted.requests[before:]
            image = sight.images[0]
            shown = png_size(image)
            rows.append({
                "window": f"{width}x{height}",
                "text_tokens": estimate_tokens(text.text),
                "vision_text_tokens": estimate_tokens(sight.text),
                "image": f"{shown[0]}x{shown[1]}",
                "image_kb": len(image) / 1024,
                "openai": openai_image_tokens(*shown),
                "openai_unscaled": openai_image_tokens(width, height),
                "anthropic": anthropic_image_tokens(*shown),
                "anthropic_unscaled": anthropic_image_tokens(width, height),
                "usage_pixels": result.usage.image_pixels,
            })
            page.close()
        browser.close()
    pages.close()

    print("One act on tests/pages/vision.html: a text step, then the vision step it falls back to")
    print(f"{'window':>10} {'text step':>10} {'vision step (text + image)':>28} "
          f"{'image sent':>11} {'KB':>6} {'vision/text':>12} {'unscaled image':>15} "
          f"{'ours/unscaled':>14}")
    for row in rows:
        for provider in ("openai", "anthropic"):
            vision = row["vision_text_tokens"] + row[provider]
            parts = f"{row['vision_text_tokens']} + {row[provider]} ({provider})"
            print(
                f"{row['window']:>10} {row['text_tokens']:>10} {parts:>28} "
                f"{row['image']:>11} {row['image_kb']:>6.1f} "
                f"{vision / row['text_tokens']:>11.1f}x "
                f"{row[f'{provider}_unscaled']:>15} "
                f"{row[provider] / row[f'{provider}_unscaled']:>13.2f}x"
            )
    print("Tokens: text about 4 characters a token; images by the providers' formulas.")
    print(f"Usage reports the pixels sent, e.g. {rows[0]['usage_pixels']} for the first window.")


if __name__ == "__main__":
    main()
