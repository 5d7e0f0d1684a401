"""Who a process is, and which process holds a socket: node ids and connection ids.

A node id is a readable name (the host's by default) and a random part, so a restarted
process is a new node and never mistakes the old one's rooms for its own. A connection id
is ``<node>/<random>``: its prefix names the process that holds the socket.
"""

from __future__ import annotations

import secrets
import socket

CONN_SEPARATOR = "/"


def new_node_id(name: str = "") -> str:
    base = "".join(c for c in (name or socket.gethostname()) if c.isalnum() or c in "-_.")
    return f"{base[:40] or 'node'}-{secrets.token_hex(4)}"


def new_conn_id(node: str) -> str:
    return f"{node}{CONN_SEPARATOR}{secrets.token_hex(8)}"


def node_of(conn: str) -> str:
    """The process that holds the socket of connection ``conn``."""
    return conn.rpartition(CONN_SEPARATOR)[0]
