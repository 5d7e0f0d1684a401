"""The HTTP use cases: rooms made and joined, rejoin codes, summaries (``lobby.py``), one's
own games and the replays of finished matches (``games.py``, ``replays.py``), and the rules
of a player's name (``names.py``). Each answers a value or raises ``ApiError``."""
