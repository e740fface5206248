# retrylint in a container, two images from one build:
#
#   docker build -t retrylint .                      # the binary alone on an empty image
#   docker run --rm -v "$PWD:/work" retrylint check openapi.yaml
#
#   docker build --target ci -t retrylint-ci .       # a CI job image: a shell, git, retrylint
#   docker run --rm -v "$PWD:/work" retrylint-ci sh -c 'retrylint check openapi.yaml --base HEAD~1'
#
# The build stage links against musl, so the binary needs no C library. Both images run
# as an unprivileged user in /work. (scripts/check-images.sh builds and runs both.)
FROM rust:1-alpine AS build
RUN apk add --no-cache musl-dev
WORKDIR /src
COPY . .
RUN cargo build --release --locked \
 && cp target/release/retrylint /retrylint

# For CI jobs (GitLab's `image:`, a Jenkins agent…): the runner starts the image's shell
# with the job's script, so there is no ENTRYPOINT; `check --base` needs git. git runs as
# retrylint passes the repository to it, so a checkout owned by another user (as a CI
# runner's is) needs no `safe.directory`.
FROM alpine:3.22 AS ci
RUN apk add --no-cache git \
 && addgroup -g 65532 retrylint \
 && adduser -D -u 65532 -G retrylint -s /bin/sh retrylint
COPY --from=build /retrylint /usr/local/bin/retrylint
USER 65532:65532
WORKDIR /work
CMD ["sh"]

# The default image: the binary alone, run as `docker run IMAGE check …`.
FROM scratch AS minimal
COPY --from=build /retrylint /retrylint
USER 65532:65532
WORKDIR /work
ENTRYPOINT ["/retrylint"]
CMD ["--help"]
