# syntax=docker/dockerfile:1
# Vault service image. One image, two processes:
#   API:    docker run ... IMAGE                         (default: node workers/api.ts)
#   Worker: docker run ... IMAGE node workers/worker.ts
# Both need DATABASE_URL and TEMPORAL_ADDRESS, and the same root key (ROOT_KEY, or DATA_DIR/root.key
# on a volume both mount); see docker-compose.yml and docs/operations.md.
ARG NODE_IMAGE=node:24-bookworm-slim

# --- build: production dependencies and the prebuilt Temporal workflow bundle ---
# pkcs11js (the PKCS#11 key backend) is a C++ addon that node-gyp compiles at install: it needs
# python3, make and g++, which the slim image lacks. They stay in this stage; the runtime image
# gets the compiled node_modules only. package.json's allowScripts lists the few packages whose
# install scripts may run.
FROM ${NODE_IMAGE} AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force \
 && test -f node_modules/pkcs11js/build/Release/pkcs11.node
COPY tsconfig.json ./
COPY api ./api
COPY mcp ./mcp
COPY domain ./domain
COPY activities ./activities
COPY workflows ./workflows
COPY workers ./workers
COPY db ./db
# The bundler ships in @temporalio/worker.
RUN node workers/build-workflow-bundle.ts && test -s dist/workflow-bundle.js

# --- runtime: application files owned by root, the process runs as the unprivileged `node` user ---
FROM ${NODE_IMAGE} AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/data
COPY --from=build /app/node_modules ./node_modules
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
# DATA_DIR holds root.key when ROOT_KEY is not given: mount a named volume here (the same one in
# every api and worker container) so the key outlives the container. A PKCS#11 module (the HSM
# vendor's library) is mounted too when KMS_BACKEND=pkcs11.
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
USER node
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/v1/health', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "workers/api.ts"]
