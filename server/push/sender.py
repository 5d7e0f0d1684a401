"""One push to one browser, off the event loop: ``pywebpush`` encrypts the payload for the
subscription's keys (aes128gcm, RFC 8291), signs the VAPID token (RFC 8292) and posts it to
the push service (RFC 8030), in a small pool of threads of its own, each push given up after
``timeout`` seconds. The answer is one ``Outcome``: sent, gone (404/410: the subscription
is no more), or failed (the notification is lost; nothing else is).

Only the push services of ``endpoint_allowed`` are ever posted to: a subscription is the
client's word, and an endpoint of its choosing must not make the server post into its own
network."""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from enum import Enum
from urllib.parse import urlsplit

import requests
from pywebpush import WebPushException, webpush

from ..store import Subscription
from .keys import VapidKey

log = logging.getLogger("server.push")

# the browsers' push services (Chrome and most Android browsers, Firefox, Safari and iOS
# from the home screen, Edge); PUSH_SERVICES replaces the list
PUSH_SERVICES_DEFAULT = (
    "fcm.googleapis.com",
    "android.googleapis.com",
    "updates.push.services.mozilla.com",
    "web.push.apple.com",
    ".notify.windows.com",
)
MAX_ENDPOINT = 1024
THREADS = 4  # pushes posted at once; the rest wait their turn (each within its timeout)


class Outcome(Enum):
    SENT = "sent"
    GONE = "gone"  # 404, 410: the browser or the push service dropped the subscription
    REFUSED = "refused"  # another answer: 400, 401, 403, 413, 429, 5xx
    TIMEOUT = "timeout"
    FAILED = "failed"  # no answer: the connection failed


def endpoint_allowed(endpoint: str, services: tuple[str, ...] = ()) -> bool:
    """``endpoint`` is an https URL of one of ``services`` (a host, or ``.suffix`` for its
    subdomains), or starts with one of them given as a whole origin (``http://host:port``),
    never an address literal of a host-name entry; ``services`` empty: the browsers' own."""
    if len(endpoint) > MAX_ENDPOINT or not endpoint.isascii() or not endpoint.isprintable():
        return False
    try:
        url = urlsplit(endpoint)
        port = url.port
    except ValueError:
        return False
    host = (url.hostname or "").lower()
    if not host or url.username is not None or url.password is not None:
        return False
    origin = f"{url.scheme}://{url.netloc}".lower()
    for entry in services or PUSH_SERVICES_DEFAULT:
        if "://" in entry:
            if origin == entry:
                return True
            continue
        if url.scheme != "https" or port not in (None, 443) or _is_address(host):
            continue
        if host == entry or (entry.startswith(".") and host.endswith(entry)):
            return True
    return False


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


class Sender:
    """Posts pushes with the VAPID key ``key`` signed for ``subject``, at most ``THREADS``
    at a time, each one given up after ``timeout`` seconds."""

    def __init__(self, key: VapidKey, subject: str, timeout: float) -> None:
        self.key = key
        self.subject = subject
        self.timeout = timeout
        self._pool = ThreadPoolExecutor(THREADS, thread_name_prefix="push")
        self._local = threading.local()  # one HTTP session (its connections) per thread

    async def send(self, sub: Subscription, payload: str, topic: str, ttl: int) -> Outcome:
        """Posts ``payload`` (JSON text, encrypted for ``sub``); ``topic``: a newer push of
        the same topic replaces one the push service still holds (RFC 8030 5.4); ``ttl``:
        how long it may hold it for a device that is off."""
        loop = asyncio.get_running_loop()
        work = loop.run_in_executor(self._pool, self._post, sub, payload, topic, ttl)
        try:
            return await asyncio.wait_for(work, self.timeout)
        except TimeoutError:
            return Outcome.TIMEOUT

    def _session(self) -> requests.Session:
        session: requests.Session | None = getattr(self._local, "session", None)
        if session is None:
            session = requests.Session()
            session.max_redirects = 0  # a push service answers; it never sends us elsewhere
            self._local.session = session
        return session

    def _post(self, sub: Subscription, payload: str, topic: str, ttl: int) -> Outcome:
        try:
            webpush(
                {"endpoint": sub.endpoint, "keys": {"p256dh": sub.p256dh, "auth": sub.auth}},
                payload,
                vapid_private_key=self.key.vapid,
                vapid_claims={"sub": self.subject},  # aud and exp: pywebpush's (12 hours)
                ttl=ttl,
                headers={"Topic": topic, "Urgency": "normal"},
                timeout=self.timeout,
                requests_session=self._session(),
            )
        except WebPushException as exc:
            status = exc.status_code
            if status in (404, 410):
                return Outcome.GONE
            log.info("push refused by %s: %s", urlsplit(sub.endpoint).hostname, status)
            return Outcome.REFUSED
        except requests.Timeout:
            return Outcome.TIMEOUT
        except requests.RequestException as exc:
            log.info("push not sent to %s: %r", urlsplit(sub.endpoint).hostname, exc)
            return Outcome.FAILED
        return Outcome.SENT

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
