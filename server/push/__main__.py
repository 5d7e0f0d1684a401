"""``python -m server.push``: prints a new VAPID key pair for a deployment's environment
(README.md, "Web Push")."""

from __future__ import annotations

from .keys import VapidKey, new_private_key

if __name__ == "__main__":
    private = new_private_key()
    print(f"VAPID_PRIVATE_KEY={private}")
    print(f"# public key (the browsers get it from GET /api/push/key): {VapidKey(private).public}")
