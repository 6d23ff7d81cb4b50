# syntax=docker/dockerfile:1
# Build stage: the official Swift 6 toolchain on Debian bookworm.
FROM swift:6.0-bookworm AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libssl-dev libsqlite3-dev pkg-config \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Dependencies first, so source edits do not refetch them.
COPY Package.swift ./
RUN swift package resolve
COPY Sources ./Sources
COPY Tests ./Tests
RUN swift build -c release --product latchkey --static-swift-stdlib \
 && install -D "$(swift build -c release --show-bin-path)/latchkey" /out/latchkey

# Runtime stage: slim Debian with only the shared libraries Latchkey links (OpenSSL 3, SQLite 3).
FROM debian:bookworm-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libssl3 libsqlite3-0 ca-certificates curl \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --user-group --home-dir /data --no-create-home latchkey \
 && mkdir -p /data && chown latchkey:latchkey /data
WORKDIR /app
COPY --from=build /out/latchkey /app/latchkey
COPY Migrations /app/Migrations
COPY config /app/config
ENV LATCHKEY_SERVER_HOST=0.0.0.0 \
    LATCHKEY_SERVER_PORT=8080 \
    LATCHKEY_DATABASE_PATH=/data/latchkey.sqlite \
    LATCHKEY_DATABASE_MIGRATIONS=/app/Migrations/sqlite \
    LATCHKEY_MAIL_FILE=/data/mail.jsonl
VOLUME /data
USER latchkey
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 \
  CMD curl -fsS http://127.0.0.1:8080/health/ready || exit 1
ENTRYPOINT ["/app/latchkey"]
CMD ["serve"]
