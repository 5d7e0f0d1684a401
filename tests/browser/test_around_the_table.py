"""The rough edges a family hits around the table (issue 20, items 1-4, 8 and 9), in
Debian's chromium against the real server: invitation links opened again, codes typed on
Inicio, guessers that spend the server's budget of wrong codes, a game carried to another
device, the offline page, and a finished match."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.a11y import assert_no_violations
from tests.support.browserkit import LANDSCAPE, LAPTOP, PHONE, Player, without_the_offline_kit
from tests.support.srvkit import ServerProc
from tests.support.tablekit import (
    assert_on_screen,
    computer_room,
    event_of,
    hold_seat,
    play_by_socket,
)

pytestmark = pytest.mark.browser

MakePlayer = Callable[..., Player]
SIZES = pytest.mark.parametrize(
    "viewport", [PHONE, LANDSCAPE, LAPTOP], ids=["360x740", "740x360", "1280x800"]
)


def start_computer_game(player: Player) -> None:
    player.goto("/")
    player.page.click("button[data-level='facil']")
    player.page.wait_for_selector(".mesa[data-seq]")


def invite_friend(host: Player, friend: Player) -> str:
    """The host opens a friend room; the friend takes the seat from the link. Returns the
    link's path."""
    host.goto("/")
    host.page.fill("#nombre", "Ana")
    host.page.click("button.friend")
    href = host.page.locator("[data-invite-link]").get_attribute("href") or ""
    path = httpx.URL(href).path
    friend.goto(path)
    friend.page.fill("#nombre-invitado", "Beto")
    friend.page.click("button[type=submit]")
    for p in (host, friend):
        p.page.wait_for_selector(".mesa[data-seq]")
    return path


def at_the_table(player: Player) -> None:
    player.page.wait_for_selector("main[data-screen='mesa'] .mesa[data-seq]")
    assert "ya tiene dos jugadores" not in player.page.locator("main").inner_text()


# -- item 1: an invitation link opened again -----------------------------------------------


def test_the_invitation_link_takes_who_holds_a_seat_back_to_the_table(
    make_player: MakePlayer,
) -> None:
    """The friend (and the host) who open the invitation link again are back at their own
    table, not locked out by their own seat; a stranger with the link is told the table is
    full, and a device with a game of its own is offered that one."""
    ana = make_player()
    beto = make_player(viewport=LANDSCAPE)
    path = invite_friend(ana, beto)
    room = beto.welcome()["room"]
    for player in (beto, ana):
        player.goto(path)  # the link from WhatsApp, tapped again
        at_the_table(player)
        assert player.welcome()["room"] == room
        assert player.page.url.endswith("/")
    beto.goto(path.lower())  # invite codes are case-insensitive
    at_the_table(beto)
    # a device that holds no seat of that table: the table is full, said before any form
    prima = make_player()
    start_computer_game(prima)  # a game of her own on this device
    prima.goto(path)
    prima.page.wait_for_selector("main[data-screen='unirse']")
    page = prima.page
    assert "ya tiene sus dos jugadores" in page.locator("main").inner_text()
    assert page.locator("#nombre-invitado").count() == 0
    assert_no_violations(page, "a full invitation")
    page.click("text=Mejor sigo mi partida de antes")
    at_the_table(prima)
    assert prima.welcome()["room"] != room


# -- item 2 and the code box: a code typed on Inicio ----------------------------------------


@SIZES
def test_a_wrong_or_empty_code_is_answered_where_it_was_typed(
    make_player: MakePlayer, viewport: dict[str, int]
) -> None:
    me = make_player(viewport=viewport)
    me.goto("/")
    page = me.page
    page.wait_for_selector("main[data-screen='inicio']")
    page.click(".code-form button[type=submit]")
    line = page.locator(".code-form .error-line:not([hidden])")
    line.wait_for()
    assert line.inner_text() == "Escribe el código que te salió en el otro dispositivo."
    assert_on_screen(page, ".code-form .error-line", ".code-form button[type=submit]")
    page.evaluate("() => window.scrollTo(0, 0)")
    for wrong in ("ZZZZ", "ZZZZZZZZZ", "ZZZZZZZZ"):  # short, a rejoin code's size, an invite's
        page.fill("#codigo", wrong)
        page.click(".code-form button[type=submit]")
        page.wait_for_function("() => !document.querySelector('.code-form button[aria-disabled]')")
        assert line.inner_text() == "Ese código no existe. Revísalo."
        assert_on_screen(page, ".code-form .error-line")
        assert page.locator("#inicio-error:not([hidden])").count() == 0
        assert page.locator("main").get_attribute("data-screen") == "inicio"
    assert_no_violations(page, "Inicio with a wrong code")


def test_the_code_box_asks_the_server_what_a_code_is(make_player: MakePlayer) -> None:
    """An invite code typed in the box goes to its invitation, a rejoin code to its seat:
    the server says which (POST /api/codes), the client does not count characters."""
    ana = make_player()
    ana.goto("/")
    ana.page.fill("#nombre", "Ana")
    ana.page.click("button.friend")
    invite = ana.page.locator("[data-invite-code]").inner_text().strip()
    beto = make_player()
    beto.goto("/")
    asked: list[str] = []
    beto.page.on("request", lambda r: asked.append(r.url) if "/api/" in r.url else None)
    beto.page.fill("#codigo", f" {invite[:4].lower()}-{invite[4:]} ")
    beto.page.click(".code-form button[type=submit]")
    beto.page.wait_for_selector("main[data-screen='unirse']")
    assert beto.page.locator("h1").inner_text() == "¡Ana te invitó a jugar casino!"
    assert any(url.endswith("/api/codes") for url in asked), asked


# -- item 3: guessers cannot close the invitation pages ------------------------------------

GUESSES = 3  # the server-wide budget of wrong invite codes in a minute, for this server


@pytest.fixture(scope="module")
def guessed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProc]:
    proc = ServerProc(
        tmp_path_factory.mktemp("guessed"),
        {"CODE_FAILURES_PER_MIN": str(GUESSES), "RATE_JOIN_PER_MIN": "1000"},
    ).start()
    yield proc
    proc.stop()


def guess(server: ServerProc, source: str, code: str) -> int:
    transport = httpx.HTTPTransport(local_address=source)
    with httpx.Client(base_url=server.base, timeout=10, transport=transport) as c:
        return c.get(f"/api/invites/{code}").status_code


def test_guessers_do_not_close_the_invitation_of_a_friend_with_the_link(
    make_player: MakePlayer, guessed: ServerProc
) -> None:
    """Guessers from several addresses spend the whole server's budget of wrong invite
    codes; each pays with its own address, and the friend who holds a real link still
    sees who invites and sits at the table."""
    host = make_player(base=guessed.base)
    host.goto("/")
    host.page.fill("#nombre", "Ana")
    host.page.click("button.friend")
    href = host.page.locator("[data-invite-link]").get_attribute("href") or ""
    invite = href.rsplit("/", 1)[1]
    wrong = [guess(guessed, f"127.0.5.{i + 1}", f"ZZZZZZZ{i + 2}") for i in range(GUESSES)]
    assert wrong == [404] * GUESSES
    # the budget is spent: a guesser that already missed is refused, even a real code
    assert guess(guessed, "127.0.5.1", "ZZZZZZZY") == 429
    assert guess(guessed, "127.0.5.1", invite) == 429
    friend = make_player(base=guessed.base)
    friend.page.goto(href)
    friend.page.wait_for_selector("main[data-screen='unirse']")
    assert friend.page.locator("h1").inner_text() == "¡Ana te invitó a jugar casino!"
    friend.page.fill("#nombre-invitado", "Beto")
    friend.page.click("button[type=submit]")
    at_the_table(friend)
    host.page.wait_for_selector(".mesa[data-seq] .opp-name >> text=Beto")


# -- item 4: a game carried to another device ---------------------------------------------


def test_the_old_device_says_where_the_game_went(make_player: MakePlayer) -> None:
    old = make_player()
    start_computer_game(old)
    room = old.welcome()["room"]
    old.page.click(".menu-button")
    old.page.click("dialog.menu >> text=Seguir en otro dispositivo")
    code = old.page.locator("[data-rejoin-code]").inner_text().strip()
    new = make_player(viewport=LAPTOP)
    new.goto("/")
    new.page.fill("#codigo", code)
    new.page.click(".code-form button[type=submit]")
    at_the_table(new)
    assert new.welcome()["room"] == room
    page = old.page
    page.wait_for_selector("main[data-screen='movido']")
    assert "otro dispositivo" in page.locator("h1").inner_text()
    assert_no_violations(page, "Seguiste en otro dispositivo")
    page.click("text=Ir al inicio")
    page.wait_for_selector("main[data-screen='inicio']")
    assert page.locator("button.continue-game").count() == 0
    assert old.storage_session() == {}
    assert page.locator(".mis-partidas .game").count() == 0
    text = page.locator("main").inner_text()
    assert "ya no existe" not in text and "sesión" not in text
    old.goto("/")  # opening the site again: Inicio, not a table that is gone
    page.wait_for_selector("main[data-screen='inicio']")
    assert page.locator("button.continue-game").count() == 0


def test_a_token_refused_later_says_where_the_game_may_be(make_player: MakePlayer) -> None:
    """A device that was closed while its game moved away: its old seat is refused, in
    words a person understands, and it lands on Inicio."""
    first = make_player()
    start_computer_game(first)
    token = first.storage_session()["token"]
    first.page.click(".menu-button")
    first.page.click("dialog.menu >> text=Seguir en otro dispositivo")
    code = first.page.locator("[data-rejoin-code]").inner_text().strip()
    room = {"room": first.welcome()["room"], "token": token}
    first.context.close()
    moved = httpx.post(f"{first.base}/api/rejoin", json={"code": code}, timeout=10)
    assert moved.status_code == 200
    late = make_player()
    hold_seat(late, room, since=None, active=True)
    late.goto("/")
    late.page.wait_for_selector("main[data-screen='inicio'] .error-line:not([hidden])")
    text = late.page.locator("main").inner_text()
    assert "siguió en otro" in text and "sesión" not in text
    assert late.page.locator("button.continue-game").count() == 0


# -- item 8: the offline page comes back by itself ----------------------------------------


def test_the_offline_page_comes_back_when_the_server_does(
    make_player: MakePlayer, tmp_path: Path
) -> None:
    server = ServerProc(tmp_path, {}).start()
    try:
        me = make_player(base=server.base)
        me.goto("/")
        page = me.page
        page.evaluate("async () => await navigator.serviceWorker.ready")
        page.reload()
        page.wait_for_function("() => navigator.serviceWorker.controller !== null")
        without_the_offline_kit(page)  # else the app itself opens (test_offline.py)
        server.stop()
        page.goto(server.base + "/")
        page.wait_for_selector("h1 >> text=No hay conexión")
        assert_no_violations(page, "the offline page")
        server.start()  # the same port: the same site
        page.wait_for_selector("main[data-screen='inicio']", timeout=20_000)
    finally:
        server.stop()


# -- item 9: a finished match is not "continued" -------------------------------------------


def test_a_finished_match_leaves_for_inicio_and_mis_partidas(
    make_player: MakePlayer, web_server: ServerProc
) -> None:
    room = computer_room(web_server)
    end = play_by_socket(web_server, room["token"], event_of("match_end"))
    winner = end["event"]["winner"]
    me = make_player()
    hold_seat(me, room, since=end["seq"] - 1, active=True)  # it was at the table
    me.goto("/")
    page = me.page
    page.wait_for_selector("dialog.sheet.final[open]")  # the end, seen at the table
    page.click("dialog.sheet >> text=Volver al inicio")
    page.wait_for_selector("main[data-screen='inicio']")
    assert page.locator("button.continue-game").count() == 0
    me.goto("/")  # the site opened again later
    page.wait_for_selector("main[data-screen='inicio']")
    assert page.locator(".mesa").count() == 0
    assert page.locator("button.continue-game").count() == 0
    turn = page.locator(f".mis-partidas .game[data-room='{room['room']}'] .g-turn")
    turn.wait_for()
    assert turn.inner_text() == (
        "Terminó: Ganaste" if winner == 0 else "Terminó: Ganó la computadora"
    )
    assert_no_violations(page, "Inicio after a finished match")
    # the finished game is still there to look at: its table, and the rematch
    page.click(f".mis-partidas .game[data-room='{room['room']}'] .game-open")
    page.wait_for_selector(".mesa .actions button.rematch")


def test_a_match_that_ended_while_away_does_not_reopen_by_itself(
    make_player: MakePlayer, web_server: ServerProc
) -> None:
    """The device last saw the table mid-match; the match ended elsewhere (the seat was
    played over a socket). Inicio, told by the server that it is over, offers no
    "Continuar partida"."""
    room = computer_room(web_server)
    me = make_player()
    hold_seat(me, room, since=None, active=False)
    play_by_socket(web_server, room["token"], event_of("match_end"))
    me.goto("/")
    page = me.page
    page.wait_for_selector(
        f".mis-partidas .game[data-room='{room['room']}'][data-status='finished']"
    )
    page.wait_for_function("() => !document.querySelector('button.continue-game')")
    assert re.match(r"Terminó: Gan", page.locator(".mis-partidas .g-turn").inner_text())
