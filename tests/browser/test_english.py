"""En inglés también (issue 28): a device whose language is English gets the game in
English, one in Spanish gets it in Spanish, and the choice is switched from Inicio and kept
on the device. No Spanish word on an English screen, and the reverse."""

from __future__ import annotations

import re
from collections.abc import Callable

import httpx
import pytest

from tests.browser.test_offline import TURN_OR_SHEET, install, play_turn_by_clicks
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
    page.wait_for_selector('#codigo-error:text("That code doesn\'t exist. Check it.")')


@pytest.mark.parametrize("viewport", [PHONE, LANDSCAPE], ids=["360x740", "740x360"])
def test_a_hand_against_the_computer_in_english(
    make_player: MakePlayer, viewport: dict[str, int]
) -> None:
    cousin = make_player(viewport=viewport, locale="en-US")
    cousin.goto("/")
    page = cousin.page
    page.click("button[data-level='facil']")
    page.wait_for_selector(".mesa[data-seq]")
    assert page.locator(".actions").inner_text().strip() != ""
    turns = 0
    while True:
        if cousin.wait_turn_or_sheet() == "sheet":
            break
        assert_only(cousin, "en")
        if turns == 0:
            assert_no_violations(page, "la mesa in English")
        # a build now and then: the build panel's words too
        cousin.play_turn(prefer_build=turns % 3 == 1, fits=True)
        turns += 1
    # the end of the hand: the score sheet, in English, axe clean and fitting
    sheet = page.locator("dialog.sheet[open]")
    assert sheet.locator("h2").inner_text().startswith("End of hand 1")
    assert sheet.locator("th[scope=row]").first.inner_text() == "At the start"
    assert_only(cousin, "en")
    assert_no_violations(page, "the score sheet in English")
    page.click("dialog.sheet button.next-hand")
    # the Menú: its settings and the way back to Spanish
    page.click(".topbar button:text('Menu')")
    menu = page.locator("dialog.menu[open]")
    menu.wait_for()
    assert menu.locator("button.switch").first.inner_text().startswith("Hints:")
    assert_only(cousin, "en")
    assert_no_violations(page, "the Menú in English")
    menu.locator("button[data-language='es-DO']").click()
    page.wait_for_selector(".mesa[data-seq] .topbar button:text('Menú')")
    assert_only(cousin, "es-DO")


@pytest.mark.parametrize("which", ["ayuda", "sobre"])
def test_the_reading_pages_in_english(make_player: MakePlayer, which: str) -> None:
    cousin = make_player(locale="en-US")
    cousin.goto("/")
    page = cousin.page
    page.click(
        "nav.links button:text('How to play')"
        if which == "ayuda"
        else "nav.links button:text('About casino')"
    )
    page.wait_for_selector(".page.reading h1")
    assert page.locator(".page.reading h1").inner_text() in ("How to play", "About casino")
    assert_only(cousin, "en")
    assert_no_violations(page, f"the reading page {which} in English")


def test_an_invitation_from_english_to_spanish(make_player: MakePlayer) -> None:
    """A cousin whose phone is in English invites an aunt whose phone is in Spanish: each
    reads only their own language, the WhatsApp text in the sender's."""
    cousin = make_player(locale="en-US")
    aunt = make_player(locale="es-DO")
    cousin.goto("/")
    cousin.page.fill("#nombre", "Luisito")
    cousin.page.click("button.friend")
    link = cousin.page.locator("[data-invite-link]")
    href = link.get_attribute("href") or ""
    wa = cousin.page.locator("a.whatsapp").get_attribute("href") or ""
    text = httpx.URL(wa).params["text"]
    assert text.startswith("Let's play casino! Come to my table: ") and text.endswith(href), text
    assert_only(cousin, "en")
    aunt.page.goto(href)
    assert aunt.page.locator("h1").inner_text() == "¡Luisito te invitó a jugar casino!"
    assert_only(aunt, "es-DO")
    aunt.page.fill("#nombre-invitado", "Tía Carmen")
    aunt.page.click("button[type=submit]")
    for p in (cousin, aunt):
        p.page.wait_for_selector(".mesa[data-seq]")
    aunt.page.wait_for_selector(".notice >> text=Luisito te invitó a su mesa")
    cousin.page.wait_for_selector(".notice >> text=Tía Carmen is here! The match starts.")
    assert_only(aunt, "es-DO")
    cousin.page.wait_for_selector(".opp-name .conn-dot:not(.off)")
    assert_only(cousin, "en")


def test_the_offline_game_in_english(make_player: MakePlayer) -> None:
    """One online visit in English keeps the English catalog with the offline kit: with no
    network at all, Inicio, the offline table and its refusals speak English."""
    cousin = make_player(locale="en-US")
    install(cousin)
    page = cousin.page
    page.click("button.menu-button")
    page.click("dialog.menu >> text=Leave to the start screen")
    page.wait_for_selector("main[data-screen='inicio']")
    cousin.context.set_offline(True)
    page.goto(cousin.base + "/")
    page.wait_for_selector("main[data-screen='inicio'] .sin-conexion")
    assert "There's no connection right now" in page.locator("#inicio-error").inner_text()
    assert_only(cousin, "en")
    page.click(".sin-conexion button[data-offline-level='facil']")
    page.wait_for_selector(".mesa[data-seq]")
    page.wait_for_function(TURN_OR_SHEET)
    assert "Computer" in page.locator(".topbar").inner_text()
    assert_only(cousin, "en")
    for turn in range(6):
        page.wait_for_function(TURN_OR_SHEET)
        if page.locator("dialog.sheet[open]").count():
            break
        play_turn_by_clicks(page, keyboard=turn % 2 == 1)
        assert_only(cousin, "en")
