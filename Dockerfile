# retrylint in a container: a static binary on an empty image.
#
#   docker build -t retrylint .
#   docker run --rm -v "$PWD:/work" retrylint check openapi.yaml
#
# The build stage links against musl, so the binary needs no C library; the final image
# holds that binary alone and runs it as an unprivileged user in /work.
FROM rust:1-alpine AS build
RUN apk add --no-cache musl-dev
WORKDIR /src
COPY . .
RUN cargo build --release --locked \
 && cp target/release/retrylint /retrylint

FROM scratch
COPY --from=build /retrylint /retrylint
USER 65532:65532
WORKDIR /work
ENTRYPOINT ["/retrylint"]
CMD ["--help"]
