"""What a new family still tripped over (issue 30), in Debian's chromium against the real
server, at the sizes each item names, from what a person sees: offline play after one visit
to Inicio, the phone's Back button, Escape and a table card tapped first, por turnos' long
wait, the Menú's settings, the replay on a phone, the error pages, a failed start, names,
and words."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import Locator, Page
from websockets.sync.client import connect as ws_connect

from tests.browser.test_offline import KIT_SAID, TURN_OR_SHEET, play_turn_by_clicks
from tests.browser.test_replay import finished_computer_match
from tests.support.a11y import assert_no_violations
from tests.support.browserkit import LAPTOP, PHONE, Player, assert_fits
from tests.support.srvkit import ServerProc, my_turn
from tests.support.tablekit import (
    assert_on_screen,
    box,
    computer_room,
    event_of,
    hold_seat,
    play_by_socket,
)

pytestmark = pytest.mark.browser

MakePlayer = Callable[..., Player]


def offline_section(page: Page) -> Locator:
    return page.get_by_role("region", name="Jugar sin conexión")


# -- item 1: offline after one visit to Inicio -----------------------------------------------


def test_one_visit_to_inicio_is_enough_to_play_with_no_network(make_player: MakePlayer) -> None:
    me = make_player(viewport=PHONE)
    me.goto("/")
    page = me.page
    page.wait_for_selector("main[data-screen='inicio']")
    # nothing tapped: once Inicio is up and idle, the device keeps what offline play needs
    page.wait_for_selector(KIT_SAID, state="attached", timeout=30_000)
    me.context.set_offline(True)
    offline_section(page).get_by_role("button", name=re.compile("^Normal")).click()
    page.wait_for_selector(".mesa[data-seq]")
    assert "Computadora" in page.locator(".topbar").inner_text()
    page.wait_for_function(TURN_OR_SHEET)
    play_turn_by_clicks(page, keyboard=False)
    # the app opened again with no network: the same game
    page.reload()
    page.wait_for_selector(".mesa[data-seq]")
    assert "Computadora" in page.locator(".topbar").inner_text()


def test_no_offline_game_is_listed_that_could_not_start(make_player: MakePlayer) -> None:
    """A browser that keeps nothing (no service worker) loses its network on Inicio: "Jugar
    sin conexión" says what to do, and Mis partidas lists no game nobody can open."""
    me = make_player(viewport=PHONE, service_workers="block")
    me.goto("/")
    page = me.page
    page.wait_for_selector("main[data-screen='inicio']")
    me.context.set_offline(True)
    offline_section(page).get_by_role("button", name=re.compile("^Normal")).click()
    alert = page.locator("#inicio-error")
    alert.wait_for()
    said = alert.inner_text()
    assert "Cuando tengas internet" in said and "espera un momento en el inicio" in said, said
    # the device keeps no such game, and Mis partidas (drawn from it) lists none
    kept = page.evaluate(
        "async () => (await (await import('/static/js/lib/offlinedb.js')).listLocalGames()).length"
    )
    assert kept == 0
    assert page.locator(".mis-partidas .game").count() == 0


# -- item 2: the phone's Back button -------------------------------------------------------


def start_computer_game(player: Player) -> None:
    player.goto("/")
    player.page.click("button[data-level='facil']")
    player.page.wait_for_selector(".mesa[data-seq]")


def test_back_closes_what_was_opened_and_never_leaves_the_table_without_asking(
    make_player: MakePlayer,
) -> None:
    me = make_player(viewport=PHONE)
    me.goto("/")
    page = me.page
    inicio = "main[data-screen='inicio']"
    for label in ("Cómo se juega", "Sobre el casino"):
        page.get_by_role("button", name=label).click()
        page.get_by_role("heading", level=1, name=label).wait_for()
        page.go_back()  # the phone's Back: back to Inicio, not out of the site
        page.wait_for_selector(inicio)
        assert page.url.startswith(me.base)
    # a reading page's link to the other one: Back returns to the first
    page.get_by_role("button", name="Sobre el casino").click()
    page.get_by_role("link", name="Cómo se juega").click()
    page.get_by_role("heading", level=1, name="Cómo se juega").wait_for()
    page.go_back()
    page.get_by_role("heading", level=1, name="Sobre el casino").wait_for()
    page.get_by_role("button", name="Volver al inicio").first.click()
    page.wait_for_selector(inicio)

    # at the table: Back closes "Cómo se juega", then asks before leaving
    page.click("button[data-level='facil']")
    page.wait_for_selector(".mesa[data-seq]")
    page.get_by_role("button", name="Menú").click()
    page.get_by_role("dialog", name="Menú").get_by_role("button", name="Cómo se juega").click()
    help_dialog = page.get_by_role("dialog", name="Cómo se juega")
    help_dialog.wait_for()
    page.go_back()
    help_dialog.wait_for(state="detached")
    assert page.locator("main[data-screen='mesa'] .mesa[data-seq]").count() == 1
    page.go_back()
    ask = page.get_by_role("dialog", name="¿Salir de la mesa?")
    ask.wait_for()
    assert page.locator("main[data-screen='mesa']").count() == 1
    assert_no_violations(page, "¿Salir de la mesa?")
    ask.get_by_role("button", name="Seguir jugando").click()
    ask.wait_for(state="detached")
    page.go_back()  # asked again: Back closes the question, the table stays
    ask.wait_for()
    page.go_back()
    ask.wait_for(state="detached")
    assert page.locator("main[data-screen='mesa'] .mesa[data-seq]").count() == 1
    page.go_back()
    ask.get_by_role("button", name="Salir al inicio").click()
    page.wait_for_selector(inicio)
    assert page.get_by_role("button", name=re.compile("^Continuar partida")).count() == 1


# -- item 3: Escape, and a table card tapped first -----------------------------------------

FOCUS_IN = "(where) => !!document.activeElement && !!document.activeElement.closest(where)"


def test_escape_lets_the_card_go_and_a_table_card_first_says_what_to_tap(
    make_player: MakePlayer,
) -> None:
    me = make_player(viewport=PHONE)
    start_computer_game(me)
    page = me.page
    me.wait_my_turn()
    before = me.seq()
    page.locator(".hand .card").first.focus()
    page.keyboard.press("Enter")  # the card chosen: the focus goes to its first action
    page.wait_for_function(FOCUS_IN, arg=".actions")
    page.keyboard.press("Escape")
    page.wait_for_function(FOCUS_IN, arg=".hand")
    assert page.locator(".hand .card[aria-pressed='true']").count() == 0
    assert "Toca una carta de tu mano" in page.locator(".actions").inner_text()
    page.keyboard.press("Space")  # chooses the card again: nothing is played
    page.locator(".hand .card[aria-pressed='true']").wait_for()
    assert me.seq() == before
    page.keyboard.press("Escape")
    page.wait_for_function(FOCUS_IN, arg=".hand")

    # the computer's move held on screen (Menú: Despacio); a table card tapped meanwhile
    page.get_by_role("button", name="Menú").click()
    page.get_by_role("dialog", name="Menú").get_by_role("button", name="Despacio").click()
    page.get_by_role("dialog", name="Menú").get_by_role("button", name="Cerrar").click()
    first = "Primero toca una carta de tu mano"
    for _ in range(12):
        if me.wait_turn_or_sheet() == "sheet":
            page.click("dialog.sheet button.next-hand")
            continue
        me.play_turn()
        page.wait_for_selector(".mesa[data-busy='true'] .table-cards .incoming")
        items = page.locator(".table-area button[data-id]")
        if items.count() == 0:
            continue  # nothing on the table to tap this time
        items.first.click()
        page.locator(".status-lines .error-line", has_text=first).wait_for()
        page.locator("#alert", has_text=first).wait_for(state="attached")  # said at once
        # once the move has landed and it is my turn, the line is still there
        me.wait_turn_or_sheet()
        if not me.sheet_open():
            assert first in page.locator(".status-lines").inner_text()
        return
    raise AssertionError("the computer never moved with cards on the table")


# -- item 4: por turnos, the computer offered only after the long wait ----------------------

LONG_WAIT = 6  # TURNS_GRACE_SECONDS of this server: por turnos' long wait, short for a test


@pytest.fixture(scope="module")
def patient(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProc]:
    proc = ServerProc(
        tmp_path_factory.mktemp("patient"),
        {"TURNS_GRACE_SECONDS": str(LONG_WAIT), "GRACE_SECONDS": "1", "WS_RATE": "1000"},
    ).start()
    yield proc
    proc.stop()


def friend_comes_and_goes(server: ServerProc, invite: str, name: str) -> dict[str, Any]:
    """The invited friend sits at the table from another phone (a websocket), then closes
    the app."""
    seat = httpx.post(
        f"{server.base}/api/join", json={"invite": invite, "name": name}, timeout=10
    ).json()
    with ws_connect(server.ws_url, open_timeout=10) as ws:
        ws.send(json.dumps({"type": "hello", "version": 3, "token": seat["token"], "since": None}))
        while json.loads(ws.recv(timeout=10)).get("type") != "welcome":
            pass
    return dict(seat)


def host_por_turnos(player: Player, name: str) -> str:
    """Inicio: a friend game por turnos; returns its invite code."""
    player.goto("/")
    page = player.page
    page.get_by_label("¿Cómo te llamas?").fill(name)
    page.get_by_label(re.compile("Por turnos")).check()
    page.get_by_role("button", name=re.compile("^Jugar con un amigo")).click()
    return page.locator("[data-invite-code]").inner_text().strip()


def test_por_turnos_offers_the_computer_only_after_the_long_wait(
    make_player: MakePlayer, patient: ServerProc
) -> None:
    abuela = make_player(viewport=PHONE, base=patient.base)
    invite = host_por_turnos(abuela, "Abuela Rosa")
    page = abuela.page
    friend_comes_and_goes(patient, invite, "Tío Juan")
    panel = page.locator(".presence")
    panel.get_by_text("Tío Juan no está en la mesa ahora").wait_for()
    # he just closed the app: nothing offered, the wait said
    offer = page.get_by_role("button", name=re.compile("computadora juegue por Tío Juan"))
    assert offer.count() == 0
    assert f"Si pasan {LONG_WAIT} segundos sin que venga" in panel.inner_text()
    # the long wait over: the offer, the wait said on it, never the main action
    offer.wait_for(timeout=(LONG_WAIT + 15) * 1000)
    assert (
        offer.inner_text()
        == f"Ya pasaron {LONG_WAIT} segundos: que la computadora juegue por Tío Juan"
    )
    assert "primary" not in (offer.get_attribute("class") or "")
    assert page.locator(".actions .ask-computer, .btn.primary.ask-computer").count() == 0
    abuela.screenshot("por-turnos-espera-larga-360x740")
    assert_no_violations(page, "por turnos, after the long wait")
    offer.click()
    page.get_by_role("dialog", name="¿Que la computadora juegue por Tío Juan?").get_by_role(
        "button", name="Sí, en Fácil"
    ).click()
    panel.get_by_text("La computadora (Fácil) juega por Tío Juan").wait_for()
    # the server's default wait (a day) reads in hours
    words = page.evaluate(
        "async () => (await import('/static/js/screens/mesa/presence.js')).waitWords(86400)"
    )
    assert words == "24 horas"


# -- item 5: each setting of the Menú only where it means something -------------------------


def menu_settings(page: Page) -> str:
    page.get_by_role("button", name="Menú").click()
    menu = page.get_by_role("dialog", name="Menú")
    text = menu.inner_text()
    menu.get_by_role("button", name="Cerrar").click()
    return text


def test_the_menu_offers_each_setting_only_where_it_means_something(
    make_player: MakePlayer, web_server: ServerProc
) -> None:
    me = make_player(viewport=PHONE)
    me.goto("/")
    page = me.page
    pace, alerts, mute = (
        "Velocidad de la computadora",
        "Avisarme si me toca",
        "Silenciar reacciones",
    )
    # against the computer with no server: its pace, nothing of a game online
    offline_section(page).get_by_role("button", name=re.compile("^Fácil")).click()
    page.wait_for_selector(".mesa[data-seq]")
    text = menu_settings(page)
    assert pace in text and alerts not in text and mute not in text, text
    # against the computer online: its pace and the alerts; no reactions come to mute
    page.get_by_role("button", name="Menú").click()
    page.get_by_role("button", name="Salir al inicio").click()
    page.click("button[data-level='facil']")
    page.wait_for_selector(".mesa[data-seq]")
    text = menu_settings(page)
    assert pace in text and alerts in text and mute not in text, text
    # against a person: alerts and muting, and no pace of a computer
    page.get_by_role("button", name="Menú").click()
    page.get_by_role("button", name="Salir al inicio").click()
    invite = host_por_turnos(me, "Abuela Rosa")
    friend_comes_and_goes(web_server, invite, "Tío Juan")
    page.wait_for_selector(".mesa[data-seq] .opp-name >> text=Tío Juan")
    text = menu_settings(page)
    assert pace not in text and "Velocidad" not in text and alerts in text and mute in text, text


# -- item 6: the replay fits a phone ---------------------------------------------------------


def box_of(page: Page, selector: str) -> dict[str, float]:
    found = box(page, selector)
    assert found is not None, selector
    return found


def assert_replay_fits(page: Page, *shown: str) -> None:
    """No page scroll; ``shown`` and the controls wholly on screen, none under the dock."""
    height, scroll = page.evaluate("() => [innerHeight, document.scrollingElement.scrollHeight]")
    assert scroll <= height + 1, f"the page scrolls: {scroll} > {height}"
    assert_on_screen(page, ".r-words", ".r-controls", *shown)
    dock = box_of(page, ".r-dock")
    for selector in shown:
        assert box_of(page, selector)["bottom"] <= dock["top"] + 1, f"{selector} under the dock"


def test_the_replay_fits_a_phone_and_stepping_never_scrolls(
    make_player: MakePlayer, web_server: ServerProc
) -> None:
    room = finished_computer_match(web_server)
    link = httpx.post(
        f"{web_server.base}/api/replays", json={"token": room["token"], "match": 1}, timeout=10
    ).json()
    steps = httpx.get(f"{web_server.base}/api/replays/{link['code']}", timeout=10).json()["steps"]
    end = next(i for i, s in enumerate(steps) if any(e["kind"] == "hand_end" for e in s["events"]))
    me = make_player(viewport=PHONE)
    me.goto(link["url"])
    page = me.page
    page.wait_for_selector(".replay[data-step='0']")
    hands = (".r-hand[data-seat='1']", ".r-table", ".r-hand[data-seat='0']")
    forward = page.get_by_role("button", name="Siguiente →")
    for step in range(6):  # both hands and the table in sight at every step, my own too
        assert_replay_fits(page, *hands)
        forward.click()
        page.wait_for_selector(f".replay[data-step='{step + 1}']")
    me.screenshot("repeticion-cabe-360x740")
    # a hand's end: its result in sight, the page still not scrolled
    page.get_by_role("slider", name="Jugada").fill(str(end))
    page.wait_for_selector(f".replay[data-step='{end}']")
    assert_replay_fits(page, ".r-result h2")
    assert page.locator(".r-result h2").inner_text() == "Fin de la mano 1"
    assert_no_violations(page, "the replay on a phone, at a hand's end")


# -- item 7: the error pages ---------------------------------------------------------------


def test_a_bad_invitation_says_so_at_once_and_an_unknown_address_leads_home(
    make_player: MakePlayer,
) -> None:
    me = make_player(viewport=PHONE)
    page = me.page
    me.goto("/j/ZZZZZZZZ")
    page.get_by_role("heading", level=1, name="No encontramos esa invitación").wait_for()
    assert page.get_by_label("¿Cómo te llamas?").count() == 0  # no name asked for first
    assert "Revisa el enlace" in page.get_by_role("alert").first.inner_text()
    assert_no_violations(page, "an unknown invitation")
    page.get_by_role("button", name="Ir al inicio").click()
    page.wait_for_selector("main[data-screen='inicio']")
    assert page.evaluate("() => location.pathname") == "/"
    # an address that is nothing of ours: the site's look, and the way home
    me.goto("/no-existe")
    page.get_by_role("heading", level=1, name="Esa página no existe.").wait_for()
    felt = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
    assert felt == "rgb(13, 92, 58)", felt
    assert_no_violations(page, "an unknown address")
    page.get_by_role("link", name="Ir al inicio").click()
    page.wait_for_selector("main[data-screen='inicio']")


# -- item 8: a failed start keeps its button and points to Jugar sin conexión ----------------


def test_a_failed_start_keeps_its_button_and_points_to_jugar_sin_conexion(
    make_player: MakePlayer,
) -> None:
    me = make_player(viewport=PHONE)
    me.goto("/")
    page = me.page
    page.wait_for_selector("main[data-screen='inicio']")
    me.context.set_offline(True)
    computer = page.get_by_role("region", name="Jugar contra la computadora")
    normal = computer.get_by_role("button", name=re.compile("^Normal"))
    normal.click()
    alert = page.locator("#inicio-error")
    alert.wait_for()
    said = alert.inner_text()
    assert "Jugar sin conexión" in said and "aquí abajo" in said, said
    # the button as it was: its name, and the line under it on a line of its own
    page.wait_for_function(
        "() => !document.querySelector('button[data-level=normal][aria-disabled]')"
    )
    assert normal.inner_text().split("\n") == ["Normal", "un buen reto"]
    # and "Jugar sin conexión" is just below the message, in sight
    below = offline_section(page)
    gap = box_of(page, ".sin-conexion")["top"] - box_of(page, "#inicio-error")["bottom"]
    assert 0 <= gap <= 24, gap
    assert_on_screen(page, "#inicio-error", ".sin-conexion h2")
    below.get_by_role("button", name=re.compile("^Fácil")).wait_for()


# -- item 9: names -------------------------------------------------------------------------

LONG_NAME = "Abuela Rosa Mercedes"  # 20 characters, the longest name the server takes


def test_the_invitee_is_asked_for_a_name_once_more_and_names_are_never_cut(
    make_player: MakePlayer,
) -> None:
    abuela = make_player(viewport=PHONE)
    abuela.goto("/")
    abuela.page.get_by_label("¿Cómo te llamas?").fill(LONG_NAME)
    abuela.page.get_by_role("button", name=re.compile("^Jugar con un amigo")).click()
    link = abuela.page.locator("[data-invite-link]").get_attribute("href") or ""
    juan = make_player(viewport=PHONE)
    page = juan.page
    page.goto(link)
    sit = page.get_by_role("button", name="Sentarme a la mesa")
    sit.click()  # no name typed: asked once more, kindly, and nothing joined yet
    ask = page.locator(".name-ask")
    ask.wait_for()
    assert f"para que {LONG_NAME} sepa quién llegó" in ask.inner_text()
    assert page.evaluate("() => document.activeElement.id") == "nombre-invitado"
    assert page.locator("main[data-screen='unirse']").count() == 1
    assert_no_violations(page, "the invitation asking for a name once more")
    page.get_by_label("¿Cómo te llamas?").fill("Tío Juan")
    sit.click()
    page.wait_for_selector(".mesa[data-seq]")
    abuela.page.locator(".notice", has_text="¡Tío Juan llegó!").wait_for()
    # at 360 px the score box shows the whole name (it wraps), and la mesa still fits
    who = page.locator(".score.them .who")
    assert who.inner_text() == LONG_NAME
    width = who.evaluate("e => [e.scrollWidth, e.clientWidth]")
    assert width[0] <= width[1], f"cut: {width}"
    page.wait_for_selector(".mesa[data-busy='false']")
    assert_fits(page)
    juan.screenshot("nombre-largo-360x740")


# -- item 10: words ------------------------------------------------------------------------


def test_the_end_of_a_hand_is_said_without_a_capital_mid_sentence(
    make_player: MakePlayer, web_server: ServerProc
) -> None:
    room = computer_room(web_server)
    end = play_by_socket(web_server, room["token"], event_of("hand_end"))
    me = make_player(viewport=PHONE)
    hold_seat(me, room, since=end["seq"] - 1, active=True)  # it was at the table
    me.goto("/")
    me.page.get_by_role("dialog", name="Fin de la mano 1").wait_for()
    me.page.wait_for_function(
        "() => document.getElementById('announcer').textContent.includes('sumaste')"
    )
    said = me.page.locator("#announcer").text_content() or ""
    assert re.search(
        r"Tú sumaste \d+, la computadora \d+\. En la partida: tú \d+, la computadora \d+\.", said
    ), said


def test_words_on_a_laptop_and_in_como_se_juega(make_player: MakePlayer) -> None:
    me = make_player(viewport=LAPTOP)
    me.goto("/")
    page = me.page
    tagline = page.locator(".tagline").inner_text()
    assert "celular" not in tagline, tagline  # a laptop is no phone
    page.get_by_role("button", name="Cómo se juega").click()
    # the page is drawn after the click returns: read it once its words are there
    page.get_by_text("Llevarte solo se lleva", exact=False).first.wait_for()
    text = page.locator("main").inner_text()
    assert "nada más" not in text  # "solo" said once
    assert "Llevarte solo se lleva las iguales y los montones, y deja las sumas" in " ".join(
        text.split()
    )


def double_pile_on_my_turn(server: ServerProc) -> tuple[dict[str, Any], dict[str, Any]]:
    """A computer room played over a websocket up to my turn with a double pile among the
    server's build ideas; returns the room and that option."""

    def wanted(msg: dict[str, Any]) -> bool:
        view = msg.get("view")
        if msg.get("type") == "event" and msg["event"]["kind"] == "match_end":
            return True
        return bool(view and my_turn(view) and double_option(view))

    for _ in range(8):
        room = computer_room(server)
        found = play_by_socket(server, room["token"], wanted)
        view = found.get("view")
        if view and my_turn(view):
            option = double_option(view)
            assert option is not None
            return room, option
    raise AssertionError("no double pile to build in eight matches")


def double_option(view: dict[str, Any]) -> dict[str, Any] | None:
    return next((o for o in view["options"] if any(b["double"] for b in o["builds"])), None)


def test_a_double_pile_is_called_double_on_its_button(
    make_player: MakePlayer, web_server: ServerProc
) -> None:
    room, option = double_pile_on_my_turn(web_server)
    idea = next(b for b in option["builds"] if b["double"])
    me = make_player(viewport=PHONE)
    hold_seat(me, room, since=None, active=True)
    me.goto("/")
    page = me.page
    me.wait_my_turn()
    page.click(f".hand .card[data-code='{option['card']}']")
    page.get_by_role("button", name="Construir", exact=True).click()
    ideas = page.get_by_role("list", name="Montones que puedes hacer")
    ideas.get_by_role("button", name=re.compile(f"^Montón doble de {idea['value']}:")).first.click()
    confirm = page.locator(f".build-panel .build-confirm[data-value='{idea['value']}']")
    assert confirm.inner_text() == f"Construir montón doble de {idea['value']}"


def test_the_host_who_carried_her_game_away_opens_her_own_link_at_her_table(
    make_player: MakePlayer, web_server: ServerProc
) -> None:
    room = httpx.post(
        f"{web_server.base}/api/rooms", json={"mode": "friend", "name": "Abuela Rosa"}, timeout=10
    ).json()
    moved = httpx.post(
        f"{web_server.base}/api/rejoin-codes", json={"token": room["token"]}, timeout=10
    ).json()
    phone = make_player(viewport=PHONE)  # her new phone: the game carried there
    phone.goto(moved["url"])
    page = phone.page
    page.wait_for_selector("main[data-screen='mesa'] .mesa")
    phone.goto(f"/j/{room['invite']}")  # her own invitation link, opened there
    page.wait_for_selector("main[data-screen='mesa'] .mesa")
    assert "te invitó" not in page.locator("main").inner_text()
    assert page.evaluate("() => location.pathname") == "/"


def test_inicio_shows_the_game_left_here_once(
    make_player: MakePlayer, web_server: ServerProc
) -> None:
    left, other = computer_room(web_server), computer_room(web_server)
    me = make_player(viewport=PHONE)
    hold_seat(me, left, since=None, active=False)
    seats = [
        {"room": r["room"], "seat": 0, "token": r["token"], "since": None, "mode": "computer"}
        for r in (left, other)
    ]
    me.page.evaluate("(s) => localStorage.setItem('casino.asientos', JSON.stringify(s))", seats)
    me.goto("/")
    page = me.page
    resume = page.get_by_role("button", name=re.compile("^Continuar partida"))
    resume.get_by_text("con la computadora (Fácil) · Te toca").wait_for()
    page.locator(f".mis-partidas .game[data-room='{other['room']}']").wait_for()
    assert page.locator(f".mis-partidas .game[data-room='{left['room']}']").count() == 0
