# Casino dominicano online: one process serving the game on port 8000.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    HOST=0.0.0.0 \
    PORT=8000 \
    DATABASE_URL=sqlite+aiosqlite:////data/casino.db

WORKDIR /app
COPY pyproject.toml README.md ./
COPY server ./server
RUN pip install . && useradd --create-home --uid 1000 casino && mkdir -p /data \
    && chown casino /data
COPY alembic.ini ./
COPY migrations ./migrations
COPY client ./client

USER casino
VOLUME ["/data"]
EXPOSE 8000
CMD ["python", "-m", "server"]
