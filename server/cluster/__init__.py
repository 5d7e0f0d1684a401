"""Several server processes as one: who a process is (``node``), the rule that a copy of a
room serves only while its process's lease is held and its claim is current (``lease``),
the database's time (``clock``), the hub that carries frames to sockets (``hub``: one
process; ``redis_hub``: several, over Redis pub/sub) and room commands to the process that owns the
room (``peers``). Nothing here knows what a room is: commands and answers are opaque
payloads, and what happens is reported to one listener (``events``)."""

from .clock import DbClock
from .events import ClusterEvents
from .hub import WATCHERS, Hub, LocalHub, Sink
from .lease import Claim, Lease
from .node import new_conn_id, new_node_id, node_of
from .outage import is_outage
from .peers import NotOwner, Payload, PeerGone, Peers, error_from_wire, error_to_wire
from .redis_hub import RedisHub

__all__ = [
    "WATCHERS", "Claim", "ClusterEvents", "DbClock", "Hub", "Lease", "LocalHub", "NotOwner",
    "Payload", "PeerGone", "Peers", "RedisHub", "Sink", "error_from_wire", "error_to_wire",
    "is_outage", "new_conn_id", "new_node_id", "node_of",
]  # fmt: skip
