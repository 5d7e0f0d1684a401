"""Web Push in Debian's chromium (issue 29), against the real server: the offer "¿Te
avisamos cuando te toque?" comes at a por-turnos table only, and the browser's permission
prompt only after "Sí, avísame"; then the service worker's side, with real push events
through the DevTools protocol (``ServiceWorker.deliverPushMessage``) carrying what the
server really sent to a push service stand-in (tests/support/pushkit.py): one notification
per game, replaced by the next (same tag), and a tap on it opens the game.

Headless chromium cannot make a real subscription (``pushManager.subscribe`` fails without
a push service): the subscription the server pushes to is registered through its API, as
the client would, with keys the stand-in made."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import connect as ws_connect

from tests.support.a11y import assert_no_violations
from tests.support.browserkit import Player
from tests.support.pushkit import PushService
from tests.support.srvkit import ServerProc, my_turn, pick_move, split_frame

pytestmark = pytest.mark.browser

MakePlayer = Callable[..., Player]

# counts the calls that show the browser's permission prompt (the page's own API, wrapped)
COUNT_PROMPTS = """
window.permissionAsked = 0;
const ask = Notification.requestPermission.bind(Notification);
Notification.requestPermission = (...args) => { window.permissionAsked += 1; return ask(...args); };
"""
NOTIFICATIONS = """async () => (await (await navigator.serviceWorker.ready).getNotifications())
  .map((n) => ({title: n.title, body: n.body, tag: n.tag, data: n.data}))"""


def shown(player: Player, title: str) -> list[dict[str, Any]]:
    """The page's notifications once the one titled ``title`` is among them, as read in that
    same look (a notification being replaced is briefly absent from the list). The page
    reads them every 20 ms (getNotifications is asynchronous; the wait's test is not)."""
    player.page.evaluate(
        f"""() => {{ window.notesPoll ??= setInterval(async () => {{
              window.notesSeen = await ({NOTIFICATIONS})(); }}, 20); }}"""
    )
    player.page.wait_for_function(
        """(title) => { const n = window.notesSeen || [];
             if (!n.some((x) => x.title === title)) return false;
             window.notesMatched = n; return true; }""",
        arg=title,
    )
    found: list[dict[str, Any]] = player.page.evaluate("() => window.notesMatched")
    return found


def asked(player: Player) -> int:
    return int(player.page.evaluate("() => window.permissionAsked"))


def open_friend_room(player: Player, turns: bool) -> None:
    """From Inicio: a friend room, por turnos or not; la mesa waits for the friend."""
    player.page.fill("#nombre", "Ana")
    if turns:
        player.page.check("#por-turnos")
    player.page.click("button.friend")
    player.page.wait_for_selector(".mesa.waiting")


def join_from_link(host: Player, friend: Player) -> None:
    friend.page.goto(host.page.locator("[data-invite-link]").get_attribute("href") or "")
    friend.page.fill("#nombre-invitado", "Beto")
    friend.page.click("button[type=submit]")
    friend.page.wait_for_selector(".mesa[data-seq]")


def test_the_offer_comes_at_a_por_turnos_table_and_the_prompt_only_after_yes(
    make_player: MakePlayer,
) -> None:
    ana = make_player()
    ana.context.add_init_script(COUNT_PROMPTS)
    ana.goto("/")
    assert ana.page.evaluate("() => Notification.permission") == "default"
    # a friend game that is not por turnos, and one against the computer: nothing offered
    open_friend_room(ana, turns=False)
    assert ana.page.locator("#push-offer").count() == 0
    ana.page.click(".menu-button")
    ana.page.click("dialog.menu >> text=Salir al inicio")
    ana.page.click("button[data-level='facil']")
    ana.page.wait_for_selector(".mesa[data-seq]")
    assert ana.page.locator("#push-offer").count() == 0
    ana.page.click(".menu-button")
    ana.page.click("dialog.menu >> text=Salir al inicio")
    # por turnos: offered at once, in the waiting room; no prompt before an answer
    open_friend_room(ana, turns=True)
    offer = ana.page.locator("#push-offer")
    offer.wait_for()
    assert "¿Te avisamos cuando te toque?" in offer.inner_text()
    assert asked(ana) == 0
    assert_no_violations(ana.page, "la mesa con la oferta de avisos")
    offer.locator("button.push-no").click()
    ana.page.wait_for_selector("#push-offer", state="detached")
    assert asked(ana) == 0
    ana.goto("/")  # back at the same table: the answer is remembered
    ana.page.wait_for_selector(".mesa.waiting")
    assert ana.page.locator("#push-offer").count() == 0
    # the friend who joins is offered too; the prompt comes with the yes (headless chromium
    # answers it with "denied", and la mesa says so)
    beto = make_player()
    beto.context.add_init_script(COUNT_PROMPTS)
    join_from_link(ana, beto)
    beto.page.locator("#push-offer").wait_for()
    assert asked(beto) == 0
    beto.page.click("#push-offer button.push-yes")
    beto.page.wait_for_selector("#push-offer .push-close")
    assert asked(beto) == 1
    assert "no dejó mostrar avisos" in beto.page.locator("#push-offer").inner_text()
    # with notifications allowed already, a yes needs no prompt, and goes to subscribe:
    # here there is no push service, and la mesa says it could not
    dora = make_player()
    dora.context.add_init_script(COUNT_PROMPTS)
    dora.context.grant_permissions(["notifications"], origin=dora.base)
    dora.goto("/")
    open_friend_room(dora, turns=True)
    dora.page.click("#push-offer button.push-yes")
    dora.page.wait_for_selector("#push-offer .push-close")
    assert "no pudo activar los avisos" in dora.page.locator("#push-offer").inner_text()
    assert asked(dora) == 0
    # the Menú's switch and Mis partidas' toggle say "No" for this seat
    dora.page.click("#push-offer .push-close")
    dora.page.click(".menu-button")
    switch = dora.page.locator("dialog.menu .push-switch")
    assert switch.get_attribute("aria-checked") == "false"
    assert switch.inner_text().replace("\n", " ").strip().endswith("No")
    dora.page.click("dialog.menu >> text=Salir al inicio")
    # the one game is "Continuar partida" (not listed again in Mis partidas): its toggle is there
    toggle = dora.page.locator(".continue .g-push")
    toggle.wait_for()
    assert toggle.get_attribute("aria-checked") == "false"
    said = " ".join(toggle.inner_text().split())  # with what only a screen reader reads
    assert said == "Avisos de la partida con tu amigo : No", said
    assert dora.page.locator(".mis-partidas .game").count() == 0


@pytest.fixture(scope="module")
def push_service() -> Iterator[PushService]:
    service = PushService()
    yield service
    service.close()


@pytest.fixture(scope="module")
def push_web_server(
    tmp_path_factory: pytest.TempPathFactory, push_service: PushService
) -> Iterator[ServerProc]:
    """A server that pushes to the stand-in alone, with no PUSH_EVERY."""
    tmp: Path = tmp_path_factory.mktemp("push-srv")
    proc = ServerProc(
        tmp,
        {"PUSH_SERVICES": push_service.origin, "PUSH_EVERY": "0", "RATE_ROOMS_PER_MIN": "1000"},
    ).start()
    push_service.vapid_key = proc.get("/api/push/key").json()["key"]
    yield proc
    proc.stop()


def play_once(server: ServerProc, token: str) -> None:
    """The seat of ``token`` plays one move on its turn from another device, and leaves."""
    with ws_connect(f"{server.ws_url}", open_timeout=10) as ws:
        ws.send(json.dumps({"type": "hello", "version": 3, "token": token, "since": None}))
        view = json.loads(ws.recv(timeout=10))["view"]
        assert my_turn(view), view
        ws.send(
            json.dumps({"type": "move", "move": pick_move(view), "seq": view["seq"], "id": "m1"})
        )
        while True:
            if any(m.get("type") == "ack" for m in split_frame(json.loads(ws.recv(timeout=10)))):
                return


def test_a_push_shows_one_notification_per_game_and_a_tap_opens_it(
    make_player: MakePlayer, push_web_server: ServerProc, push_service: PushService
) -> None:
    server = push_web_server
    ana_room = server.post("/api/rooms", {"mode": "friend", "name": "Ana", "turns": True}).json()
    r = server.post(
        "/api/push", {"token": ana_room["token"], "subscription": push_service.subscription("ana")}
    )
    assert r.json() == {"push": True}
    ana = make_player(base=server.base)
    ana.context.grant_permissions(["notifications"], origin=server.base)
    seat = {"room": ana_room["room"], "seat": 0, "token": ana_room["token"], "since": None,
            "mode": "friend", "active": False}  # fmt: skip
    ana.goto("/healthz")
    ana.page.evaluate("(s) => localStorage.setItem('casino.asientos', JSON.stringify([s]))", seat)
    ana.goto("/")  # Inicio: Ana's app is open on no table
    ana.page.wait_for_selector("main[data-screen='inicio']")
    ana.page.evaluate("() => navigator.serviceWorker.ready.then(() => true)")
    cdp = ana.context.new_cdp_session(ana.page)
    registrations: list[dict[str, Any]] = []
    cdp.on(
        "ServiceWorker.workerRegistrationUpdated",
        lambda e: registrations.extend(e["registrations"]),
    )
    cdp.send("ServiceWorker.enable")
    for _ in range(200):  # each round trip to the page lets the protocol's events in
        if any(r["scopeURL"] == server.base + "/" for r in registrations):
            break
        ana.page.evaluate("() => navigator.serviceWorker.ready.then(() => true)")
    registration = next(r for r in registrations if r["scopeURL"] == server.base + "/")

    def deliver(index: int) -> dict[str, Any]:
        """What the push service got for Ana, handed to her browser as its push service would."""
        push_service.wait(lambda s: len(s.of("ana")) > index)
        payload = push_service.of("ana")[index].payload
        cdp.send(
            "ServiceWorker.deliverPushMessage",
            {"origin": server.base, "registrationId": registration["registrationId"],
             "data": json.dumps(payload, ensure_ascii=False)},
        )  # fmt: skip
        return payload

    # Beto comes while Ana is away from the table: "¡Beto llegó a la mesa!"
    beto = server.post("/api/join", {"invite": ana_room["invite"], "name": "Beto"})
    deliver(0)
    (first,) = shown(ana, "¡Beto llegó a la mesa!")
    assert (
        first["title"] == "¡Beto llegó a la mesa!" and first["tag"] == f"casino-{ana_room['room']}"
    )
    # Ana plays from another device and leaves; Beto plays: her turn, the same notification
    play_once(server, ana_room["token"])
    play_once(server, beto.json()["token"])
    deliver(1)
    (second,) = shown(ana, "¡Te toca!")
    assert second["body"] == "Te toca en tu partida con Beto."
    assert second["data"] == {"room": ana_room["room"], "url": f"/?partida={ana_room['room']}"}
    # the tap (what the notificationclick handler does; a tap itself cannot be simulated):
    # the open app is brought forward and opens that game
    worker = next(w for w in ana.context.service_workers if w.url.endswith("/sw.js"))
    worker.evaluate("(data) => self.openGame(data).then(() => true)", second["data"])
    ana.page.wait_for_selector("main[data-screen='mesa'] .mesa[data-my-turn='true']")
    assert ana.welcome()["room"] == ana_room["room"]
    # with no window open, the app opens at the game's address: la mesa of that game
    other = ana.context.new_page()
    other.goto(server.base + second["data"]["url"])
    other.wait_for_selector("main[data-screen='mesa'] .mesa[data-seq]")
    assert other.evaluate("() => location.pathname + location.search") == "/"
    assert (
        json.loads(other.evaluate("() => localStorage.getItem('casino.session')"))["room"]
        == ana_room["room"]
    )
