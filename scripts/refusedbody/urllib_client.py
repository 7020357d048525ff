"""Sends a request body too large for the service with Python's urllib, which
sends the whole body before it reads the answer, and prints the answer's
status and body as JSON: server/api_refused_body_clients_test.go
(TestRefusedBodyPythonURLLib) checks that urllib reads the 413 document
rather than failing on a reset connection.

usage: python3 urllib_client.py URL TOKEN METHOD HEAD MEBIBYTES TAIL chunked|length
"""

import json
import sys
import urllib.error
import urllib.request

url, token, method, head, mebibytes, tail, framing = sys.argv[1:8]
piece = b"n" * (64 << 10)
count = int(mebibytes) * 16


def chunks():
    yield head.encode()
    for _ in range(count):
        yield piece
    yield tail.encode()


headers = {
    "Authorization": "Bearer " + token,
    "Content-Type": "application/vnd.api+json",
    "Accept": "application/vnd.api+json",
}
if framing == "chunked":
    headers["Transfer-Encoding"] = "chunked"
else:
    headers["Content-Length"] = str(len(head.encode()) + count * len(piece) + len(tail.encode()))
request = urllib.request.Request(url, data=chunks(), headers=headers, method=method)
try:
    with urllib.request.urlopen(request) as res:
        print(json.dumps({"status": res.status, "body": res.read().decode()}))
except urllib.error.HTTPError as err:
    print(json.dumps({"status": err.code, "body": err.read().decode()}))
except Exception as err:  # a reset or broken pipe: what the test looks for
    print(json.dumps({"error": repr(err)}))
