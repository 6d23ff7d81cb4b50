# syntax=docker/dockerfile:1
# Build stage: the official Swift toolchain on Debian bookworm. 6.2 is what the dependencies' manifests need
# (hummingbird 2.28, async-http-client 1.37, swift-log 1.16, service-lifecycle 2.13 declare tools 6.2).
FROM swift:6.2-bookworm AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libssl-dev libsqlite3-dev libcrypt-dev libargon2-dev pkg-config \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Dependencies first, so source edits do not refetch them.
COPY Package.swift ./
RUN swift package resolve
# Every target's folder must exist for the package to load, the benchmark's reference server and the tests included;
# the build plugin embeds migrations, templates, pages, the password list and the OpenAPI document from their sources.
COPY Sources ./Sources
COPY Tests ./Tests
COPY Plugins ./Plugins
COPY bench/reference ./bench/reference
COPY Migrations ./Migrations
COPY openapi ./openapi
COPY config/templates ./config/templates
COPY config/pages ./config/pages
COPY config/common-passwords.txt ./config/
# Stripped: the symbols are most of an unstripped binary's size (about 200 of 290 MB), and crash reports from the
# image are read against a build of the same commit.
RUN swift build -c release --product latchkey --static-swift-stdlib \
 && install -D -s "$(swift build -c release --show-bin-path)/latchkey" /out/latchkey

# Runtime stage: slim Debian with only the shared libraries Latchkey links (OpenSSL 3, SQLite 3, libxcrypt). Migrations,
# templates, pages and the common-password list are inside the binary.
FROM debian:bookworm-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libssl3 libsqlite3-0 libcrypt1 libargon2-1 ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --user-group --home-dir /data --no-create-home latchkey \
 && mkdir -p /data /etc/latchkey && chown latchkey:latchkey /data
COPY --from=build /out/latchkey /app/latchkey
# Mount a configuration at /etc/latchkey/latchkey.yaml. Only what belongs to the image is set here, since the
# environment overrides the file: listen on every interface, keep the state in /data. The database is the built-in
# default path (data/latchkey.sqlite, from the working folder /), not a variable: test mode refuses a configured
# database, so `-e LATCHKEY_TESTING_ENABLED=true` runs on a temporary one and never on the volume.
ENV LATCHKEY_SERVER_HOST=0.0.0.0 \
    LATCHKEY_MAIL_FILE=/data/mail.jsonl
WORKDIR /
VOLUME /data
USER latchkey
EXPOSE 8080
# `latchkey healthcheck` reads the same configuration as the server, so it follows the port and TLS.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 CMD ["/app/latchkey", "healthcheck"]
ENTRYPOINT ["/app/latchkey"]
CMD ["serve"]
