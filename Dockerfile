# syntax=docker/dockerfile:1.7
#
# One image for every process of the platform; the command picks which one runs:
#   node services/<gateway|launcher|wallet|reporting|notifier|admin|backoffice>/dist/main.js
#   node services/backoffice/dist/bootstrap.js --email .. --name ..   (first platform admin)
#   node services/notifier/dist/worker.js          (notifier worker)
#   node docker/migrate.mjs                        (one-shot migrations)
#   node tools/casino-sandbox/dist/main.js         (sandbox casino, demo and staging only)
# See docs/deploying.md.

ARG NODE_IMAGE=node:20-bookworm-slim

# --- build: every dependency (TypeScript, types), then compile the workspaces the image runs ---
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY . .
# No install scripts: nothing the platform uses needs one (native add-ons ship prebuilt).
RUN --mount=type=cache,target=/root/.npm \
    npm ci --ignore-scripts --no-audit --no-fund
RUN npx tsc -b libs/shared libs/ledger services/gateway services/launcher services/wallet services/reporting \
      services/notifier services/admin services/backoffice tools/casino-sandbox
# The web console's static files (Vite), served by the back office at /console/.
RUN npm run build -w @relay/console
# The package manifests alone, in their folders, for the production install below (a workspace
# added later is picked up without editing this file).
RUN mkdir -p /manifests \
 && cp package.json package-lock.json /manifests/ \
 && for f in libs/*/package.json services/*/package.json tools/*/package.json; do \
      mkdir -p "/manifests/$(dirname "$f")" && cp "$f" "/manifests/$f"; \
    done

# --- runtime: production dependencies and compiled code only, run as a non-root user ---
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /manifests/ ./
RUN --mount=type=cache,target=/root/.npm \
    npm ci --omit=dev --ignore-scripts --no-audit --no-fund
COPY --from=build /app/libs/shared/dist libs/shared/dist
COPY --from=build /app/libs/ledger/dist libs/ledger/dist
# The ledger's jobs entry point (@relay/ledger/jobs), which the manifests' copy above does not reach.
COPY libs/ledger/jobs/package.json libs/ledger/jobs/
COPY --from=build /app/services/gateway/dist services/gateway/dist
COPY --from=build /app/services/launcher/dist services/launcher/dist
COPY --from=build /app/services/wallet/dist services/wallet/dist
COPY --from=build /app/services/reporting/dist services/reporting/dist
COPY --from=build /app/services/notifier/dist services/notifier/dist
COPY --from=build /app/services/admin/dist services/admin/dist
COPY --from=build /app/services/backoffice/dist services/backoffice/dist
COPY --from=build /app/tools/console/dist tools/console/dist
COPY --from=build /app/tools/casino-sandbox/dist tools/casino-sandbox/dist
# The API reference the gateway serves at /openapi/*.json and /docs.
COPY docs/api docs/api
COPY docker/migrate.mjs docker/healthcheck.mjs docker/reseal-secrets.mjs docker/
# Everything above belongs to root and is read-only for the process; the root filesystem can be
# mounted read-only (Kubernetes readOnlyRootFilesystem, compose read_only): nothing writes to it.
# 1000 is the image's `node` user, given as a number so runAsNonRoot can verify it.
USER 1000:1000
# gateway 8080, launcher..admin 8081-8085, notifier worker health/metrics 8086, backoffice 8087, sandbox 8090
EXPOSE 8080 8081 8082 8083 8084 8085 8086 8087 8090
# Node is PID 1 here: every entry point handles SIGTERM/SIGINT itself (ordered shutdown).
CMD ["node", "services/gateway/dist/main.js"]
