"""A stand-in for the part of GitHub's REST API the action's comment script calls, on
127.0.0.1 only: listing, creating and editing a pull request's issue comments.

    python3 fake_github_api.py PORT_FILE LOG_FILE [SECONDS]

Writes the port it listens on to PORT_FILE, and each request (method, path, the
Authorization header, the JSON body) as one JSON line to LOG_FILE. Starts with one
comment of someone else's on every pull request. The repository `o/locked` refuses
writes with 403, as GitHub does for a token without `pull-requests: write`. Stops by
itself after SECONDS (60 by default).
"""

import json
import os
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

port_file, log_file = sys.argv[1], sys.argv[2]
lifetime = float(sys.argv[3]) if len(sys.argv) > 3 else 60.0
lock = threading.Lock()
comments = {}  # (owner/name, number) -> [comment]
next_id = [1000]

LIST = re.compile(r"^/repos/([^/]+/[^/]+)/issues/(\d+)/comments$")
EDIT = re.compile(r"^/repos/([^/]+/[^/]+)/issues/comments/(\d+)$")


def thread(repository, number):
    key = (repository, number)
    if key not in comments:
        comments[key] = [{"id": 1, "body": "Looks good to me.", "user": {"login": "someone"}}]
    return comments[key]


class Api(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def record(self, body):
        with open(log_file, "a", encoding="utf-8") as log:
            log.write(
                json.dumps(
                    {
                        "method": self.command,
                        "path": self.path,
                        "authorization": self.headers.get("Authorization"),
                        "body": body,
                    }
                )
                + "\n"
            )

    def answer(self, status, value):
        data = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return json.loads(self.rfile.read(length) or b"null")

    def do_GET(self):
        self.record(None)
        url = urlsplit(self.path)
        match = LIST.match(url.path)
        if not match:
            return self.answer(404, {"message": "Not Found"})
        page = 1
        for part in url.query.split("&"):
            if part.startswith("page="):
                page = int(part[5:])
        with lock:
            listed = thread(match[1], match[2])[(page - 1) * 100 : page * 100]
        self.answer(200, listed)

    def do_POST(self):
        body = self.read_body()
        self.record(body)
        match = LIST.match(urlsplit(self.path).path)
        if not match:
            return self.answer(404, {"message": "Not Found"})
        if match[1] == "o/locked":
            return self.answer(403, {"message": "Resource not accessible by integration"})
        with lock:
            next_id[0] += 1
            comment = {"id": next_id[0], "body": body["body"], "user": {"login": "github-actions[bot]"}}
            thread(match[1], match[2]).append(comment)
        self.answer(201, comment)

    def do_PATCH(self):
        body = self.read_body()
        self.record(body)
        match = EDIT.match(urlsplit(self.path).path)
        if not match:
            return self.answer(404, {"message": "Not Found"})
        with lock:
            for listed in comments.values():
                for comment in listed:
                    if comment["id"] == int(match[2]):
                        comment["body"] = body["body"]
                        return self.answer(200, comment)
        self.answer(404, {"message": "Not Found"})


server = ThreadingHTTPServer(("127.0.0.1", 0), Api)
threading.Timer(lifetime, server.shutdown).start()
with open(port_file + ".part", "w", encoding="utf-8") as out:
    out.write(str(server.server_address[1]))
os.replace(port_file + ".part", port_file)
server.serve_forever()
