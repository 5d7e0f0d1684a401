"""The database's time as this process reads it (``DbClock.now``): this process's monotonic
clock plus the offset measured at its lease renewals, for anything compared across
processes (a call's deadline, a seat's grace period, a lease's end). The wall clock plays
no part once a renewal was read, so a machine whose clock is wrong, or is set meanwhile,
reads the same time as the others.

Of the last ``OFFSET_SAMPLES`` readings the one with the shortest round trip is believed,
as NTP does: a renewal that waited on a busy machine says little about the clocks; a
reading that cannot agree with it (the machine was suspended) drops the readings from
before.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

OFFSET_SAMPLES = 8  # renewals whose clock readings are kept (about 13 s at the default lease)


class DbClock:
    def __init__(
        self,
        monotonic: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.monotonic = monotonic
        # the database's clock minus this process's monotonic clock (until the first
        # reading says otherwise: this machine's wall clock)
        self.offset = wall() - monotonic()
        # (round trip, offset) of the last readings: the shortest round trip is believed
        self._samples: deque[tuple[float, float]] = deque(maxlen=OFFSET_SAMPLES)

    def now(self) -> float:
        """Now, on the database's clock (as read at the quickest of the last renewals)."""
        return self.monotonic() + self.offset

    def reading(self, sent: float, received: float, db_now: float) -> None:
        """The database said ``db_now`` to a request sent at ``sent`` and answered at
        ``received`` (both on the monotonic clock)."""
        trip, offset = received - sent, db_now - (sent + received) / 2
        if self._samples:
            best_trip, best = min(self._samples)
            # each reading is right within half its round trip: one that cannot agree with
            # the best says the clocks moved apart (this machine was suspended, say), and
            # the readings from before are wrong now
            if abs(offset - best) > (trip + best_trip) / 2:
                self._samples.clear()
        self._samples.append((trip, offset))
        self.offset = min(self._samples)[1]

    @staticmethod
    def lapse_in(lease_until: float, db_now: float) -> float:
        """Seconds until a lease read as ending at ``lease_until`` when the database's clock
        said ``db_now`` has lapsed, from now (0: it has)."""
        return max(0.0, lease_until - db_now)
