#!/usr/bin/env python3
"""moltin-python, conforming: header names in lower case.

The one change: authorization, content-type and accept, as HTTP/2 stacks (and many HTTP/1.1
ones) write them. Field names are case-insensitive (RFC 9110 5.1). Every Moltin flow must pass.
"""

import sys

sys.dont_write_bytecode = True  # keep Tests/Drivers free of __pycache__

from moltin_driver import HTTPTransport, MoltinClient, main


class LowercaseTransport(HTTPTransport):
    def send(self, method, url, headers=None, body=None):
        return super().send(method, url, {name.lower(): value for name, value in (headers or {}).items()}, body)


class LowercaseMoltinClient(MoltinClient):
    def __init__(self, base_url, clock, store, transport=None):
        super().__init__(base_url, clock, store, transport or LowercaseTransport(clock))


if __name__ == "__main__":
    main(LowercaseMoltinClient, name="moltin-python-conforming-lowercase-headers")
