"""/metrics (issue 21): a real scrape of a real server, read with prometheus-client's own
parser: its figures move with play; anybody but loopback (or METRICS_ALLOW_IPS) is not
served."""

from __future__ import annotations

import gc
from collections.abc import Callable

import httpx
from prometheus_client.parser import text_string_to_metric_families

from server.web.pauses import GcPauses
from tests.support.srvkit import Client, ServerProc, play_until


def scrape(server: ServerProc, **headers: str) -> dict[str, float]:
    """Every sample of a scrape, by name (a histogram's buckets by ``name{le}``)."""
    answer = httpx.get(f"{server.base}/metrics", headers=headers, timeout=10)
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("text/plain; version=0.0.4")
    samples = {}
    for family in text_string_to_metric_families(answer.text):
        for sample in family.samples:
            key = sample.name + (f"{{{sample.labels['le']}}}" if "le" in sample.labels else "")
            samples[key] = sample.value
    return samples


async def test_a_scrape_says_what_the_process_does(make_server: Callable[..., ServerProc]) -> None:
    server = make_server(FORWARDED_ALLOW_IPS="127.0.0.1").start()
    before = scrape(server)
    assert before["casino_moves_total"] == 0 and before["casino_rooms_held"] == 0
    assert before["casino_lease_held"] == 1 and before["casino_hub_healthy"] == 1
    assert before["casino_ai_waiting"] == 0  # the computer pool's queue is there, empty
    room = server.computer_room()
    client, _ = await Client.hello(server, room["token"])
    await play_until(client, lambda m: m["type"] == "event" and m["seq"] >= 6)
    after = scrape(server)
    assert after["casino_moves_total"] >= 6
    assert after["casino_rooms_held"] == 1 and after["casino_sockets"] == 1
    assert after["casino_frames_delivered_total"] >= 6
    assert after["casino_frames_crossed_total"] == 0  # one process: nothing crosses
    batches = after["casino_write_batch_jobs_count"]
    assert batches >= 6 and after["casino_write_batch_jobs_bucket{+Inf}"] == batches
    assert after["casino_write_batch_seconds_sum"] > 0
    await client.close()
    # the same address, seen as a player's from outside (behind a trusted proxy): not served
    outside = httpx.get(
        f"{server.base}/metrics", headers={"X-Forwarded-For": "203.0.113.7"}, timeout=10
    )
    assert outside.status_code == 404 and "casino_moves" not in outside.text


def test_the_collectors_pauses_are_counted_by_generation_while_installed() -> None:
    pauses = GcPauses()
    pauses.install()
    try:
        gc.collect(2)
        gc.collect(0)
        full = pauses.by_generation[2]
        assert full.count >= 1 and full.seconds[-1] == full.count  # cumulative buckets
        assert 0 < full.longest <= full.total_seconds
        assert pauses.by_generation[0].count >= 1
    finally:
        pauses.remove()
    counted = pauses.by_generation[2].count
    gc.collect(2)
    assert pauses.by_generation[2].count == counted  # removed: no longer called


async def test_a_scrape_tells_the_collectors_pauses(
    make_server: Callable[..., ServerProc],
) -> None:
    server = make_server().start()
    answer = httpx.get(f"{server.base}/metrics", timeout=10).text
    families = {f.name: f for f in text_string_to_metric_families(answer)}
    counts = {
        s.labels["generation"]: s.value
        for s in families["casino_gc_pause_seconds"].samples
        if s.name.endswith("_count")
    }
    infinite = {
        s.labels["generation"]: s.value
        for s in families["casino_gc_pause_seconds"].samples
        if s.name.endswith("_bucket") and s.labels["le"] == "+Inf"
    }
    assert set(counts) == {"0", "1", "2"} and infinite == counts
