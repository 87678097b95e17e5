#!/usr/bin/env python3
"""A driver that breaks the protocol on purpose, for the runner's own tests.

    misbehaving.py MODE FLOW-ID

It is moltin-python in every flow but FLOW-ID. In FLOW-ID, at the first call, it:
  hang     never answers (the runner's answer deadline must end the flow)
  exit     writes a last line to stderr and exits with status 3
  garbage  writes a Python traceback to stdout, where only protocol messages belong
Modes that act before any flow is known:
  silent   never says hello
  version  says hello in protocol version 2
  noclock  says hello without the virtualClock capability (and is otherwise moltin-python)
"""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

from moltin_driver import Driver, MoltinClient, PROTOCOL_OUT  # noqa: E402

MODE = sys.argv[1] if len(sys.argv) > 1 else "hang"
TARGET = sys.argv[2] if len(sys.argv) > 2 else ""


class Misbehaving(Driver):
    NAME = "misbehaving-" + MODE

    def __init__(self, client_class):
        super().__init__(client_class)
        self.flow = None

    def hello(self):
        message = super().hello()
        if MODE == "version":
            message["protocol"] = 2
        if MODE == "noclock":
            message["capabilities"] = [c for c in message["capabilities"] if c != "virtualClock"]
        return message

    def handle(self, kind, message):
        if kind == "start":
            self.flow = message.get("flow")
        if kind == "call" and self.flow == TARGET:
            sys.stderr.write("misbehaving: %s in %s at call %s\n" % (MODE, self.flow, message.get("action")))
            sys.stderr.flush()
            if MODE == "hang":
                return  # never answered
            if MODE == "exit":
                sys.stderr.write("panic: the SDK gave up\n")
                sys.stderr.flush()
                os._exit(3)
            if MODE == "garbage":
                with self.out_lock:
                    PROTOCOL_OUT.write("Traceback (most recent call last):\n  File \"sdk.py\", line 1\n")
                    PROTOCOL_OUT.flush()
                return
        super().handle(kind, message)


if __name__ == "__main__":
    if MODE == "silent":
        sys.stderr.write("misbehaving: loading forever\n")
        sys.stderr.flush()
        time.sleep(3600)
    driver = Misbehaving(MoltinClient)
    code = driver.run()
    sys.stderr.flush()
    os._exit(code)
