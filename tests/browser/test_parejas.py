"""A table of four in the browser (issue 27), against the real server: made on Inicio
("Jugar en parejas"), its one link shared, each friend choosing a chair on the invitation
(someone who sat first in a chosen chair: choose again), the waiting table saying who is
missing, the creator giving a missing chair to the computer; four browser contexts at
360×740."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.support.a11y import assert_no_violations
from tests.support.browserkit import LANDSCAPE, PHONE, Player

pytestmark = pytest.mark.browser

MakePlayer = Callable[..., Player]

PLAYING = """() => { const m = document.querySelector('.mesa');
  return !!m && !m.classList.contains('waiting') && m.dataset.seq !== undefined; }"""


def make_table(
    host: Player, name: str, chairs: dict[int, str], turns: bool = False, shot: bool = True
) -> None:
    """Inicio, "Jugar en parejas": `chairs` says who sits in seats 1..3 ("friend", or a
    computer level)."""
    host.goto("/")
    page = host.page
    page.fill("#nombre", name)
    form = page.locator("#parejas-sillas")
    assert form.count() == 0  # Inicio is as short as it was until the chairs are asked for
    page.click("button.pairs")
    assert page.locator("button.pairs").get_attribute("aria-expanded") == "true"
    # the partner's chair comes first, then the rivals
    legends = form.locator("fieldset.chair legend strong").all_inner_texts()
    assert legends == ["Tu pareja", "Primer rival", "Segundo rival"]
    for seat, who in chairs.items():
        if who == "friend":
            page.check(f"#silla-{seat}-friend")
            assert page.locator(f"#silla-{seat}-nivel").is_hidden()
        else:
            page.check(f"#silla-{seat}-computer")
            page.select_option(f"#silla-{seat}-nivel", who)
    if turns:
        page.check("#por-turnos-parejas")
    if shot:
        page.locator("#parejas-sillas").scroll_into_view_if_needed()
        host.screenshot("parejas-inicio-360x740")
    page.click("button.pairs-go")


def invite_link(host: Player) -> str:
    host.page.wait_for_selector(".mesa.waiting")
    href = host.page.locator("[data-invite-link]").get_attribute("href") or ""
    assert re.search(r"/j/[A-Z0-9]{8}$", href), href
    wa = host.page.locator("a.whatsapp").get_attribute("href") or ""
    text = httpx.URL(wa).params["text"]
    assert text.endswith(href) and "parejas" in text, text
    return href


def free_chairs(player: Player) -> list[int]:
    return [
        int(v)
        for v in player.page.locator(".chairs-pick input[name=silla]").evaluate_all(
            "els => els.map(e => e.value)"
        )
    ]


def sit(player: Player, href: str | None, seat: int, name: str, submit: bool = True) -> None:
    """Opens the invitation (unless `href` is None: it is open), chooses the chair `seat`
    (by tapping its card) and writes the name."""
    if href is not None:
        player.page.goto(href)
        player.page.wait_for_selector(".chairs-pick")
    player.page.click(f".pick-chair[data-seat='{seat}'] label")
    assert player.page.locator(f"#silla-{seat}").is_checked()
    player.page.fill("#nombre-invitado", name)
    if submit:
        player.page.click("form button[type=submit]")


def play_the_hand(by_seat: dict[int, Player], reload_after: int | None = None) -> int:
    """Plays by clicking, each on their own device, whoever's turn it is, until the hand's
    score sheet opens; reloads the page of the partner (seat 2) after `reload_after` moves.
    Returns how many moves were played."""
    first = by_seat[0]
    first.page.wait_for_function(PLAYING)
    turn = int(first.view()["turn"])
    for moves in range(60):  # 40 cards: a hand ends well before
        mover = by_seat[turn]
        if mover.wait_turn_or_sheet() == "sheet":
            return moves
        mover.play_turn()
        if mover.sheet_open():
            return moves + 1
        if moves + 1 == reload_after:
            seat2 = by_seat[2]
            seat2.page.reload()
            seat2.page.wait_for_function(PLAYING)
        turn = int(mover.view()["turn"])
    raise AssertionError("the hand did not end")


def last_view(player: Player) -> dict[str, Any]:
    return next(dict(m["view"]) for m in reversed(player.frames) if m.get("view"))


def missing_line(player: Player) -> str:
    return player.page.locator(".missing-line").inner_text()


def test_four_friends_make_share_sit_and_reach_the_table(make_player: MakePlayer) -> None:
    abuela, nieto, prima, primo = (make_player(viewport=PHONE) for _ in range(4))
    make_table(abuela, "Abuela", {1: "friend", 2: "friend", 3: "friend"})
    href = invite_link(abuela)
    assert missing_line(abuela) == "Faltan 3 jugadores: tu pareja y los dos rivales."
    # the creator may give each missing chair to the computer
    assert abuela.page.locator("button.give-chair").count() == 3

    # the grandson sits across from her
    nieto.page.goto(href)
    assert nieto.page.locator("h1").inner_text() == "¡Abuela te invitó a jugar casino en parejas!"
    assert free_chairs(nieto) == [1, 2, 3]
    partner_chair = nieto.page.locator(".pick-chair[data-seat='2']")
    assert "Pareja de Abuela" in partner_chair.inner_text()
    assert "Juegas con Abuela, contra dos que aún no llegan." in partner_chair.inner_text()
    # a rival's chair: her partner still to come, said by where she sits
    assert "Juegas con quien se siente frente a ti, contra Abuela y su pareja." in (
        nieto.page.locator(".pick-chair[data-seat='3']").inner_text()
    )
    # no chair chosen yet: asked for one, nothing sent
    nieto.page.fill("#nombre-invitado", "Nieto")
    nieto.page.click("form button[type=submit]")
    assert "Toca la silla libre" in nieto.page.locator(".error-line").inner_text()
    nieto.screenshot("parejas-invitacion-360x740")
    sit(nieto, None, 2, "Nieto")
    nieto.page.wait_for_selector(".mesa.waiting")
    assert nieto.page.locator("h1").inner_text() == "¡Ya tienes tu silla!"
    # everyone seated has the link to pass on; only the creator gives chairs away
    assert nieto.page.locator("[data-invite-link]").get_attribute("href") == href
    assert nieto.page.locator("button.give-chair").count() == 0
    assert missing_line(nieto) == "Faltan 2 jugadores: los dos rivales."
    abuela.page.wait_for_function(
        "() => document.querySelector('.missing-line')?.textContent.startsWith('Faltan 2')"
    )
    assert "Nieto" in abuela.page.locator(".wait-chair[data-seat='2']").inner_text()
    abuela.screenshot("parejas-esperando-360x740")

    # the two cousins open the link at the same time and both want the chair after hers
    prima.page.goto(href)
    primo.page.goto(href)
    for p in (prima, primo):
        p.page.wait_for_selector(".chairs-pick")
        assert free_chairs(p) == [1, 3]
    rival = prima.page.locator(".pick-chair[data-seat='1']").inner_text()
    assert (
        "Rival de Abuela" in rival
        and "Juegas con quien se siente frente a ti, contra Abuela y Nieto." in rival
    )
    sit(prima, None, 1, "Prima")
    prima.page.wait_for_selector(".mesa.waiting")
    sit(primo, None, 1, "Primo")
    # someone sat there first: the chairs as they are now, and he chooses again
    alert = primo.page.locator(".pairs-invite .error-line")
    alert.wait_for()
    assert "Alguien se sentó en esa silla" in alert.inner_text()
    assert free_chairs(primo) == [3]
    assert primo.page.locator("#silla-3").is_checked()  # the one left is already chosen
    assert "Prima" in primo.page.locator(".pick-chair[data-seat='1']").inner_text()
    primo.page.click("form button[type=submit]")

    # the fourth sat: the match starts at every table
    for p in (abuela, nieto, prima, primo):
        p.page.wait_for_function(PLAYING, timeout=15_000)
        view = last_view(p)
        assert view["status"] == "playing" and view["seat_count"] == 4
        assert view["names"] == ["Abuela", "Prima", "Nieto", "Primo"]
    assert [last_view(p)["seat"] for p in (abuela, nieto, prima, primo)] == [0, 2, 1, 3]
    # a whole hand, each playing on their own phone (the partner's page reloaded midway)
    by_seat = {0: abuela, 1: prima, 2: nieto, 3: primo}
    moves = play_the_hand(by_seat, reload_after=6)
    assert moves >= 16, moves
    for p in by_seat.values():
        p.page.wait_for_selector("dialog.sheet[open]")
        assert p.events("hand_end"), "no hand_end event"
    # every card of the hand was played by someone at the table, in turn
    played = [e["seat"] for e in abuela.events("move")]
    assert played[:8] == [played[0], *[(played[0] + k) % 4 for k in range(1, 8)]], played
    # the opened invitation has no chair left
    late = make_player(viewport=PHONE)
    late.page.goto(href)
    assert "cuatro jugadores" in late.page.locator(".full-note").inner_text()


def test_the_creator_gives_a_missing_chair_to_the_computer(make_player: MakePlayer) -> None:
    ana, beto = make_player(viewport=PHONE), make_player(viewport=PHONE)
    make_table(ana, "Ana", {1: "facil", 2: "friend", 3: "friend"})
    href = invite_link(ana)
    assert missing_line(ana) == "Faltan 2 jugadores: tu pareja y un rival."
    computer = ana.page.locator(".wait-chair[data-seat='1']").inner_text()
    assert "la computadora (Fácil)" in computer
    beto.page.goto(href)
    beto.page.wait_for_selector(".chairs-pick")
    assert free_chairs(beto) == [2, 3]
    assert "la computadora (Fácil)" in beto.page.locator(".pick-chair[data-seat='1']").inner_text()
    sit(beto, None, 2, "Beto")
    beto.page.wait_for_selector(".mesa.waiting")
    assert missing_line(beto) == "Falta 1 jugador: un rival."
    assert "Ana puede poner a la computadora" in beto.page.locator(".wait-chairs").inner_text()
    ana.page.wait_for_function(
        "(t) => document.querySelector('.missing-line')?.textContent === t",
        arg="Falta 1 jugador: un rival.",
    )
    # one chair missing: Ana gives it to the computer, at Difícil
    chair = ana.page.locator(".wait-chair[data-seat='3']")
    assert chair.locator("[role=group]").get_attribute("aria-labelledby") == "silla-espera-3"
    chair.locator("select").select_option("dificil")
    chair.locator("button.give-chair").click()
    for p in (ana, beto):
        p.page.wait_for_function(PLAYING, timeout=15_000)
        view = last_view(p)
        assert view["status"] == "playing"
        own_chair = {"kind": "computer", "chair": "computer", "named": False}
        assert view["players"][3] == {**own_chair, "level": "dificil"}
        assert view["players"][1] == {**own_chair, "level": "facil"}
    # Inicio says how it goes: with Beto, against the two computers
    ana.page.click(".menu-button")
    ana.page.click("dialog.menu >> text=Salir al inicio")
    ana.page.wait_for_selector("main[data-screen='inicio']")
    sub = ana.page.locator(".continue-game .sub")
    sub.wait_for()
    ana.page.wait_for_function(
        "() => document.querySelector('.continue-game .sub').textContent.startsWith('con Beto')"
    )
    assert sub.inner_text().startswith(
        "con Beto, contra la computadora (Fácil) y la computadora (Difícil) · "
    )
    # another game on this device: the table of four is listed in Mis partidas
    ana.page.click("button[data-level='facil']")
    ana.page.wait_for_selector(".mesa[data-seq]")
    ana.page.click(".menu-button")
    ana.page.click("dialog.menu >> text=Salir al inicio")
    item = ana.page.locator(".mis-partidas .game[data-seats='4']")
    item.locator(".g-turn").wait_for()
    assert item.locator(".g-name").inner_text() == (
        "Con Beto, contra la computadora (Fácil) y la computadora (Difícil)"
    )
    assert item.locator(".g-score").inner_text() == "Nosotros 0 · Ellos 0"


NO_SIDEWAYS_SCROLL = "() => document.scrollingElement.scrollWidth <= innerWidth"


def test_the_chairs_fit_a_phone_held_sideways_and_pass_axe(make_player: MakePlayer) -> None:
    """Inicio's chairs, the invitation's table and the waiting table at 740×360 (and axe on
    each, the chairs' choices named for a screen reader), in Spanish; the English words."""
    host = make_player(viewport=LANDSCAPE)
    make_table(host, "Ana", {1: "friend", 2: "normal", 3: "friend"}, turns=True, shot=False)
    href = invite_link(host)
    assert host.page.evaluate(NO_SIDEWAYS_SCROLL)
    assert "Por turnos" in host.page.locator(".turns-note").inner_text()
    assert_no_violations(host.page, "the waiting table of four")
    host.screenshot("parejas-esperando-740x360")
    guest = make_player(viewport=LANDSCAPE, locale="en")
    guest.page.goto(href)
    guest.page.wait_for_selector(".chairs-pick")
    assert guest.page.locator("h1").inner_text() == "Ana invited you to play casino in pairs!"
    assert free_chairs(guest) == [1, 3]
    # a free chair is named by its place and described by who plays with and against it
    label = guest.page.locator("#silla-1")
    assert guest.page.locator("label[for='silla-1']").inner_text().startswith("Ana's rival")
    described = label.get_attribute("aria-describedby") or ""
    assert guest.page.locator(f"#{described}").inner_text() == (
        "You play with whoever sits across from you, against Ana and the computer (Normal)."
    )
    assert guest.page.evaluate(NO_SIDEWAYS_SCROLL)
    assert_no_violations(guest.page, "the invitation to a table of four")
    guest.screenshot("parejas-invitacion-740x360")
    # Inicio's chairs, on the guest's device (English)
    guest.goto("/")
    guest.page.click("button.pairs")
    legend = guest.page.locator("#parejas-sillas fieldset.chair legend strong").first
    assert legend.inner_text() == "Your partner"
    guest.page.check("#silla-1-computer")
    guest.page.check("#silla-2-computer")
    guest.page.check("#silla-3-computer")
    # three computers: nobody to wait for, no por turnos
    assert guest.page.locator("#por-turnos-parejas").is_hidden()
    assert "right away" in guest.page.locator("button.pairs-go").inner_text()
    assert guest.page.evaluate(NO_SIDEWAYS_SCROLL)
    assert_no_violations(guest.page, "Inicio with the chairs open")
    guest.page.select_option("#silla-2-nivel", "facil")
    # nobody to invite: the table starts at once
    guest.page.click("button.pairs-go")
    guest.page.wait_for_function(PLAYING)
    players = last_view(guest)["players"]
    assert [p["level"] for p in players] == [None, "normal", "facil", "normal"]
    # the host gives one of her two missing chairs away: the focus stays on that chair, which
    # now says who sits there, and one player is missing
    chair = host.page.locator(".wait-chair[data-seat='1']")
    chair.locator("select").select_option("facil")
    chair.locator("button.give-chair").click()
    host.page.wait_for_function(
        "() => document.activeElement?.matches(\"li.wait-chair[data-focus-key='give-1']\")"
    )
    assert "la computadora (Fácil)" in host.page.evaluate(
        "() => document.activeElement.textContent"
    )
    assert missing_line(host) == "Falta 1 jugador: un rival."


def test_a_page_older_than_the_server_reloads_once(make_player: MakePlayer) -> None:
    """The hello carries the protocol version; told `old_client`, the page reloads itself
    once (a newer page comes), and a page still told so says the server's words instead of
    reloading again."""
    player = make_player()
    player.goto("/")
    player.page.click("button[data-level='facil']")
    player.page.wait_for_selector(".mesa[data-seq]")
    hellos: list[dict[str, Any]] = []

    def old_server(ws: Any) -> None:
        def answer(message: str | bytes) -> None:
            data = json.loads(message)
            if data.get("type") in ("hello", "watch"):
                hellos.append(data)
                ws.send(
                    json.dumps(
                        {
                            "type": "error",
                            "code": "old_client",
                            "fatal": True,
                            "message": "Hay una versión nueva del juego.",
                        }
                    )
                )
                ws.close()

        ws.on_message(answer)

    player.context.route_web_socket(re.compile(r"/ws"), old_server)
    loads: list[str] = []
    player.page.on("load", lambda page: loads.append(page.url))
    player.page.reload()
    player.page.wait_for_selector("main[data-screen='inicio']")
    player.page.wait_for_selector("text=Hay una versión nueva del juego.")
    # the test's reload, then the page's own, once
    assert len(loads) == 2, loads
    assert len(hellos) == 2 and all(h["version"] == 3 for h in hellos), hellos


def test_a_partner_who_left_is_handed_to_the_computer_by_the_table(make_player: MakePlayer) -> None:
    """At a table of four any person may hand an absent friend's chair to the computer once
    the grace time is over: the takeover names the seat; the computer's own chairs have no
    panel."""
    ana, beto = make_player(viewport=PHONE), make_player(viewport=PHONE)
    make_table(ana, "Ana", {1: "facil", 2: "friend", 3: "facil"}, shot=False)
    href = invite_link(ana)
    beto.page.goto(href)
    beto.page.wait_for_selector(".chairs-pick")
    assert free_chairs(beto) == [2]
    assert beto.page.locator("#silla-2").is_checked()
    beto.page.fill("#nombre-invitado", "Beto")
    beto.page.click("form button[type=submit]")
    for p in (ana, beto):
        p.page.wait_for_function(PLAYING, timeout=15_000)
    # Beto is at the table: no panel (a computer's own chair never has one)
    ana.page.wait_for_function("() => !document.querySelector('.presence')")
    beto.page.close()
    # Beto's chair, and only his, counts down and then is offered to the computer
    panel = ana.page.locator(".presence[data-seat='2']")
    panel.wait_for(timeout=10_000)
    assert "Beto se fue de la mesa" in panel.inner_text()
    ana.page.wait_for_selector(".presence.choose[data-seat='2']", timeout=10_000)
    assert ana.page.locator(".presence[data-seat='1'], .presence[data-seat='3']").count() == 0
    ana.page.click(".presence.choose[data-seat='2'] >> text=Sí, en Normal")
    ana.page.wait_for_selector(".presence.takeover[data-seat='2']")
    assert "juega por Beto" in ana.page.locator(".presence.takeover[data-seat='2']").inner_text()
    view = last_view(ana)
    # the computer plays his chair for now: it is still his
    assert view["players"][2] == {
        "kind": "computer",
        "level": "normal",
        "chair": "person",
        "named": True,
    }
