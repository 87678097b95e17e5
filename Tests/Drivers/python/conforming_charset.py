#!/usr/bin/env python3
"""moltin-python, conforming: the form's Content-Type carries a charset parameter.

The one change: application/x-www-form-urlencoded; charset=UTF-8, as many HTTP stacks send it.
A media type takes parameters (RFC 9110 8.3); the server reads the same form. Every Moltin
flow must pass.
"""

import sys

sys.dont_write_bytecode = True  # keep Tests/Drivers free of __pycache__

from moltin_driver import HTTPTransport, MoltinClient, main


class CharsetTransport(HTTPTransport):
    def send(self, method, url, headers=None, body=None):
        headers = dict(headers or {})
        if "Content-Type" in headers:
            headers["Content-Type"] += "; charset=UTF-8"
        return super().send(method, url, headers, body)


class CharsetMoltinClient(MoltinClient):
    def __init__(self, base_url, clock, store, transport=None):
        super().__init__(base_url, clock, store, transport or CharsetTransport(clock))


if __name__ == "__main__":
    main(CharsetMoltinClient, name="moltin-python-conforming-charset")
