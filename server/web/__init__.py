"""The web layer: the route table (``routes.py``), the HTTP API (``api.py``), the pages
(``pages.py``), the websocket session (``session.py``), the client's files (``static.py``),
QR codes (``qr.py``), and the app with its lifespan, the composition root (``app.py``)."""
