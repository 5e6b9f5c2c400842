# syntax=docker/dockerfile:1
# Scout: multi-stage build. The build stage compiles TypeScript (tsc's output and the esbuild bundle)
# and the native sqlite3 addon; the runtime stage gets only compiled JS, production node_modules and
# prompts, runs as `node`, and starts what `npm start` runs: scripts/start.mjs, i.e. the bundle.
#
#   docker build -t scout .
#   docker run --env-file .env -p 3000:3000 -v scout-data:/app/data scout
#
# The container needs a platform token (SLACK_BOT_TOKEN and/or DISCORD_TOKEN) or the web chat
# (WEB_PORT): without any Scout would open the terminal chat, which has no /healthz. The web chat in a
# container binds all addresses, so it needs a login (adapters/web/README.md), e.g.:
#
#   docker run --env-file .env -e WEB_PORT=8080 -e WEB_HOST=0.0.0.0 -e WEB_PASSWORD=… -p 8080:8080 scout

ARG NODE_IMAGE=node:24-slim

# ── build ────────────────────────────────────────────────────────────────────────
FROM ${NODE_IMAGE} AS build
WORKDIR /app
# sqlite3 falls back to compiling its addon with node-gyp when no prebuilt binary fits.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# npm ci's postinstall applies patches/ (linkedom as Scout runs it: scripts/postinstall.mjs).
COPY patches ./patches
COPY scripts/postinstall.mjs ./scripts/postinstall.mjs
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY adapters ./adapters
COPY scripts ./scripts
# Compile to dist/ (tsc's dist/src/ for Discord shards, the bundle dist/scout/ that starts), then drop
# dev dependencies; the already-built sqlite3 addon is kept, so the runtime stage needs no compiler
# (both stages use the same image, hence the same Node ABI).
RUN npm run build && npm prune --omit=dev && npm cache clean --force

# ── runtime ──────────────────────────────────────────────────────────────────────
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    PORT=3000
WORKDIR /app
COPY --from=build --chown=node:node /app/package.json ./package.json
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
# npm start's script: with no sources in the image it never rebuilds, it runs the bundle.
COPY --from=build --chown=node:node /app/scripts/start.mjs /app/scripts/stale.mjs /app/scripts/build.mjs ./scripts/
# Prompt templates are read at runtime (found from dist/scout/ two or three folders up).
COPY --chown=node:node prompts ./prompts
# The default STORE_URL (sqlite://data/scout.sqlite) resolves to /app/data/scout.sqlite.
RUN mkdir -p /app/data && chown node:node /app/data
VOLUME ["/app/data"]
USER node
# 3000: health, metrics and Slack HTTP mode (PORT); 8080: the web chat when WEB_PORT=8080.
EXPOSE 3000 8080
# /healthz is readiness (store, Slack socket, Discord shards): `docker ps` shows a deaf bot as
# unhealthy. Kubernetes: livenessProbe /livez (200 while the process runs), readinessProbe /readyz.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT || 3000}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM: stop intake, finish running turns within SHUTDOWN_GRACE_MS (default 25 s), close the store.
# Give `docker stop` longer than that: docker stop -t 35.
STOPSIGNAL SIGTERM
# The same script `npm start` runs (the bundle, not tsc's per-file output: cold start and memory in
# docs/performance.md), without npm in between: node is PID 1 and gets SIGTERM itself. With the same
# flags, which bound how much garbage V8 keeps while many answers run: young-generation semi-spaces of
# 4 MiB (Node 24 lets them grow to 64), and a full collection once the old generation has grown 20 %
# (or V8's minimum step) past what was live, instead of up to 4×. At 300 answers at once they cut the
# memory per answer in flight by a third or more; on Node 24 at no measurable CPU cost (Node 20 pays
# about 3 ms a turn at 300 answers at once for the 4 MiB semi-spaces, and at 1,000 answers at once
# 8 MiB holds less: docs/performance.md).
# --no-incremental-marking: a full collection marks in one pause (about 20 ms at 300 answers at once,
# up to 125 ms at 1,000) instead of in steps while a burst of answers goes on allocating, which let the
# old generation overshoot and left the pages it freed resident: less memory per answer, less CPU.
# --expose-gc: Scout gives the heap's slack back when idle, which Node 24's V8 no longer does itself.
CMD ["node", "--max-semi-space-size=4", "--heap-growing-percent=20", "--no-incremental-marking", "--expose-gc", "scripts/start.mjs"]
