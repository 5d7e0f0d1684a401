"""/metrics (issue 21): a real scrape of a real server, read with prometheus-client's own
parser: its figures move with play; anybody but loopback (or METRICS_ALLOW_IPS) is not
served."""

from __future__ import annotations

from collections.abc import Callable

import httpx
from prometheus_client.parser import text_string_to_metric_families

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
