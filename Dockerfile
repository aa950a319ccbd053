# Golf Race server image: the web client built with Node, the server installed with pip.
# Run with docker compose (see docker-compose.yml and the README's "Server" section).

FROM node:20-slim AS client
# The build reads the engine's catalogs (bundled UI texts) and docs/rules-*.md (the rules pages), so the
# client stage keeps the repository's layout for those three folders.
WORKDIR /src
COPY client_web/package.json client_web/package-lock.json client_web/
RUN cd client_web && npm ci --no-audit --no-fund --loglevel=error
COPY client_web/ client_web/
COPY docs/ docs/
COPY server/golfrace/engine/catalogs/ server/golfrace/engine/catalogs/
RUN cd client_web && npm run --silent build && test -f dist/index.html && test -f dist/rules/en.html

FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 \
    GOLFRACE_HOST=0.0.0.0 GOLFRACE_PORT=8000 GOLFRACE_STATIC_DIR=/app/client_web/dist
WORKDIR /app
COPY pyproject.toml README.md ./
COPY server/ server/
RUN pip install --no-cache-dir . && useradd --system --uid 10001 golfrace
COPY --from=client /src/client_web/dist/ client_web/dist/
USER golfrace
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --retries=3 \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=3)"
CMD ["golfrace", "serve"]
