# Bonsai's image: dependencies installed and the project built inside the image (nothing from the host's
# node_modules or dist), run as the unprivileged `node` user, node receiving signals directly (exec-form
# ENTRYPOINT; compose adds `init: true` so a tiny init reaps and forwards too).
#   docker build -t bonsai .
#   docker run --rm -p 127.0.0.1:6443:6443 bonsai
FROM node:20-bookworm-slim AS build
WORKDIR /app
# Build tools only for the fallback when better-sqlite3 has no prebuilt binary for this platform.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# --ignore-scripts: the package's own `prepare` (a build) needs the sources, copied below; then the native
# modules' install scripts run on their own.
RUN npm ci --ignore-scripts --no-audit --no-fund \
 && npm rebuild better-sqlite3 esbuild
COPY tsconfig.json ./
COPY scripts ./scripts
COPY src ./src
COPY ui ./ui
COPY openapi ./openapi
COPY proto ./proto
COPY migrations ./migrations
COPY examples ./examples
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app /app
# The data directory (SQLite database, <data>/pki, kubeconfig) belongs to the runtime user, 0700 as Bonsai makes it.
# A named volume mounted on /data or /data/pki starts with this ownership.
RUN mkdir -p /data/pki && chown -R node:node /data && chmod 700 /data /data/pki
USER node
EXPOSE 6443
# No curl in the image: node itself asks /readyz.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=5 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:6443/readyz').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "/app/dist/src/cli/bin.js"]
# Inside the container Bonsai listens on every address; publish the port on 127.0.0.1 (`-p 127.0.0.1:6443:6443`).
CMD ["serve", "--host", "0.0.0.0", "--port", "6443", "--data", "/data", "--insecure"]
