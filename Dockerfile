# syntax=docker/dockerfile:1
# Vault service image. One image, two processes:
#   API:    docker run ... IMAGE                         (default: node workers/api.ts)
#   Worker: docker run ... IMAGE node workers/worker.ts
# Both need DATABASE_URL, TEMPORAL_ADDRESS and ROOT_KEY; see docker-compose.yml.
ARG NODE_IMAGE=node:24-bookworm-slim

# --- production dependencies (native packages come prebuilt; package.json's allowScripts
# lists the few whose install scripts may run) ---
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# --- prebuilt Temporal workflow bundle (the bundler ships in @temporalio/worker) ---
FROM deps AS build
COPY tsconfig.json ./
COPY api ./api
COPY mcp ./mcp
COPY domain ./domain
COPY activities ./activities
COPY workflows ./workflows
COPY workers ./workers
COPY db ./db
RUN node workers/build-workflow-bundle.ts && test -s dist/workflow-bundle.js

# --- runtime: application files owned by root, process runs as the unprivileged `node` user ---
FROM ${NODE_IMAGE} AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/data
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json tsconfig.json ./
COPY bin ./bin
COPY api ./api
COPY mcp ./mcp
COPY domain ./domain
COPY activities ./activities
COPY workflows ./workflows
COPY workers ./workers
COPY db ./db
COPY --from=build /app/dist ./dist
# DATA_DIR may hold root.key when ROOT_KEY is not given; mount a volume here to keep it.
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/v1/health', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "workers/api.ts"]
