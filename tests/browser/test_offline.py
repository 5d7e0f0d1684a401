"""Jugar sin conexión in Debian's chromium: the app installed by one online visit (Inicio up,
then the service worker keeps the engine; here a first table too), the network off
(``context.set_offline``), a whole hand against Normal played by clicks and keys at 360×740
and 740×360, the app closed and opened again with no network (the same table), axe on the
offline table and its score sheet, Mis partidas, and the online game still there and
playable once the network is back. Then the offer when the network goes mid online game."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from tests.support.a11y import assert_no_violations
from tests.support.browserkit import LANDSCAPE, PHONE, Player, assert_fits, offered_actions
from tests.support.srvkit import ServerProc

pytestmark = pytest.mark.browser

CLIENT = Path(__file__).resolve().parents[2] / "client"

MakePlayer = Callable[..., Player]

KIT_KEPT = "async () => Boolean(await caches.match('/'))"
KIT_SAID = "html[data-sin-conexion='lista']"  # the page knows the kit is kept
TURN_OR_SHEET = """() => {
  if (document.querySelector('dialog.sheet[open]')) return true;
  const mesa = document.querySelector('.mesa');
  return !!mesa && mesa.dataset.myTurn === 'true' && mesa.dataset.busy === 'false';
}"""


def install(me: Player) -> None:
    """One online visit: Inicio up (nothing of the kit before it: it comes once Inicio is
    up and the page idle, issue 30), a table against the computer, the offline kit kept."""
    me.goto("/")
    page = me.page
    page.wait_for_selector("main[data-screen='inicio']")
    assert not page.evaluate(KIT_KEPT), "the kit must not come before Inicio is up"
    page.click("button[data-level='facil']")
    page.wait_for_selector(".mesa[data-seq]")
    page.wait_for_selector(KIT_SAID, state="attached")
    assert page.evaluate(KIT_KEPT)
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")


def table_state(page: Page) -> dict[str, Any]:
    """What the table shows: hand, table items, the turn line, the score boxes, seq."""
    return dict(
        page.evaluate(
            """() => ({
          hand: [...document.querySelectorAll('.hand .card')].map(e => e.dataset.code),
          table: [...document.querySelectorAll('.table-area [data-id]')].map(e => e.dataset.id),
          turn: document.querySelector('.mesa .turn').textContent,
          scores: document.querySelector('.topbar').innerText,
          seq: document.querySelector('.mesa').dataset.seq,
        })"""
        )
    )


def play_turn_by_clicks(page: Page, keyboard: bool) -> None:
    """One turn as a person plays it, from what the page offers: each hand card in turn
    until one offers Llevarte, else Echar, else a build idea. With ``keyboard``, the card
    is reached with the arrow keys and the action pressed with Enter."""
    before = int(page.locator(".mesa").get_attribute("data-seq") or "0")
    cards = page.locator(".hand .card")
    offered: list[set[str]] = []
    for i in range(cards.count()):
        cards.nth(i).click()  # each card once: what its actions are
        offered.append(offered_actions(page))
    chosen = next(
        (
            (i, wanted)
            for wanted in ("take", "trail", "build")
            for i, acts in enumerate(offered)
            if wanted in acts
        ),
        None,
    )
    assert chosen, f"no card offers anything: {offered}"
    if chosen[0] != len(offered) - 1 or keyboard:
        page.click(".actions button.cancel")
        if not keyboard:
            cards.nth(chosen[0]).click()
    i, action = chosen
    if keyboard:
        page.focus(".hand .card >> nth=0")
        for _ in range(i):
            page.keyboard.press("ArrowRight")
        page.keyboard.press("Enter")
        page.focus(f".actions button.{action}")
        page.keyboard.press("Enter")
        if action == "build":
            page.locator(".build-panel .ideas button").first.press("Enter")
            page.locator(".build-panel .build-confirm").first.press("Enter")
    elif action == "build":
        page.click(".actions button.build")
        page.locator(".build-panel .ideas button").first.click()
        page.locator(".build-panel .build-confirm").first.click()
    else:
        page.click(f".actions button.{action}")
    page.wait_for_function(
        "(b) => document.querySelector('dialog.sheet[open]') ||"
        " Number(document.querySelector('.mesa').dataset.seq) > b",
        arg=before,
    )


def play_hand_offline(page: Page, shot: Callable[[str], object]) -> None:
    """Plays to the end of the hand; axe on the table once and on the sheet."""
    checked = False
    for turn in range(40):
        page.wait_for_function(TURN_OR_SHEET)
        if page.locator("dialog.sheet[open]").count():
            break
        if not checked:
            assert_fits(page)
            assert_no_violations(page, "the offline table")
            shot("table")
            checked = True
        play_turn_by_clicks(page, keyboard=turn % 2 == 1)
    else:
        raise AssertionError("the hand did not end")
    sheet = page.locator("dialog.sheet[open]")
    assert sheet.locator("table").count() == 1
    assert "Computadora" in sheet.inner_text()
    assert_no_violations(page, "the offline score sheet")
    shot("sheet")
    page.click("dialog.sheet button.next-hand")
    page.wait_for_function(TURN_OR_SHEET)


@pytest.mark.parametrize("viewport", [PHONE, LANDSCAPE], ids=["360x740", "740x360"])
def test_a_hand_against_normal_with_no_network(
    make_player: MakePlayer, viewport: dict[str, int]
) -> None:
    me = make_player(viewport=viewport)
    size = f"{viewport['width']}x{viewport['height']}"
    install(me)
    page = me.page
    online_seq = me.seq()
    online_room = me.welcome()["room"]
    # back to Inicio, the online game kept; then no network at all
    page.click("button.menu-button")
    page.click("dialog.menu >> text=Salir al inicio")
    page.wait_for_selector("main[data-screen='inicio']")
    me.context.set_offline(True)
    page.goto(me.base + "/")
    page.wait_for_selector("main[data-screen='inicio'] .sin-conexion")
    assert "No hay conexión" in page.locator("#inicio-error").inner_text()
    assert_no_violations(page, "Inicio with no network")
    page.click(".sin-conexion button[data-offline-level='normal']")
    page.wait_for_selector(".mesa[data-seq]")
    assert "Computadora" in page.locator(".topbar").inner_text()
    play_hand_offline(page, lambda name: me.screenshot(f"sin-conexion-{name}-{size}"))

    # closed and opened again, still with no network: the same table
    before = table_state(page)
    page.close()
    me.new_page()
    page = me.page
    page.goto(me.base + "/")
    page.wait_for_selector(".mesa[data-seq]")
    page.wait_for_function(TURN_OR_SHEET)
    assert table_state(page) == before
    play_turn_by_clicks(page, keyboard=True)  # and it plays on
    page.wait_for_function(TURN_OR_SHEET)

    # Mis partidas lists it on this device
    page.click("button.menu-button")
    page.click("dialog.menu >> text=Salir al inicio")
    page.wait_for_selector(".mis-partidas .game.local")
    assert "Normal" in page.locator(".mis-partidas .game.local").inner_text()

    # the network back: the online game is still the server's, and plays
    me.context.set_offline(False)
    page.goto(me.base + "/")
    page.click("button.continue-game")
    page.wait_for_selector(".mesa[data-seq]")
    page.wait_for_function(
        "(s) => Number(document.querySelector('.mesa').dataset.seq) >= s", arg=online_seq
    )
    assert me.welcome()["room"] == online_room
    me.wait_turn_or_sheet()
    if not me.sheet_open():
        me.play_turn()
    # and the offline game is there to continue from Mis partidas
    page.click("button.menu-button")
    page.click("dialog.menu >> text=Salir al inicio")
    page.click(".mis-partidas .game.local button.game-open")
    page.wait_for_selector(".mesa[data-seq]")
    assert int(page.locator(".mesa").get_attribute("data-seq") or "0") > int(before["seq"])


def test_the_network_gone_mid_game_offers_the_computer_offline(make_player: MakePlayer) -> None:
    me = make_player(viewport=PHONE)
    install(me)
    page = me.page
    me.wait_turn_or_sheet()
    online = table_state(page)
    me.context.set_offline(True)
    offer = page.locator(".offline-offer")
    offer.wait_for()
    assert "Esta partida te espera" in offer.inner_text()
    assert_no_violations(page, "the offer to play offline")
    page.click(".offline-offer button[data-offline-level='facil']")
    page.wait_for_selector(".mesa[data-seq='0'], .mesa[data-seq='1']")
    page.wait_for_function(TURN_OR_SHEET)
    play_turn_by_clicks(page, keyboard=False)
    me.context.set_offline(False)
    page.wait_for_selector(".notice >> text=Volvió la conexión")
    page.click("button.menu-button")
    page.click("dialog.menu >> text=Salir al inicio")
    page.click("button.continue-game")
    page.wait_for_selector(f".mesa[data-seq='{online['seq']}']")
    me.wait_turn_or_sheet()
    assert table_state(page)["hand"] == online["hand"]


UPDATED = """async (mark) => {
  const keys = await caches.keys();
  const kept = await caches.match('/static/js/play/worker.js');
  return keys.length === 1 && Boolean(kept) && (await kept.text()).includes(mark);
}"""


def test_an_engine_update_reaches_the_installed_app_at_its_next_start(
    make_player: MakePlayer, tmp_path: Path
) -> None:
    client = tmp_path / "client"
    shutil.copytree(CLIENT, client)
    server = ServerProc(tmp_path, {"CLIENT_DIR": str(client)}).start()
    try:
        me = make_player(base=server.base)
        install(me)
        page = me.page
        worker = client / "js" / "play" / "worker.js"
        mark = "// the engine, updated"
        worker.write_text(worker.read_text(encoding="utf-8") + mark + "\n", encoding="utf-8")
        page.goto(server.base + "/")  # the app's next start: its service worker is updated
        page.wait_for_function(UPDATED, arg=mark, polling=100)
        me.context.set_offline(True)
        page.goto(server.base + "/")  # back at the online table, which offers the computer
        page.click(".offline-offer button[data-offline-level='facil']")
        page.wait_for_function(TURN_OR_SHEET)
        play_turn_by_clicks(page, keyboard=False)
    finally:
        server.stop()


# a whole match played by Normal on both seats in the engine's worker, its moves but the
# last; the first seed whose last move is the computer's (seat 1) is kept
NEAR_THE_END = """async () => {
  const worker = new Worker('/static/js/play/worker.js', {type: 'module'});
  let next = 1;
  const waiting = new Map();
  worker.onmessage = (e) => { waiting.get(e.data.id)(e.data); waiting.delete(e.data.id); };
  const ask = (req) => new Promise((ok) => { const id = next++; waiting.set(id, ok);
    worker.postMessage({id, ...req}); });
  for (let n = 0; n < 20; n++) {
    const seed = 'revancha-' + n;
    let moves = [];
    let seat = 0;
    for (;;) {
      const view = (await ask({op: 'game', seed, moves, seat: 0})).view;
      if (view.status === 'finished') break;
      seat = view.turn;
      const chosen = await ask({op: 'game_computer', seed, moves, level: 'normal'});
      moves = (await ask({op: 'game_play', seed, moves, move: chosen.move, seat})).moves;
    }
    if (seat === 1) {
      worker.terminate();
      return {seed, moves: moves.slice(0, -1)};
    }
  }
  worker.terminate();
  return null;
}"""

KEEP_GAME = """async (game) => {
  const db = await new Promise((ok, fail) => {
    const open = indexedDB.open('casino', 1);
    open.onupgradeneeded = () => open.result.createObjectStore('partidas', {keyPath: 'id'});
    open.onsuccess = () => ok(open.result);
    open.onerror = () => fail(open.error);
  });
  await new Promise((ok, fail) => {
    const tx = db.transaction('partidas', 'readwrite');
    tx.objectStore('partidas').put(game);
    tx.oncomplete = ok;
    tx.onerror = () => fail(tx.error);
  });
  db.close();
  localStorage.setItem('casino.sinConexion', JSON.stringify({id: game.id, active: true}));
}"""

READ_GAME = """async (id) => {
  const db = await new Promise((ok) => { const o = indexedDB.open('casino', 1);
    o.onsuccess = () => ok(o.result); });
  const game = await new Promise((ok) => { const r = db.transaction('partidas')
    .objectStore('partidas').get(id); r.onsuccess = () => ok(r.result); });
  db.close();
  return game;
}"""


def test_an_offline_match_ends_with_the_sheet_and_a_rematch_on_a_new_seed(
    make_player: MakePlayer,
) -> None:
    me = make_player(viewport=PHONE)
    install(me)
    page = me.page
    near = page.evaluate(NEAR_THE_END)
    assert near is not None, "no seed of twenty ends on the computer's move"
    now = page.evaluate("() => Date.now()")
    game = {
        "id": "local-prueba",
        "level": "normal",
        "seed": near["seed"],
        "moves": near["moves"],
        "match": 1,
        "seqBase": 0,
        "scores": [0, 0],
        "status": "playing",
        "winner": None,
        "myTurn": False,
        "created": now,
        "updated": now,
    }
    page.evaluate(KEEP_GAME, game)
    me.context.set_offline(True)
    page.goto(me.base + "/")  # the app opens at that game; the computer plays the last move
    sheet = page.locator("dialog.sheet.final[open]")
    sheet.wait_for()
    assert page.locator("dialog.sheet.final .btn.replay").count() == 0  # the server's alone
    assert page.locator(".actions .btn.replay").count() == 0
    assert "null" not in page.locator(".actions").inner_text()
    assert_no_violations(page, "the final sheet of an offline match")
    me.screenshot("sin-conexion-final-360x740")
    last_seq = int(page.locator(".mesa").get_attribute("data-seq") or "0")
    assert last_seq == len(near["moves"]) + 1
    page.click("dialog.sheet.final button.rematch")
    page.wait_for_function(
        "(s) => Number(document.querySelector('.mesa').dataset.seq) > s", arg=last_seq
    )
    page.wait_for_function(TURN_OR_SHEET)  # the computer may lead the new match
    assert page.locator("dialog.sheet[open]").count() == 0
    kept = page.evaluate(READ_GAME, "local-prueba")
    assert kept["match"] == 2 and len(kept["moves"]) <= 1 and kept["status"] == "playing"
    assert kept["seqBase"] == last_seq + 1
    assert kept["seed"] != near["seed"] and len(kept["seed"]) == 22  # the device's, 128 bits
    assert kept["scores"] == [0, 0]
