# cloudtwin's container image.
#
#   npm run image:build                          # here: makes the base when it cannot be pulled, tags cloudtwin:dev
#   docker build -t cloudtwin .                  # or: podman build --format docker -t cloudtwin .
#   docker run --rm -p 8080:8080 -e CLOUDTWIN_ADMIN_TOKEN=my-admin-token cloudtwin
#
# BASE is an official Node 24 slim image (or one made the same way: Debian bookworm, Node 24 and
# npm in /usr/local; scripts/image-build.ts makes one when no registry can be reached).
ARG BASE=node:24-bookworm-slim

# 1. Build: the console, dist/ (the compiled JavaScript), then the npm package a user installs,
#    unpacked into /app with the production dependencies of the lockfile, and the bundles of
#    fastify, commander, kysely and TypeBox that `npm ci` makes here (scripts/vendor-deps.js: a faster start).
FROM ${BASE} AS build
# A CA file for npm, when a TLS-intercepting proxy stands between the build and the registry
# (scripts/image-build.ts passes the one npm uses on the machine, with podman).
ARG NPM_CONFIG_CAFILE
WORKDIR /src
COPY package.json package-lock.json .npmrc ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
# `npm pack` runs `prepare` (the console's build) and `prepack` (dist/).
RUN npm pack --pack-destination /tmp \
 && mkdir /app \
 && tar -xzf /tmp/cloudtwin-*.tgz -C /app --strip-components=1 \
 && cp package-lock.json .npmrc /app/ \
 && cd /app \
 && npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && rm package-lock.json .npmrc \
 && rm -rf /root/.npm \
 && cp -r /src/node_modules/.cloudtwin-vendor node_modules/

# 2. Runtime: the package and its production dependencies, nothing else.
FROM ${BASE}
# Inside a container the server listens on every interface, port 8080, and keeps its state (the
# SQLite store, master.key, admin-token, tls/) in the /data volume. Every `serve` flag has its
# CLOUDTWIN_* variable: -e CLOUDTWIN_ADMIN_TOKEN=..., -e CLOUDTWIN_WORLD=/world.yaml (mounted), ...
ENV NODE_ENV=production \
    CLOUDTWIN_HOST=0.0.0.0 \
    CLOUDTWIN_PORT=8080 \
    CLOUDTWIN_DATA_DIR=/data
RUN groupadd --system --gid 10001 cloudtwin \
 && useradd --uid 10001 --gid cloudtwin --home-dir /data --no-create-home --shell /usr/sbin/nologin cloudtwin \
 && mkdir /data \
 && chown cloudtwin:cloudtwin /data \
 && chmod 700 /data
COPY --from=build /app /app
# V8's code cache of every module a start loads, made by one start here (`cloudtwin exec` runs a
# server around `true`): a container's first start compiles nothing it needs to be ready.
ENV NODE_COMPILE_CACHE=/app/.compile-cache
RUN node /app/bin/cloudtwin.js exec --in-memory -- true \
 && chown -R 10001:10001 /app/.compile-cache
USER 10001:10001
WORKDIR /data
VOLUME /data
EXPOSE 8080
# Node, not curl (slim images have none); follows CLOUDTWIN_PORT and CLOUDTWIN_TLS as the server does.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "const tls = /^(1|true|yes|on)$/i.test(process.env.CLOUDTWIN_TLS || '') || !!process.env.CLOUDTWIN_TLS_CERT; require(tls ? 'node:https' : 'node:http').get({ host: '127.0.0.1', port: process.env.CLOUDTWIN_PORT || 8080, path: '/_twin/v1/health', rejectUnauthorized: false, timeout: 2500 }, (res) => process.exit(res.statusCode === 200 ? 0 : 1)).on('error', () => process.exit(1)).on('timeout', () => process.exit(1))"]
# The server is PID 1: it handles SIGTERM itself (drains in-flight requests, at most 10 s, then exits 0).
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "/app/bin/cloudtwin.js"]
CMD ["serve"]
