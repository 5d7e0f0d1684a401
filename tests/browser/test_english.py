"""En inglés también (issue 28): a device whose language is English gets the game in
English, one in Spanish gets it in Spanish, and the choice is switched from Inicio and kept
on the device. No Spanish word on an English screen, and the reverse."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from tests.support.a11y import assert_no_violations
from tests.support.browserkit import LANDSCAPE, PHONE, Player

pytestmark = pytest.mark.browser

MakePlayer = Callable[..., Player]

# words only Spanish uses (of the game's own texts), and the reverse: one seen on a screen
# of the other language is a text that did not come from the catalog
SPANISH = re.compile(
    r"[¿¡ñ]|\b(?:la|el|los|las|de|del|que|con|una?|para|por|mesa|partida|jugar|computadora"
    r"|amigo|cómo|código|seguir|escribe|toca|tienes|aquí)\b",
    re.I,
)
ENGLISH = re.compile(
    r"\b(?:the|and|you|your|play|with|table|game|match|computer|friend|how|type|tap"
    r"|here|start)\b",
    re.I,
)


def visible_text(player: Player) -> str:
    """What a person reads or hears on the page: the text, and accessible names and
    placeholders."""
    return str(
        player.page.evaluate(
            """() => [document.title, document.body.innerText,
                ...[...document.querySelectorAll('[aria-label], [placeholder], [title]')]
                  .flatMap((el) => [el.getAttribute('aria-label'), el.getAttribute('placeholder'),
                                    el.getAttribute('title')])]
              .filter(Boolean).join('\\n')"""
        )
    )


def assert_only(player: Player, lang: str) -> None:
    text = visible_text(player)
    # a language's own name in the switch is said in that language on purpose
    text = text.replace("Español", "").replace("English", "")
    other = SPANISH if lang == "en" else ENGLISH
    found = sorted({m.group(0) for m in other.finditer(text)})
    assert not found, f"{found} in a {lang} screen:\n{text}"
    assert player.page.evaluate("document.documentElement.lang") == lang


@pytest.mark.parametrize("viewport", [PHONE, LANDSCAPE], ids=["360x740", "740x360"])
def test_inicio_speaks_the_devices_language_and_switches(
    make_player: MakePlayer, viewport: dict[str, int]
) -> None:
    cousin = make_player(viewport=viewport, locale="en-US")
    cousin.goto("/")
    page = cousin.page
    page.wait_for_selector(".inicio")
    assert page.locator("h1").inner_text() == "Dominican Casino"
    assert page.locator("button[data-level='facil']").inner_text().startswith("Easy")
    assert_only(cousin, "en")
    assert_no_violations(page, "Inicio in English")
    # the switch names the other language in its own words, and the choice stays
    page.click("button[data-language='es-DO']")
    page.wait_for_selector(".inicio h1:text('Casino dominicano')")
    assert_only(cousin, "es-DO")
    page.reload()
    page.wait_for_selector(".inicio h1:text('Casino dominicano')")
    assert page.evaluate("localStorage.getItem('casino.idioma')") == "es-DO"
    page.click("button[data-language='en']")
    page.wait_for_selector(".inicio h1:text('Dominican Casino')")

    aunt = make_player(viewport=viewport, locale="es-DO")
    aunt.goto("/")
    aunt.page.wait_for_selector(".inicio h1:text('Casino dominicano')")
    assert_only(aunt, "es-DO")
    assert aunt.page.locator("button[data-language='en']").inner_text() == "English"


def test_an_english_device_gets_the_servers_errors_in_english(make_player: MakePlayer) -> None:
    cousin = make_player(locale="en-GB")
    cousin.goto("/")
    page = cousin.page
    page.wait_for_selector(".inicio")
    page.fill("#nombre", "x" * 30)
    page.click("button[data-level='facil']")
    page.wait_for_selector("#inicio-error:text('Write a name of 1 to 20 letters.')")
    page.fill("#codigo", "ZZZZZZZZ")
    page.click(".code-form button[type=submit]")
    page.wait_for_selector("#codigo-error:text(\"That code doesn't exist. Check it.\")")
