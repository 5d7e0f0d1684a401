"""The browser client against the real server, driven by clicks in Debian's chromium."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect as ws_connect

from tests.support.a11y import assert_no_violations
from tests.support.browserkit import LANDSCAPE, LAPTOP, PHONE, Player, assert_fits, sheet_numbers
from tests.support.srvkit import ServerProc, apply_frame, my_turn, pick_move, split_frame

pytestmark = pytest.mark.browser

MakePlayer = Callable[..., Player]


def start_computer_game(player: Player, level: str = "facil") -> None:
    player.goto("/")
    player.page.click(f"button[data-level='{level}']")
    player.page.wait_for_selector(".mesa[data-seq]")


def start_friend_game(a: Player, b: Player, name_a: str = "Ana", name_b: str = "Beto") -> None:
    a.goto("/")
    a.page.fill("#nombre", name_a)
    a.page.click("button.friend")
    link = a.page.locator("[data-invite-link]")
    href = link.get_attribute("href") or ""
    # a plain link: the friend is told who invited them by the server, not by the link
    assert re.search(r"/j/[A-Z0-9]{8}$", href), href
    # the invitation can go by WhatsApp with the link inside, and as a QR code
    wa = a.page.locator("a.whatsapp").get_attribute("href") or ""
    assert wa.startswith("https://wa.me/?text=") and httpx.URL(wa).params["text"].endswith(href)
    b.page.goto(href + "?de=Computadora")  # a made-up sender changes nothing
    assert b.page.locator("h1").inner_text() == f"¡{name_a} te invitó a jugar casino!"
    b.page.fill("#nombre-invitado", name_b)
    b.page.click("button[type=submit]")
    for p in (a, b):
        p.page.wait_for_selector(".mesa[data-seq]")
    b.page.wait_for_selector(f".notice >> text={name_a} te invitó a su mesa")
    # once the friend is connected, the host is told the friend arrived (not "came back")
    a.page.wait_for_selector(".opp-name .conn-dot:not(.off)")
    assert "volvió" not in a.page.locator("main").inner_text()
    assert a.page.locator(".presence").count() == 0
    assert name_b in a.page.locator(".score.them .who").inner_text()
    assert name_a in b.page.locator(".score.them .who").inner_text()


def room_summary(player: Player) -> dict[str, Any]:
    room = player.welcome()["room"]
    answer = httpx.get(f"{player.base}/api/rooms/{room}", timeout=10)
    assert answer.status_code == 200
    return dict(answer.json())


def check_sheet_against_server(player: Player, hand_number: int) -> dict[str, Any]:
    """The score sheet on screen says what the server's hand_end event says, and adds up:
    from the score at the hand's start, category by category, to the match score; the
    points that came too late are struck out."""
    ends = [e for e in player.events("hand_end") if e["hand_number"] == hand_number]
    assert ends, "no hand_end event received"
    result = ends[-1]["result"]
    shown = sheet_numbers(player.page)
    sheet = player.page.locator("dialog.sheet[open]")
    for seat in (0, 1):
        assert shown["points"][seat] == result["points"][seat]
        assert shown["counted"][seat] == result["counted"][seat]
        assert shown["before"][seat] == result["scores_before"][seat]
        assert shown["scores"][seat] == result["scores"][seat]
        running = result["scores_before"][seat]
        for k in range(6):
            running += result["counted"][seat][k]
            assert shown["running"][seat][k] == running
            late = result["points"][seat][k] - result["counted"][seat][k]
            assert shown["late_marks"][seat][k] == (1 if late > 0 else 0)
        assert running == result["scores"][seat]
        # the raw counts: cards and spades as numbers, the aces by name
        counts = result["counts"][seat]
        cells = sheet.locator(f"tbody tr[data-category] td[data-seat='{seat}'] .count")
        assert cells.nth(0).inner_text().startswith(f"{counts['cards']} carta")
        assert cells.nth(1).inner_text().startswith(f"{counts['spades']} pica")
        assert cells.nth(2).inner_text() == ("Lo tiene" if counts["ten_of_diamonds"] else "—")
        limpias = cells.nth(5).inner_text()
        assert limpias.startswith(f"{counts['limpias']} limpia")
        # the limpias that cancel out are the server's figure, the same on both sides
        cancelled = counts["limpias_cancelled"]
        other = result["counts"][1 - seat]["limpias"]
        assert cancelled == min(counts["limpias"], other)
        assert ("anula" in limpias) == (cancelled > 0)
        if 0 < cancelled < counts["limpias"]:
            assert f"anula{'' if cancelled == 1 else 'n'} {cancelled}" in limpias
    return dict(result)


def check_tallies(player: Player) -> None:
    """Both players' captured cards, spades, 10♦ and 2♠ are on screen, as the view says."""
    view = player.view()
    for seat in (0, 1):
        tally = view["tally"][seat]
        box = player.page.locator(f".tally[data-tally-seat='{seat}']")
        assert box.get_attribute("data-cards") == str(tally["cards"])
        assert box.get_attribute("data-spades") == str(tally["spades"])
        assert box.locator(".t-cards").inner_text() == f"{tally['cards']} cartas"
        assert box.locator(".t-spades").inner_text().startswith(f"{tally['spades']} pica")
        keys = box.locator(".t-key").all_inner_texts()
        assert ("10♦" in keys) == tally["ten_of_diamonds"]
        assert ("2♠" in keys) == tally["two_of_spades"]


@pytest.mark.parametrize(
    "viewport", [PHONE, LANDSCAPE, LAPTOP], ids=["360x740", "740x360", "1280x800"]
)
def test_whole_hand_against_the_computer(make_player: MakePlayer, viewport: dict[str, int]) -> None:
    """A whole hand by clicking at each size: at every turn table, hand and actions are on
    screen together, the buttons are what the server allows, the tallies are right."""
    size = f"{viewport['width']}x{viewport['height']}"
    me = make_player(viewport=viewport)
    start_computer_game(me)
    me.wait_my_turn()
    assert me.page.locator(".hand .card").count() == 4
    assert me.page.locator(".opp-cards .card.back").count() == 4
    # after starting, the keyboard focus is on the hand
    me.page.wait_for_function("() => document.activeElement.matches('.hand .card')")
    assert_fits(me.page)
    me.screenshot(f"mesa-{size}")
    audit = viewport == PHONE  # axe once per screen, at the phone's size
    if audit:
        assert_no_violations(me.page, "la mesa")
    built = False
    shot_build = False
    turns = 0
    while me.wait_turn_or_sheet() == "turn":
        view = me.view()
        check_tallies(me)
        can_build = any(o["builds"] for o in view["options"])
        by_hand = next((o for o in view["options"] if o["build_takes"]), None)
        if not shot_build and not can_build and by_hand is not None:
            # a build in progress picked by hand, for the screenshot; then back out
            shot_build = True
            me.choose(by_hand, fits=True)
            me.page.click(".actions button.build")
            assert me.page.locator(".build-panel .build-confirm").count() == 0
            entry = by_hand["build_takes"][0]
            for item in entry["take"]:
                me.page.click(f".table-area [data-id='{item}']")
            values = me.page.locator(".build-panel .build-confirm").evaluate_all(
                "els => els.map(e => Number(e.dataset.value))"
            )
            assert values == entry["values"]
            assert_fits(me.page, ".build-panel .build-confirm")
            me.screenshot(f"build-{size}")
            if audit:
                assert_no_violations(me.page, "a build in progress")
            me.page.click(".build-panel button.back")
            me.page.click(".actions button.cancel")
            assert me.page.locator(".hand .card[aria-pressed='true']").count() == 0
        kind = me.play_turn(
            prefer_build=can_build and not built,
            fits=True,
            shot=None if built or shot_build else f"build-{size}",
        )
        shot_build = shot_build or kind == "build"
        built = built or kind == "build"
        turns += 1
        if me.wait_turn_or_sheet() == "turn":
            # after my move (and the computer's), the focus is back on the hand
            me.page.wait_for_function("() => document.activeElement.matches('.hand .card')")
    assert turns == 24  # six deals of four cards
    result = check_sheet_against_server(me, 0)
    summary = room_summary(me)
    assert summary["scores"] == result["scores"]
    me.screenshot(f"sheet-{size}")
    if audit:
        assert_no_violations(me.page, "the score sheet")
    if result["winner"] is None:
        me.page.click("dialog.sheet button.next-hand")
        me.page.wait_for_selector(".mesa[data-hand-number='1']")
        assert me.page.locator("dialog.sheet[open]").count() == 0
        scores = me.page.locator(".score .pts").all_inner_texts()
        assert sorted(int(s.split()[0]) for s in scores) == sorted(result["scores"])


def test_reload_brings_the_same_game_back(make_player: MakePlayer) -> None:
    me = make_player(anim_ms=300)
    start_computer_game(me, "normal")
    for _ in range(3):
        assert me.wait_turn_or_sheet() == "turn"
        me.play_turn()
        # the computer's card lands on the table before its move is drawn
        incoming = me.page.wait_for_selector(".table-area .card.incoming")
        assert incoming is not None
        assert incoming.evaluate("e => getComputedStyle(e).animationName") == "land"
        # drawn inside the table (the table clips its flight), not over the deck line
        assert incoming.evaluate(
            "e => { const t = e.closest('.table-area'); const s = getComputedStyle(t);"
            " return s.overflowY !== 'visible' && s.overflowX !== 'visible'; }"
        )
    me.wait_my_turn()
    hand = me.hand()
    table = me.page.locator(".table-area [data-id]").evaluate_all(
        "els => els.map(e => e.getAttribute('aria-label'))"
    )
    room = me.welcome()["room"]
    me.page.reload()
    me.page.wait_for_selector(".mesa[data-my-turn='true']")
    assert me.hand() == hand
    assert (
        me.page.locator(".table-area [data-id]").evaluate_all(
            "els => els.map(e => e.getAttribute('aria-label'))"
        )
        == table
    )
    assert me.welcome()["room"] == room
    # leaving for Inicio keeps the game: "Continuar partida" brings it back
    me.page.click(".menu-button")
    me.page.click("dialog.menu >> text=Salir al inicio")
    me.page.wait_for_selector("main[data-screen='inicio']")
    me.page.click("button.continue-game")
    me.page.wait_for_selector(".mesa[data-my-turn='true']")
    assert me.hand() == hand


def test_two_friends_play_a_whole_hand(make_player: MakePlayer) -> None:
    ana = make_player(viewport=PHONE)
    primo = make_player(viewport=LAPTOP)
    start_friend_game(ana, primo)
    players = (ana, primo)
    moves = 0
    turn = 0  # Ana created the room: she leads the first hand, then turns alternate
    while players[turn].wait_turn_or_sheet() == "turn":
        players[turn].play_turn()
        moves += 1
        turn = 1 - turn
    for p in players:
        p.page.wait_for_selector("dialog.sheet[open]")
    assert moves == 48
    a_result = check_sheet_against_server(ana, 0)
    p_result = check_sheet_against_server(primo, 0)
    assert a_result == p_result
    assert room_summary(ana)["scores"] == a_result["scores"]


def test_rejoin_by_link_then_by_short_code(make_player: MakePlayer) -> None:
    first = make_player()
    start_computer_game(first)
    first.wait_my_turn()
    first.play_turn()
    first.wait_my_turn()
    hand = first.hand()

    first.page.click(".menu-button")
    first.page.click("dialog.menu >> text=Seguir en otro dispositivo")
    link = first.page.locator("[data-rejoin-link]")
    href = link.get_attribute("href") or ""
    assert re.search(r"/r/[A-Za-z0-9_-]{20,}$", href), href
    first.page.wait_for_function(
        "() => { const i = document.querySelector('dialog.move img.qr');"
        " return i && i.complete && i.naturalWidth > 0; }"
    )

    second = make_player(viewport=LAPTOP)
    second.page.goto(href)
    second.page.wait_for_selector(".mesa[data-my-turn='true']")
    assert second.hand() == hand
    first.page.wait_for_selector("main[data-screen='movido']")
    assert "otro dispositivo" in first.page.locator("h1").inner_text()
    # the server said the seat went to another device: the old one forgot it
    first.page.click("text=Ir al inicio")
    first.page.wait_for_selector("main[data-screen='inicio']")
    assert first.page.locator("button.continue-game").count() == 0
    assert first.storage_session() == {}

    second.page.click(".menu-button")
    second.page.click("dialog.menu >> text=Seguir en otro dispositivo")
    code = second.page.locator("[data-rejoin-code]").inner_text().strip()
    assert re.fullmatch(r"[2-9A-Z]{9}", code), code

    third = make_player()
    third.goto("/")
    third.page.fill("#codigo", code.lower())
    third.page.click(".code-form button[type=submit]")
    third.page.wait_for_selector(".mesa[data-my-turn='true']")
    assert third.hand() == hand
    second.page.wait_for_selector("main[data-screen='movido']")
    third.play_turn()
    assert third.seq() > second.welcome()["seq"]


HINTS_SWITCH = "dialog.menu [role=switch]:not(.alerts):not(.mute-reactions)"


def test_hint_borders_are_exactly_the_cards_that_can_capture(make_player: MakePlayer) -> None:
    me = make_player()
    start_computer_game(me)
    checked = 0
    saw_some = saw_not_all = False
    while checked < 10 and me.wait_turn_or_sheet() == "turn":
        view = me.view()
        expected = {o["card"] for o in view["options"] if o["llevarte"]}
        shown = set(
            me.page.locator(".hand .card.can-capture").evaluate_all(
                "els => els.map(e => e.dataset.code)"
            )
        )
        assert shown == expected
        for code in shown:
            color = me.page.locator(f".hand .card[data-code='{code}']").evaluate(
                "e => getComputedStyle(e).borderTopColor"
            )
            assert color == "rgb(31, 211, 107)"
        saw_some = saw_some or bool(expected)
        saw_not_all = saw_not_all or len(expected) < len(view["options"])
        checked += 1
        me.play_turn()
    assert saw_some and saw_not_all
    me.wait_my_turn()
    # hints off: no borders, and it is remembered after a reload
    me.page.click(".menu-button")
    me.page.click(HINTS_SWITCH)
    assert me.page.locator(HINTS_SWITCH).get_attribute("aria-checked") == "false"
    me.page.keyboard.press("Escape")
    assert me.page.locator(".hand .card.can-capture").count() == 0
    # the Menú button was redrawn while the Menú was open: focus comes back to the new one
    me.page.wait_for_function("() => document.activeElement.dataset.focusKey === 'menu'")
    me.page.reload()
    me.wait_my_turn()
    assert me.page.locator(".hand .card.can-capture").count() == 0
    me.page.click(".menu-button")
    assert me.page.locator(HINTS_SWITCH).get_attribute("aria-checked") == "false"


def test_an_illegal_choice_is_explained_and_the_card_stays_chosen(make_player: MakePlayer) -> None:
    me = make_player()
    start_computer_game(me)
    for _ in range(24):
        assert me.wait_turn_or_sheet() == "turn"
        view = me.view()
        ranks = {c[:-1] for c in view["table"]["cards"]}
        pair = next(
            (
                (h, t)
                for h in view["hand"]
                for t in view["table"]["cards"]
                if h[:-1] != t[:-1] and h[:-1] not in ranks
            ),
            None,
        )
        if pair is not None:
            break
        me.play_turn()
    else:
        pytest.fail("never found a hand card and a loose card of another rank")
    hand_card, table_card = pair
    hand = me.hand()
    seq = me.seq()
    # keyboard only: focus the cards and press Enter
    me.page.focus(f".hand .card[data-code='{hand_card}']")
    me.page.keyboard.press("Enter")
    me.page.focus(f".table-area [data-id='{table_card}']")
    me.page.keyboard.press("Enter")
    assert (
        me.page.locator(f".table-area [data-id='{table_card}']").get_attribute("aria-pressed")
        == "true"
    )
    me.page.click(".actions button.take-picked")
    error = me.page.locator(".error-line")
    error.wait_for()
    sent = [m for m in me.frames if m.get("type") == "error"]
    assert sent and sent[-1]["code"] == "illegal"
    assert error.inner_text() == sent[-1]["message"]
    # the refused move keeps the chosen card and the marks: the player tries again from there
    assert me.page.locator(".hand .card[aria-pressed='true']").evaluate_all(
        "els => els.map(e => e.dataset.code)"
    ) == [hand_card]
    assert me.page.locator(".table-area [aria-pressed='true']").count() == 1
    assert me.hand() == hand and me.seq() == seq
    assert me.page.locator(".mesa").get_attribute("data-my-turn") == "true"


def test_friend_leaves_the_computer_takes_over_and_the_friend_returns(
    make_player: MakePlayer,
) -> None:
    ana = make_player()
    # Ana's device clock is an hour wrong: the countdown must not care
    ana.context.add_init_script("{ const real = Date.now; Date.now = () => real() + 3600 * 1000; }")
    beto = make_player()
    start_friend_game(ana, beto)
    # the invited seat is "amigo" (or the friend's name), never "primo"
    assert "primo" not in ana.page.locator("main").inner_text().lower()
    ana.wait_my_turn()
    ana.play_turn()  # now it is Beto's turn, and Beto leaves
    beto.page.close()
    # a countdown of the grace time, from the seconds the server said were left
    clock = ana.page.locator(".presence.away .countdown")
    clock.wait_for(timeout=5000)
    assert "Beto se fue de la mesa" in ana.page.locator(".presence").inner_text()
    first = clock.inner_text()
    assert re.fullmatch(r"0:0[1-3]", first), first
    ana.page.wait_for_function(
        "(t) => { const c = document.querySelector('.presence .countdown');"
        " return !c || c.textContent !== t; }",
        arg=first,
    )
    if clock.count():
        assert int(clock.inner_text()[-1]) < int(first[-1])
    ana.page.wait_for_selector(".presence.choose", timeout=5000)
    ana.screenshot("amigo-se-fue-360x740")
    ana.page.click(".presence.choose >> text=Sí, en Normal")
    ana.page.wait_for_selector(".presence.takeover")
    assert "juega por Beto" in ana.page.locator(".presence.takeover").inner_text()
    # the computer plays Beto's turns; Ana plays hers
    for _ in range(2):
        ana.wait_my_turn()
        ana.play_turn()
    ana.wait_my_turn()
    for_beto = [e for e in ana.events("move") if e["seat"] == 1]
    assert len(for_beto) >= 2
    last = ana.view()["last_move"]
    assert last["seat"] == 1

    beto.new_page()
    beto.goto("/")
    beto.page.wait_for_selector(".mesa[data-seq]")
    notice = beto.page.locator(".notice")
    notice.wait_for()
    assert "Volviste a tu asiento" in notice.inner_text()
    # the last move line says the computer played it for him
    verb = {"trail": "echó", "capture": "jugó", "build": "puso"}[last["move"]["kind"]]
    line = beto.page.locator(".lastmove [aria-hidden='true']").inner_text()
    assert line.startswith(f"La computadora {verb} ") and "por ti" in line, line
    ana.page.wait_for_selector(".notice >> text=¡Beto volvió a la mesa!")
    assert ana.page.locator(".presence").count() == 0
    # Beto's seat is his again: after Ana's move, he plays by clicking
    ana.play_turn()
    beto.wait_my_turn()
    beto.play_turn()
    ana.page.wait_for_function(
        "(s) => document.querySelector('dialog.sheet[open]') ||"
        " Number(document.querySelector('.mesa').dataset.seq) >= s",
        arg=beto.seq(),
    )
    moves = ana.events("move")
    assert moves[-1]["seat"] == 1 and moves[-1] == beto.events("move")[-1]


def test_a_whole_match_ends_with_the_winner_and_a_rematch(make_player: MakePlayer) -> None:
    me = make_player(viewport=LAPTOP)
    start_computer_game(me)
    hand_number = 0
    start_scores = [0, 0]
    solo_played = 0
    while True:
        while me.wait_turn_or_sheet() == "turn":
            before = len(me.events("move"))
            if me.play_turn(prefer_solo=solo_played < 2) == "capture-solo":
                solo_played += 1
                # the move sent is the server's "llevarte_solo" for that card
                played = next(e for e in me.events("move")[before:] if e["seat"] == 0)
                option = next(o for o in me.last_options if o["card"] == played["move"]["card"])
                assert played["move"] == option["llevarte_solo"]
        result = check_sheet_against_server(me, hand_number)
        # with 18 or more at the start of a hand, the sheet says only three categories count
        late = me.page.locator("dialog.sheet .late-rule").count()
        assert late == (1 if max(start_scores) >= 18 else 0)
        start_scores = result["scores"]
        if result["winner"] is not None:
            break
        me.page.click("dialog.sheet button.next-hand")
        hand_number += 1
        me.page.wait_for_selector(f".mesa[data-hand-number='{hand_number}']")
        assert hand_number < 15
    match_end = me.events("match_end")
    assert match_end and match_end[-1]["winner"] == result["winner"]
    winner_line = me.page.locator("dialog.sheet .winner")
    assert winner_line.get_attribute("data-winner") == str(result["winner"])
    expected = "¡Llegaste a 21!" if result["winner"] == 0 else "llegó a 21"
    assert expected in winner_line.inner_text()
    assert max(result["scores"]) >= 21
    me.screenshot("fin-de-partida-1280x800")
    assert room_summary(me)["status"] == "finished"
    # leave for Inicio, come back to the finished game from Mis partidas (a finished match
    # is not "continued"), and ask for the rematch from la mesa
    me.page.click("dialog.sheet >> text=Volver al inicio")
    me.page.wait_for_selector("main[data-screen='inicio']")
    me.page.get_by_role("button", name="Cómo se juega").click()  # Inicio stays usable
    me.page.wait_for_selector("main[data-screen='ayuda']")
    assert me.page.locator(".mesa").count() == 0
    me.page.get_by_role("button", name="Volver al inicio").first.click()
    assert me.page.locator("button.continue-game").count() == 0
    me.page.click(".mis-partidas .game[data-status='finished'] .game-open")
    me.page.wait_for_selector(".mesa .actions button.rematch")
    assert me.page.locator("dialog[open]").count() == 0
    me.page.click(".mesa .actions button.rematch")
    me.page.wait_for_function(
        "() => [...document.querySelectorAll('.score .pts')]"
        ".every(e => parseInt(e.textContent) === 0)"
    )
    assert room_summary(me)["match"] == 2
    assert me.wait_turn_or_sheet() == "turn"
    assert len(me.hand()) == 4


def test_lost_signal_reconnects_and_resumes(make_player: MakePlayer, tmp_path: Path) -> None:
    """The server goes away mid-game (as when the phone loses signal): the page says
    "Reconectando…", retries, and when the server is back the same game continues."""
    server = ServerProc(tmp_path, {"WS_RATE": "1000", "WS_BURST": "1000"}).start()
    try:
        me = make_player(base=server.base)
        start_computer_game(me)
        for _ in range(2):
            me.wait_my_turn()
            me.play_turn()
        me.wait_my_turn()
        hand, seq = me.hand(), me.seq()
        server.stop()
        banner = me.page.locator("#banner")
        banner.wait_for(state="visible")
        # the banner blames the server, not the player's signal
        assert "Se perdió la conexión con el servidor" in banner.inner_text()
        assert me.page.locator(".mesa").get_attribute("data-busy") == "true"
        # a few failed attempts (the old backoff had grown to 8 s by then)
        me.page.wait_for_selector("#banner >> text=Seguimos intentando", timeout=10_000)
        hellos_before = sum(1 for m in me.frames if m.get("type") == "welcome")
        server.start()
        # back within 3 s of the server answering again
        banner.wait_for(state="hidden", timeout=3_000)
        me.wait_my_turn()
        assert me.hand() == hand and me.seq() == seq
        assert sum(1 for m in me.frames if m.get("type") == "welcome") == hellos_before + 1
        me.play_turn()
        assert me.seq() > seq
    finally:
        server.stop()


def test_a_build_picked_by_hand(make_player: MakePlayer) -> None:
    """Hints off: the player taps the table cards; the values offered are the server's
    for exactly that set, and the confirm button is on screen."""
    me = make_player()
    me.goto("/")
    me.page.evaluate("() => localStorage.setItem('casino.ayudas', 'no')")
    start_computer_game(me)
    option = me.play_until(lambda o: bool(o["builds"]))
    if option is None:
        pytest.fail("no build was possible in two hands")
    idea = option["builds"][0]
    me.choose(option)
    me.page.click(".actions button.build")
    assert me.page.locator(".build-panel .ideas").count() == 0  # hints are off
    assert me.page.locator(".build-panel .build-confirm").count() == 0
    for item in idea["move"]["take"]:
        me.page.click(f".table-area [data-id='{item}']")
    entry = next(
        e for e in option["build_takes"] if sorted(e["take"]) == sorted(idea["move"]["take"])
    )
    values = me.page.locator(".build-panel .build-confirm").evaluate_all(
        "els => els.map(e => Number(e.dataset.value))"
    )
    assert values == entry["values"] and idea["value"] in values
    assert_fits(me.page, ".build-panel .build-confirm")
    before = me.seq()
    # hold the computer's answer on screen long enough to look at the new pile
    me.page.evaluate("() => localStorage.setItem('casino.animMs', '4000')")
    me.page.click(f".build-panel .build-confirm[data-value='{idea['value']}']")
    me.page.wait_for_function(
        "(s) => Number(document.querySelector('.mesa').dataset.seq) > s", arg=before
    )
    mine = [e for e in me.events("move") if e["seat"] == 0]
    assert mine[-1]["move"]["kind"] == "build"
    assert mine[-1]["move"]["value"] == idea["value"]
    assert sorted(mine[-1]["move"]["take"]) == sorted(idea["move"]["take"])
    pile = me.page.locator(".table-area .pile.mine")
    assert pile.count() >= 1
    assert (pile.first.get_attribute("aria-label") or "").startswith("Tu montón")


CARD_NAME = re.compile(
    r"^(A|[2-9]|10|J|Q|K)[♠♥♦♣], "
    r"(as|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|jota|reina|rey) de "
    r"(picas|corazones|diamantes|tréboles)(, .+)?$"
)


def test_pages_names_and_announcements(make_player: MakePlayer) -> None:
    me = make_player()
    me.goto("/")
    assert me.page.locator("html").get_attribute("lang") == "es-DO"
    me.page.get_by_role("button", name="Cómo se juega").click()
    assert me.page.locator("main[data-screen='ayuda'] h1").all_inner_texts() == ["Cómo se juega"]
    assert "21" in me.page.locator("main").inner_text()
    me.page.get_by_role("button", name="Volver al inicio").first.click()
    me.page.get_by_role("button", name="Sobre el casino").click()
    assert "no se apuesta" in me.page.locator("main").inner_text()
    me.page.get_by_role("button", name="Volver al inicio").first.click()

    me.page.click("button[data-level='facil']")
    me.wait_my_turn()
    labels = me.page.locator(".hand .card, .table-area .card").evaluate_all(
        "els => els.map(e => e.getAttribute('aria-label'))"
    )
    assert len(labels) == 8 and all(CARD_NAME.match(label) for label in labels), labels
    assert me.page.locator(".hand .card").evaluate_all(
        "els => els.every(e => e.tagName === 'BUTTON')"
    )
    # a whole turn by keyboard: Enter on a card puts the focus on its first possible action
    for _ in range(24):
        view = me.view()
        capture = next((o for o in view["options"] if o["llevarte"]), None)
        if capture is not None:
            break
        me.play_turn()
        assert me.wait_turn_or_sheet() == "turn"
    assert capture is not None, "no capture in a whole hand"
    seq = me.seq()
    me.page.focus(f".hand .card[data-code='{capture['card']}']")
    me.page.keyboard.press("Enter")
    me.page.wait_for_function("() => document.activeElement.matches('.actions button.take')")
    me.page.keyboard.press("Enter")
    me.page.wait_for_function(
        "(s) => Number(document.querySelector('.mesa').dataset.seq) > s", arg=seq
    )
    mine = [e for e in me.events("move") if e["seat"] == 0][-1]
    assert mine["move"] == capture["llevarte"]
    me.wait_my_turn()
    said = me.page.locator("#announcer")
    assert said.get_attribute("aria-live") == "polite"
    # the region is emptied, then filled a moment later (so the same words are said again)
    me.page.wait_for_function(
        "() => /(jugó|echó|puso|Te toca)/.test(document.getElementById('announcer').textContent)"
    )
    assert said.inner_text()
    # the speed of the opponent's moves is a setting of the Menú, remembered on the device
    me.page.click(".menu-button")
    me.page.get_by_role("button", name="Despacio").click()
    assert me.page.evaluate("() => localStorage.getItem('casino.animMs')") == "2600"
    assert me.page.get_by_role("button", name="Despacio").get_attribute("aria-pressed") == "true"


def test_a_focus_the_player_moved_is_not_pulled_back(make_player: MakePlayer) -> None:
    """Enter on a card puts the focus on its first action once the table is drawn again; a
    player who has already moved the focus on (a quick keyboard, a slow phone that draws the
    frame late) keeps it where they put it."""
    me = make_player()
    me.goto("/")
    me.page.click("button[data-level='facil']")
    me.wait_my_turn()
    card = next(
        o["card"] for o in me.view()["options"] if o["llevarte"] or o["trail"] or o["builds"]
    )
    focused = me.page.evaluate(
        """(code) => new Promise((done) => {
          const card = document.querySelector(`.hand .card[data-code="${code}"]`);
          card.focus();
          card.click();  // chosen: the focus goes to its first action at the next frame...
          document.querySelector('.actions button.cancel').focus();  // ...but the player moved on
          requestAnimationFrame(() => requestAnimationFrame(
            () => done(document.activeElement.textContent)));
        })""",
        card,
    )
    assert focused == "Cancelar"
    # with nobody moving it, the focus goes to the first action, as before
    me.page.click(".actions button.cancel")
    me.page.focus(f".hand .card[data-code='{card}']")
    me.page.keyboard.press("Enter")
    me.page.wait_for_function(
        "() => document.activeElement.matches('.actions .button-row button:first-child')"
    )


def test_reduced_motion_keeps_the_pause_without_the_flight(make_player: MakePlayer) -> None:
    me = make_player(anim_ms=1500, reduced_motion="reduce")
    start_computer_game(me)
    me.wait_my_turn()
    me.play_turn()
    incoming = me.page.wait_for_selector(".table-area .card.incoming")
    assert incoming is not None
    assert incoming.evaluate("e => getComputedStyle(e).animationName") == "none"
    assert me.page.locator(".mesa").get_attribute("data-busy") == "true"
    me.wait_my_turn()
    assert me.page.locator(".table-area .card.incoming").count() == 0


def test_a_pile_that_cannot_be_made_is_explained_by_the_server(make_player: MakePlayer) -> None:
    """In the build panel, marks that make no pile say so; "¿Por qué no?" sends the move
    exactly as the player composed it and shows the server's reason for that move."""
    me = make_player()
    start_computer_game(me)

    def wrong_marks(option: dict[str, Any]) -> list[str] | None:
        if not option["build_takes"]:
            return None
        view = me.view()
        items = view["table"]["cards"] + [p["id"] for p in view["table"]["piles"]]
        ok = {tuple(sorted(e["take"])) for e in option["build_takes"]}
        return next(([i] for i in items if (i,) not in ok), None)

    option = me.play_until(lambda o: wrong_marks(o) is not None)
    if option is None:
        pytest.fail("no card with builds and a table item it cannot build on")
    marks = wrong_marks(option)
    assert marks is not None
    me.choose(option)
    me.page.click(".actions button.build")
    # nothing marked yet: no value, no confirm button
    assert me.page.locator(".build-panel .build-confirm").count() == 0
    assert "Valor" not in me.page.locator(".build-panel").inner_text()
    for item in marks:
        me.page.click(f".table-area [data-id='{item}']")
    assert "no sale un montón" in me.page.locator(".build-panel .no-build").inner_text()
    assert me.page.locator(".build-panel .build-confirm").count() == 0
    seq = me.seq()
    me.page.click(".build-panel button.why-not")
    error = me.page.locator(".error-line")
    error.wait_for()
    sent = [m for m in me.frames if m.get("type") == "error"]
    assert sent[-1]["code"] == "illegal" and sent[-1]["reason"].startswith("build")
    assert error.inner_text() == sent[-1]["message"]
    # the card stays chosen, the marks stay, nothing was played
    assert me.page.locator(".hand .card[aria-pressed='true']").evaluate_all(
        "els => els.map(e => e.dataset.code)"
    ) == [option["card"]]
    assert (
        me.page.locator(".table-area [aria-pressed='true']").evaluate_all(
            "els => els.map(e => e.dataset.id)"
        )
        == marks
    )
    assert me.seq() == seq


class FriendBot(threading.Thread):
    """The friend's seat played by a plain websocket client (not a browser) so a whole
    match between friends stays quick: it plays its turns from the options and asks for
    the rematch as soon as the match ends."""

    def __init__(self, ws_url: str, token: str) -> None:
        super().__init__(daemon=True)
        self.ws_url, self.token = ws_url, token
        self.stop = threading.Event()
        self.log: list[dict[str, Any]] = []
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            with ws_connect(self.ws_url, open_timeout=10) as ws:
                ws.send(
                    json.dumps({"type": "hello", "version": 3, "token": self.token, "since": None})
                )
                played, held = -1, None
                while not self.stop.is_set():
                    try:
                        frame = json.loads(ws.recv(timeout=0.1))
                    except TimeoutError:
                        continue
                    held = apply_frame(held, frame)
                    for msg in split_frame(frame, held):
                        self.log.append(msg)
                        event = msg.get("event") or {}
                        if event.get("kind") == "match_end":
                            ws.send(json.dumps({"type": "rematch"}))
                        view = msg.get("view")
                        if view and my_turn(view) and view["seq"] != played:
                            played = view["seq"]
                            ws.send(
                                json.dumps(
                                    {
                                        "type": "move",
                                        "move": pick_move(view),
                                        "seq": view["seq"],
                                        "id": f"bot-{played}",
                                    }
                                )
                            )
        except BaseException as error:  # reported by the test
            self.error = error


def test_friends_rematch_when_both_ask(make_player: MakePlayer, web_server: ServerProc) -> None:
    ana = make_player(viewport=LAPTOP)
    ana.goto("/")
    ana.page.fill("#nombre", "Ana")
    ana.page.click("button.friend")
    code = ana.page.locator("[data-invite-code]").inner_text()
    joined = web_server.post("/api/join", {"invite": code, "name": "Primo"})
    assert joined.status_code == 200, joined.text
    bot = FriendBot(web_server.ws_url, joined.json()["token"])
    bot.start()
    try:
        ana.page.wait_for_selector(".mesa[data-seq]")
        hand_number = 0
        while True:
            while ana.wait_turn_or_sheet(timeout=30_000) == "turn":
                ana.play_turn()
            result = check_sheet_against_server(ana, hand_number)
            if result["winner"] is not None:
                break
            ana.page.click("dialog.sheet button.next-hand")
            hand_number += 1
            ana.page.wait_for_selector(f".mesa[data-hand-number='{hand_number}']")
            assert hand_number < 15 and bot.error is None
        # Primo asked first: Ana reads it on the sheet, and her yes starts the new match
        ana.page.wait_for_selector(
            "dialog.sheet .rematch-note:has-text('Primo quiere la revancha')"
        )
        ana.page.click("dialog.sheet button.rematch")
        ana.page.wait_for_selector("dialog.sheet", state="detached")
        ana.page.wait_for_function(
            "() => [...document.querySelectorAll('.score .pts')]"
            ".every(e => parseInt(e.textContent) === 0)"
        )
        assert room_summary(ana)["match"] == 2
        assert any(m.get("event", {}).get("kind") == "rematch" for m in bot.log)
    finally:
        bot.stop.set()
        bot.join(5)
    assert bot.error is None, bot.error
