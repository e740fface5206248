"""Runs gRPC calls through a real grpcio client and counts the attempts a server sees.

Usage: python grpc_retries.py SERVICE_CONFIG < cases.json
       python grpc_retries.py --refusals < configs.json

`cases.json` is a list of {"path": "/pkg.Svc/Method", "code": "UNAVAILABLE" or "OK",
"pushback": null or the text of `grpc-retry-pushback-ms`}. A server on 127.0.0.1 answers
every method with one generic handler (no generated code: unary calls on raw bytes) that
counts each call it receives by path and fails it with the case's status, before sending any
response headers (Trailers-Only, as a failing server does), with the pushback as trailing
metadata when the case has one. The client is one channel configured with the service
config file as `grpc.service_config`, retries enabled; each case is one call. Prints, for
each case in order, the number of calls the server received and the milliseconds between
their arrivals, as a JSON list of {"calls": n, "gaps_ms": [...]}.

With `--refusals`, stdin is a list of service configs (as JSON text); each configures a
channel that makes one call, and the script prints, for each, what grpcio said when it
refused the config (the details of the call's INVALID_ARGUMENT), or "" when it took it.
"""

import json
import sys
import threading
import time
from concurrent import futures

import grpc

counts = {}
arrivals = {}
lock = threading.Lock()


def handle(request, context):
    case = json.loads(request.decode())
    path = case["path"]
    with lock:
        counts[path] = counts.get(path, 0) + 1
        arrivals.setdefault(path, []).append(time.monotonic())
    if case["code"] == "OK":
        return b"ok"
    if case.get("pushback") is not None:
        context.set_trailing_metadata((("grpc-retry-pushback-ms", case["pushback"]),))
    context.abort(getattr(grpc.StatusCode, case["code"]), "failed on purpose")


class Everything(grpc.GenericRpcHandler):
    def service(self, handler_call_details):
        return grpc.unary_unary_rpc_method_handler(handle)


def refusals(server_port):
    said = []
    for config in json.load(sys.stdin):
        channel = grpc.insecure_channel(
            f"127.0.0.1:{server_port}",
            options=[("grpc.service_config", config), ("grpc.enable_retries", 1)],
        )
        case = {"path": "/pkg.Svc/Call", "code": "OK"}
        try:
            channel.unary_unary(case["path"])(json.dumps(case).encode(), timeout=3)
            said.append("")
        except grpc.RpcError as error:
            invalid = error.code() == grpc.StatusCode.INVALID_ARGUMENT
            said.append(error.details() if invalid else "")
        finally:
            channel.close()
    print(json.dumps(said))


def main():
    if sys.argv[1] == "--refusals":
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
        server.add_generic_rpc_handlers((Everything(),))
        port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        try:
            refusals(port)
        finally:
            server.stop(None)
        return
    with open(sys.argv[1], encoding="utf-8") as f:
        config = json.dumps(json.load(f))
    cases = json.load(sys.stdin)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    server.add_generic_rpc_handlers((Everything(),))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    channel = grpc.insecure_channel(
        f"127.0.0.1:{port}",
        options=[("grpc.service_config", config), ("grpc.enable_retries", 1)],
    )
    seen = []
    try:
        for case in cases:
            with lock:
                counts.clear()
                arrivals.clear()
            call = channel.unary_unary(case["path"])
            try:
                call(json.dumps(case).encode(), timeout=3)
            except grpc.RpcError:
                pass
            with lock:
                times = arrivals.get(case["path"], [])
                gaps = [round((b - a) * 1000, 1) for a, b in zip(times, times[1:])]
                seen.append({"calls": counts.get(case["path"], 0), "gaps_ms": gaps})
    finally:
        channel.close()
        server.stop(None)
    print(json.dumps(seen))


if __name__ == "__main__":
    main()
