"""Words and screen readers (issue 20, items 7, 10 and 11), in Debian's chromium against the
real server: what la mesa says under a card, the countdown as a screen reader reads it, the
Spanish of card names and of late points, the reading pages' headings, and a few words."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from tests.support.a11y import assert_no_violations
from tests.support.browserkit import LANDSCAPE, LAPTOP, PHONE, Player
from tests.support.srvkit import ServerProc
from tests.support.tablekit import computer_room, event_of, hold_seat, play_by_socket

pytestmark = pytest.mark.browser

MakePlayer = Callable[..., Player]
TAP_TABLE = "También puedes tocar en la mesa lo que te quieres llevar."


def start_computer_game(player: Player) -> None:
    player.goto("/")
    player.page.click("button[data-level='facil']")
    player.page.wait_for_selector(".mesa[data-seq]")


# -- item 7: the line under a card ---------------------------------------------------------


def only_thrown(option: dict[str, Any]) -> bool:
    return bool(option["trail"] and not option["llevarte"] and not option["build_takes"])


def test_tap_the_table_is_said_only_for_a_card_that_can_take(make_player: MakePlayer) -> None:
    me = make_player(viewport=PHONE)
    start_computer_game(me)
    page = me.page
    seen = {"thrown": False, "takes": False}
    for _ in range(96):
        if all(seen.values()):
            break
        if me.wait_turn_or_sheet() == "sheet":
            page.click("dialog.sheet button.next-hand")
            continue
        for option in me.view()["options"]:
            kind = "thrown" if only_thrown(option) else "takes" if option["llevarte"] else None
            if kind is None or seen[kind]:
                continue
            page.click(f".hand .card[data-code='{option['card']}']")
            page.wait_for_selector(".actions .button-row")
            lines = page.locator(".actions p").all_inner_texts()
            assert (TAP_TABLE in lines) == (kind == "takes"), (option, lines)
            seen[kind] = True
            page.click(".actions button.cancel")
        me.play_turn()
    assert all(seen.values()), seen


# -- item 10: screen readers ---------------------------------------------------------------


def test_the_countdown_is_read_as_it_counts(make_player: MakePlayer) -> None:
    ana = make_player()
    beto = make_player(viewport=LANDSCAPE)
    ana.goto("/")
    ana.page.fill("#nombre", "Ana")
    ana.page.click("button.friend")
    beto.page.goto(ana.page.locator("[data-invite-link]").get_attribute("href") or "")
    beto.page.fill("#nombre-invitado", "Beto")
    beto.page.click("button[type=submit]")
    ana.page.wait_for_selector(".opp-name .conn-dot:not(.off)")
    beto.context.close()  # Beto leaves: the grace time counts down (GRACE_SECONDS=3)
    page = ana.page
    page.wait_for_selector(".presence.away .countdown")
    read = (
        "() => [document.querySelector('.presence .countdown')?.textContent,"
        " document.querySelector('.presence .countdown + .sr-only')?.textContent]"
    )
    first = page.evaluate(read)
    assert first[1] is not None, first
    page.wait_for_function(
        f"(f) => {{ const r = ({read})(); return r[1] && r[1] !== f; }}", arg=first[1]
    )
    for clock, said in (first, page.evaluate(read)):
        if clock is None:
            continue
        seconds = int(clock.split(":")[0]) * 60 + int(clock.split(":")[1])
        assert said == ("1 segundo" if seconds == 1 else f"{seconds} segundos"), (clock, said)
    assert_no_violations(page, "la mesa, the friend away")


def test_card_names_and_late_points_in_good_spanish(make_player: MakePlayer) -> None:
    me = make_player()
    me.goto("/")
    said = me.page.evaluate(
        """async () => {
          const cards = await import('/static/js/ui/cards.js');
          const words = await import('/static/js/ui/words.js');
          const trail = { kind: 'move', seat: 1, move: { kind: 'trail', card: 'Jh' }, taken: [] };
          return [cards.cardNameWithArticle('Jh'), cards.cardNameWithArticle('Qs'),
                  cards.cardNameWithArticle('Kd'), cards.cardNameWithArticle('Ac'),
                  words.moveSentence(trail, { who: 'Ana' })]; }"""
    )
    assert said == [
        "la jota de corazones",
        "la reina de picas",
        "el rey de diamantes",
        "el as de tréboles",
        "Ana echó la jota de corazones a la mesa.",
    ]
    cells = me.page.evaluate(
        """async () => {
          const sheet = await import('/static/js/ui/sheet.js');
          const facts = sheet.sheetFacts({
            points: [[3, 1, 2, 0, 0, 0], [0, 0, 0, 1, 1, 0]],
            counted: [[3, 1, 0, 0, 0, 0], [0, 0, 0, 1, 1, 0]],
            scores_before: [17, 5], scores: [21, 7], limited: [false, false],
            eligible: [[true, true, true, true, true, true], [true, true, true, true, true, true]],
            categories: ['Cartas', 'Picas', 'Diez de diamantes', 'Dos de picas', 'Ases', 'Limpias'],
            counts: null });
          const table = sheet.sheetTable(facts, 0, 'Computadora');
          const said = table.querySelectorAll('td[data-seat="0"] .sr-only');
          return [...said].map(e => e.textContent); }"""
    )
    assert cells[2] == "0 puntos, y 2 puntos que llegaron tarde y no cuentan. Van 21.", cells
    assert "llegó tarde" not in " ".join(cells)


@pytest.mark.parametrize("which", ["ayuda", "sobre"])
def test_the_reading_pages_have_their_headings_in_order(
    make_player: MakePlayer, which: str
) -> None:
    me = make_player(viewport=PHONE)
    me.goto("/")
    label = "Cómo se juega" if which == "ayuda" else "Sobre el casino"
    me.page.get_by_role("button", name=label).click()
    me.page.wait_for_selector(f"main[data-screen='{which}']")
    levels = me.page.locator("main h1, main h2, main h3").evaluate_all(
        "els => els.map(e => Number(e.tagName[1]))"
    )
    assert levels[0] == 1 and all(b - a <= 1 for a, b in zip(levels, levels[1:], strict=False))
    assert_no_violations(me.page, label)
    if which == "sobre":  # the three levels, Difícil too
        text = me.page.locator("main").inner_text()
        assert all(level in text for level in ("Fácil", "Normal", "Difícil")), text


# -- item 11: words ------------------------------------------------------------------------


def test_the_code_box_shows_its_example_as_written(make_player: MakePlayer) -> None:
    me = make_player(viewport=PHONE)
    me.goto("/")
    box = me.page.locator("#codigo")
    assert box.get_attribute("placeholder") == "Ej.: K7M2QX9PA"
    assert box.evaluate("e => getComputedStyle(e, '::placeholder').textTransform") == "none"
    box.fill("k7m2")
    assert box.evaluate("e => getComputedStyle(e).textTransform") == "uppercase"  # a code


def test_the_replay_says_what_each_one_took(
    make_player: MakePlayer, web_server: ServerProc
) -> None:
    room = computer_room(web_server)
    play_by_socket(web_server, room["token"], event_of("match_end"))
    me = make_player(viewport=LAPTOP)
    hold_seat(me, room, since=None, active=False)
    me.goto("/")
    page = me.page
    page.click(".mis-partidas .g-replay")
    page.wait_for_selector(".replay[data-step='0']")
    for _ in range(6):
        page.click(".r-next")
    said = page.locator(".replay .tally .sr-only").all_inner_texts()
    assert said and all(re.match(r"Se llevó \d+ cartas?", s) for s in said), said
    text = page.locator("main").inner_text() + " ".join(said)
    assert "ha llevado" not in text and "Llevadas" not in text
    # la mesa says it to the player in the second person
    start_computer_game(me)
    mine = page.locator(".tally[data-tally-seat='0'] .sr-only").inner_text()
    assert mine.startswith("Te llevaste "), mine


def test_the_other_screens_pass_axe(make_player: MakePlayer) -> None:
    """The screens the other tests do not run axe on: la mesa opened in another tab (and
    taken back), "Cómo se juega" inside la mesa, a watch link and a replay link that lead
    nowhere."""
    me = make_player(viewport=PHONE)
    start_computer_game(me)
    first = me.page
    me.new_page()  # another tab of the same device opens the same game
    me.goto("/")
    me.page.wait_for_selector(".mesa[data-seq]")
    first.wait_for_selector("main[data-screen='movido']")
    assert first.locator("h1").inner_text() == "La partida se abrió en otra pestaña"
    assert_no_violations(first, "la partida se abrió en otra pestaña")
    first.click("text=Seguir aquí")  # the seat is this tab's again
    first.wait_for_selector("main[data-screen='mesa'] .mesa[data-seq]")
    me.page.wait_for_selector("main[data-screen='movido']")
    first.click(".menu-button")
    first.click("dialog.menu >> text=Cómo se juega")
    first.wait_for_selector("dialog.help[open]")
    assert_no_violations(first, "Cómo se juega, in la mesa")
    for path, screen in (
        ("/v/ZZZZZZZZZZZZ", "mirar-error"),
        ("/p/ZZZZZZZZZZZZZZZZZZZZZZ", "repeticion"),
    ):
        me.page.goto(me.base + path)
        me.page.wait_for_selector(f"main[data-screen='{screen}'] [role=alert]")
        assert_no_violations(me.page, path)
