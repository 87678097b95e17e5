#!/usr/bin/env python3
"""moltin-python, broken: products reads the JSON body without checking that it parsed.

The one change: parse_products decodes and indexes the body directly (the Python spelling of
the tutorial's `try! JSONSerialization...` / `data!`), so a 200 whose body is not JSON, or is
cut mid-document, raises an uncaught exception: the driver reports it as crashed.
"""

import json
import sys

sys.dont_write_bytecode = True  # keep Tests/Drivers free of __pycache__

from moltin_driver import MoltinClient, main


class CrashingMoltinClient(MoltinClient):
    def parse_products(self, body):
        document = json.loads(body)  # no check: a non-JSON body raises out of the SDK
        return [{"id": item["id"], "title": item["title"]} for item in document["result"]]


if __name__ == "__main__":
    main(CrashingMoltinClient, name="moltin-python-broken-crash")
