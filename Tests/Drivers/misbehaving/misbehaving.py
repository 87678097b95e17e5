#!/usr/bin/env python3
"""A driver that breaks the protocol on purpose, for the runner's own tests.

    misbehaving.py MODE FLOW-ID

It is moltin-python in every flow but FLOW-ID. In FLOW-ID, at the first call, it:
  hang     never answers (the runner's answer deadline must end the flow)
  exit     writes a last line to stderr and exits with status 3
  garbage  writes a Python traceback to stdout, where only protocol messages belong
  huge     writes a 2 MiB line to stdout
  dupkey   answers {"type":"ok","id":N,"result":{},"result":{"x":"1"}}
  holdout  starts a grandchild in a session of its own that keeps stdout open, then exits 0
  decoy    answers storeLocation with a tidy folder beside the real one
  chain    answers storeLocation with a folder inside the real one that leads, through a chain
           of 30 symlinks, to a tidy folder elsewhere
  lastwords  on stop, writes a line that is not a message, then exits 0
  early    answers id 1 with ok right after ready, before any call
  lateopen answers its first call, then sends browserOpen (an event after its call's answer)
  noready  says hello, then never answers start with ready
  longwait asks the runner to let 2 hours of the flow's clock pass (a `wait`), then, refused,
           answers its call with a transport error; granted, it goes on as moltin-python
  flood    at its first call, sends 200,000 browserOpen events before answering
  leak     at its first products call, writes to stdout a line that is not a message and holds
           the issued access token after OFFSET characters (the third argument) of filler
  halves   at its first products call, writes the issued access token to stderr cut in two
           halves, sends a products request with 26 characters of it in the query, and answers
           the call with an error whose message holds the halves too (a tired SDK's log:
           `token[:28]`, then the rest)
In every flow:
  ignorestop  never exits on stop (nor on SIGTERM)
Modes that act before any flow is known:
  silent   never says hello
  version  says hello in protocol version 2
  noclock  says hello without the virtualClock capability (and is otherwise moltin-python)
  nofilestore  says hello without the fileStore capability
"""

import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

from moltin_driver import Driver, MoltinClient, PROTOCOL_OUT  # noqa: E402

MODE = sys.argv[1] if len(sys.argv) > 1 else "hang"
LEFTOVERS = []  # folders this driver made outside its storage directory, removed at exit
TARGET = sys.argv[2] if len(sys.argv) > 2 else ""
OFFSET = int(sys.argv[3]) if len(sys.argv) > 3 else 0


class Misbehaving(Driver):
    NAME = "misbehaving-" + MODE

    def __init__(self, client_class):
        super().__init__(client_class)
        self.flow = None
        self.acted = False

    def send(self, message):
        # lateopen: the first answer in the target flow is followed by a browserOpen in the
        # same write, so the event is always sent (the process cannot exit between the two).
        if MODE == "lateopen" and self.flow == TARGET and not self.acted and message.get("type") in ("ok", "error"):
            self.acted = True
            late = {"type": "browserOpen", "url": self.base_url + "/oauth/authorize?late=1"}
            with self.out_lock:
                PROTOCOL_OUT.write(json.dumps(message, separators=(",", ":")) + "\n" + json.dumps(late, separators=(",", ":")) + "\n")
                PROTOCOL_OUT.flush()
            return
        super().send(message)

    def hello(self):
        message = super().hello()
        if MODE == "version":
            message["protocol"] = 2
        if MODE == "noclock":
            message["capabilities"] = [c for c in message["capabilities"] if c != "virtualClock"]
        if MODE == "nofilestore":
            message["capabilities"] = [c for c in message["capabilities"] if c != "fileStore"]
        return message

    def handle(self, kind, message):
        if kind == "start":
            self.flow = message.get("flow")
            if MODE == "noready" and self.flow == TARGET:
                sys.stderr.write("misbehaving: noready in %s, never sending ready\n" % self.flow)
                sys.stderr.flush()
                return
            if MODE == "early" and self.flow == TARGET:
                super().handle(kind, message)
                self.send({"type": "ok", "id": 1, "result": {}})
                return
        if kind == "storeLocation" and MODE == "chain" and self.flow == TARGET:
            import tempfile
            elsewhere = tempfile.mkdtemp(prefix="flowcheck-chain-")
            LEFTOVERS.append(elsewhere)
            os.makedirs(os.path.join(elsewhere, "tidy"), mode=0o700)
            target = os.path.join(elsewhere, "tidy")
            for n in range(30):
                link = os.path.join(elsewhere, "l%d" % n)
                os.symlink(target, link)
                target = link
            os.symlink(target, os.path.join(self.store.directory, "c0"))
            self.send({"type": "storeLocation", "id": message["id"], "directory": os.path.join(self.store.directory, "c0"), "files": []})
            return
        if kind == "storeLocation" and MODE == "decoy" and self.flow == TARGET:
            decoy = self.store.directory.rstrip("/") + "-decoy"
            os.makedirs(decoy, mode=0o700, exist_ok=True)
            self.send({"type": "storeLocation", "id": message["id"], "directory": decoy, "files": []})
            return
        if kind == "call" and self.flow == TARGET:
            sys.stderr.write("misbehaving: %s in %s at call %s\n" % (MODE, self.flow, message.get("action")))
            sys.stderr.flush()
            if MODE == "hang":
                return  # never answered
            if MODE == "exit":
                sys.stderr.write("panic: the SDK gave up\n")
                sys.stderr.flush()
                os._exit(3)
            if MODE == "huge":
                with self.out_lock:
                    PROTOCOL_OUT.write("x" * (2 << 20) + "\n")
                    PROTOCOL_OUT.flush()
                return
            if MODE == "dupkey":
                with self.out_lock:
                    PROTOCOL_OUT.write('{"type":"ok","id":%d,"result":{},"result":{"x":"1"}}\n' % message["id"])
                    PROTOCOL_OUT.flush()
                return
            if MODE == "holdout":
                subprocess.Popen(["sleep", "3"], start_new_session=True, stdout=sys.stdout, stderr=subprocess.DEVNULL)
                sys.stderr.write("misbehaving: leaving a grandchild with stdout\n")
                sys.stderr.flush()
                os._exit(0)
            if MODE == "leak" and message.get("action") == "products":
                token = (self.store.load() or {}).get("accessToken", "")
                with self.out_lock:
                    PROTOCOL_OUT.write("x" * OFFSET + token + " <- the access token, then more text after it\n")
                    PROTOCOL_OUT.flush()
                return
            if MODE == "halves" and message.get("action") == "products":
                token = (self.store.load() or {}).get("accessToken", "")
                half = len(token) // 2
                sys.stderr.write("renewing: first part %s, second part %s\n" % (token[:half], token[half:]))
                sys.stderr.flush()
                # And a debug request carrying a piece of it in its query: the transcript shows it.
                self.client.transport.send("GET", self.base_url + "/v1/products?t=" + token[4:30], {"Accept": "application/json"})
                self.send({"type": "error", "id": message["id"], "kind": "tokenRejected",
                           "message": "token %s... (ends %s) was rejected" % (token[:half], token[half:])})
                return
            if MODE == "longwait" and not self.acted:
                self.acted = True
                import threading

                def waiting():
                    if self.clock.pause(self.clock.now() + 7200):
                        Misbehaving.call(self, message)
                    else:
                        self.send({"type": "error", "id": message["id"], "kind": "transport", "message": "the 2-hour wait was refused"})
                threading.Thread(target=waiting, daemon=True).start()
                return
            if MODE == "flood":
                line = json.dumps({"type": "browserOpen", "url": "https://example.com/flood"}) + "\n"
                try:
                    with self.out_lock:
                        for _ in range(200000):
                            PROTOCOL_OUT.write(line)
                        PROTOCOL_OUT.flush()
                except BrokenPipeError:
                    os._exit(1)
                return
            if MODE == "garbage":
                with self.out_lock:
                    PROTOCOL_OUT.write("Traceback (most recent call last):\n  File \"sdk.py\", line 1\n")
                    PROTOCOL_OUT.flush()
                return
        super().handle(kind, message)


if __name__ == "__main__":
    if MODE == "ignorestop":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        Driver.run_original = Driver.run

        class Stubborn(Misbehaving):
            def run(self):
                Driver.run_original(self)
                sys.stderr.write("misbehaving: ignoring stop\n")
                sys.stderr.flush()
                time.sleep(3600)
                return 0

        Stubborn(MoltinClient).run()
    if MODE == "lastwords":
        driver = Misbehaving(MoltinClient)
        code = driver.run()
        if driver.flow == TARGET:
            with driver.out_lock:
                PROTOCOL_OUT.write("goodbye\n")
                PROTOCOL_OUT.flush()
        sys.stderr.flush()
        os._exit(code)
    if MODE == "silent":
        sys.stderr.write("misbehaving: loading forever\n")
        sys.stderr.flush()
        time.sleep(3600)
    driver = Misbehaving(MoltinClient)
    code = driver.run()
    import shutil
    for folder in LEFTOVERS:
        shutil.rmtree(folder, ignore_errors=True)
    sys.stderr.flush()
    os._exit(code)
