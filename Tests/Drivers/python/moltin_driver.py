#!/usr/bin/env python3
"""moltin-python: a FlowCheck driver (docs/protocol.md) around a small Moltin client.

Python 3.11 standard library only. The client below is this file's own (it is not a
transliteration of FlowCheck's Swift SDK): client_credentials and refresh_token grants, the
products API with a Bearer token, renewal 60 s before expiry on an injected (virtual) clock,
one shared renewal for concurrent callers, a bounded recovery from "Access token is not valid",
a 30 s request timeout on the injected clock, and a file token store (0600, write-temp + fsync
+ rename). The driver part maps the protocol onto it.

stdout carries protocol lines only: the real stdout is kept for the protocol and sys.stdout is
pointed at stderr, so a stray print() from anywhere lands in the log.

The broken variants (broken_no_expiry.py, broken_crash.py) subclass MoltinClient and override
one method; nothing in this file switches on a defect.
"""

import concurrent.futures
import http.client
import json
import os
import socket
import sys
import tempfile
import threading
import traceback
import urllib.parse

DRIVER_VERSION = "1.0.0"

PROTOCOL_OUT = sys.stdout
sys.stdout = sys.stderr


def log(*parts):
    print("[moltin-python]", *parts, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# The client
# ---------------------------------------------------------------------------------------------


class ClientError(Exception):
    """A typed SDK error: kind is one of the protocol's error kinds."""

    def __init__(self, kind, message, status=None):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.status = status


class VirtualClock:
    """The time the SDK reads: set by the app (the driver's start/clock messages).

    Deadlines registered here fire (their callback runs) when the clock is moved to or past
    them, on the thread that moves the clock.
    """

    def __init__(self, now, ask_wait=None):
        self._now = float(now)
        self._lock = threading.Lock()
        self._deadlines = {}
        self._next = 0
        self._pauses = []  # (until, event, outcome) of pause() calls in progress
        self._ask_wait = ask_wait  # sends the runner a `wait` message

    def now(self):
        with self._lock:
            return self._now

    def set(self, now, refused=None):
        with self._lock:
            self._now = max(self._now, float(now))
            due = [(key, cb) for key, (at, cb) in self._deadlines.items() if at <= self._now]
            for key, _ in due:
                del self._deadlines[key]
            # A pause ends when the clock reaches it, or when the runner refused it.
            ended = [p for p in self._pauses if p[0] <= self._now or (refused is not None and p[0] == float(refused))]
            self._pauses = [p for p in self._pauses if p not in ended]
        for until, event, outcome in ended:
            outcome["granted"] = until <= self._now
            event.set()
        for _, callback in due:
            try:
                callback()
            except Exception:  # a deadline callback must never break the clock
                log("deadline callback failed:", traceback.format_exc())

    def add_deadline(self, at, callback):
        with self._lock:
            self._next += 1
            key = self._next
            if at > self._now:
                self._deadlines[key] = (at, callback)
                return key
        callback()
        return key

    def cancel(self, key):
        with self._lock:
            self._deadlines.pop(key, None)

    def pause(self, until, real_limit=15.0):
        """Waits, by this clock, until `until`, because the SDK chose to (a Retry-After): asks
        the runner to let the time pass (a `wait` message; docs/protocol.md) and blocks until a
        `clock` message reaches it. True once it has; False when the runner refused, or when no
        answer came within `real_limit` seconds of wall time."""
        event, outcome = threading.Event(), {}
        with self._lock:
            if until <= self._now:
                return True
            self._pauses.append((float(until), event, outcome))
        if self._ask_wait is None:
            return False
        self._ask_wait(until)
        event.wait(real_limit)
        return outcome.get("granted", False)


class HTTPTransport:
    """One HTTP/1.1 exchange per connection; redirects are never followed.

    The request timeout runs on the injected clock: its deadline is registered before the
    request is sent, and when the clock passes it the socket is shut down, so the exchange ends
    at once with a transport error. A real-time socket timeout is the safety net.
    """

    REQUEST_TIMEOUT = 30.0  # seconds on the injected clock
    REAL_TIMEOUT = 15.0  # seconds of wall time, below the runner's 20 s answer deadline

    def __init__(self, clock):
        self.clock = clock

    def send(self, method, url, headers=None, body=None):
        parts = urllib.parse.urlsplit(url)
        if parts.scheme != "http":
            raise ClientError("configuration", "unsupported URL scheme in %s" % url)
        conn = http.client.HTTPConnection(parts.hostname, parts.port or 80, timeout=self.REAL_TIMEOUT)
        state = {"timedOut": False}
        lock = threading.Lock()

        def abort():
            with lock:
                state["timedOut"] = True
                sock = conn.sock
            if sock is not None:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

        deadline = self.clock.add_deadline(self.clock.now() + self.REQUEST_TIMEOUT, abort)
        path = parts.path or "/"
        if parts.query:
            path += "?" + parts.query
        try:
            if state["timedOut"]:
                raise socket.timeout("timed out before sending")
            conn.connect()
            with lock:
                timed_out = state["timedOut"]
            if timed_out:
                raise socket.timeout("timed out while connecting")
            conn.request(method, path, body=body, headers=headers or {})
            response = conn.getresponse()
            data = response.read()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, data
        except (OSError, http.client.HTTPException) as error:
            if state["timedOut"]:
                raise ClientError("transport", "The request timed out after %d seconds" % self.REQUEST_TIMEOUT)
            if isinstance(error, socket.timeout):
                raise ClientError("transport", "The request timed out (no answer in %d s of real time)" % self.REAL_TIMEOUT)
            raise ClientError("transport", "Network failure: %s" % (str(error) or type(error).__name__))
        finally:
            self.clock.cancel(deadline)
            conn.close()


class TokenStore:
    """The token in one JSON file under the storage directory.

    Owner-only (directory 0700, file 0600); every write goes to a new temporary file in the
    same directory, is fsynced, and is renamed over the old file, then the directory is fsynced.
    """

    FILE_NAME = "token.json"

    def __init__(self, directory):
        self.directory = directory
        os.makedirs(directory, mode=0o700, exist_ok=True)
        os.chmod(directory, 0o700)
        self.path = os.path.join(directory, self.FILE_NAME)
        self._lock = threading.Lock()
        self._crash_next_write = False

    def arm_crash(self):
        with self._lock:
            self._crash_next_write = True

    def load(self):
        try:
            with open(self.path, "rb") as handle:
                value = json.loads(handle.read().decode("utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as error:
            raise ClientError("storage", "The token store cannot be read: %s" % error)
        if not isinstance(value, dict) or not isinstance(value.get("accessToken"), str):
            raise ClientError("storage", "The token store holds no valid token")
        return {k: str(v) for k, v in value.items() if isinstance(v, (str, int, float))}

    def save(self, fields):
        data = json.dumps(fields, sort_keys=True).encode("utf-8")
        with self._lock:
            crash = self._crash_next_write
            self._crash_next_write = False
            try:
                fd, temporary = tempfile.mkstemp(prefix=".token.", suffix=".tmp", dir=self.directory)
            except OSError as error:
                raise ClientError("storage", "The token cannot be stored: %s" % error)
            try:
                os.fchmod(fd, 0o600)
                view = memoryview(data)
                while view:
                    written = os.write(fd, view)
                    view = view[written:]
                os.fsync(fd)
            except OSError as error:
                os.close(fd)
                self._remove(temporary)
                raise ClientError("storage", "The token cannot be stored: %s" % error)
            os.close(fd)
            if crash:
                # The simulated crash: the new data is on disk, the rename never happens and
                # nothing cleans up, as nothing would in a killed app.
                raise ClientError("storage", "The token store's write was interrupted before it was committed")
            try:
                os.rename(temporary, self.path)
                self._sync_directory()
            except OSError as error:
                self._remove(temporary)
                raise ClientError("storage", "The token cannot be stored: %s" % error)

    def delete(self):
        with self._lock:
            # The temporary files of writes that died before their rename hold token bytes
            # too: once the store is empty, nothing of a token stays in its folder.
            for name in os.listdir(self.directory):
                if name.startswith(".token.") and name.endswith(".tmp"):
                    self._remove(os.path.join(self.directory, name))
            try:
                os.unlink(self.path)
            except FileNotFoundError:
                self._sync_directory()
                return
            except OSError as error:
                raise ClientError("storage", "The token cannot be deleted: %s" % error)
            self._sync_directory()

    def files(self):
        return [self.FILE_NAME] if os.path.exists(self.path) else []

    def _sync_directory(self):
        fd = os.open(self.directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    @staticmethod
    def _remove(path):
        try:
            os.unlink(path)
        except OSError:
            pass


class MoltinClient:
    """A Moltin API client. Credentials live in memory only; the token lives in the store."""

    RENEWAL_MARGIN = 60  # seconds before expiry at which the token is renewed before use

    DEFAULT_LIFETIME = 3600  # seed 003: tokens last an hour
    TOKEN_PATH = "/oauth/access_token"
    PRODUCTS_PATH = "/v1/products"

    def __init__(self, base_url, clock, store, transport=None):
        self.base_url = base_url.rstrip("/")
        self.clock = clock
        self.store = store
        self.transport = transport or HTTPTransport(clock)
        self._credentials = None  # (client_id, client_secret) of the last successful auth
        self._lock = threading.Lock()
        self._renewal = None  # the Future of the renewal in flight, shared by every caller
        self._generation = 0  # bumped by every change of the stored token (auth, refresh, delete)
        try:
            self._token = store.load()
        except ClientError as error:
            log("ignoring an unreadable store at launch:", error.message)
            self._token = None

    # -- app actions -----------------------------------------------------------------------

    def auth(self, client_id, client_secret):
        started = self._started()
        token = self._grant({"grant_type": "client_credentials", "client_id": client_id, "client_secret": client_secret})
        self._keep_unless_changed(token, started)
        with self._lock:
            self._credentials = (client_id, client_secret)

    def refresh_token(self):
        with self._lock:
            token, credentials = self._token, self._credentials
        if token is None or credentials is None:
            raise ClientError("notLoggedIn", "There is no token and credentials to refresh")
        started = self._started()
        self._keep_unless_changed(self._refresh(token, credentials), started)

    def delete_token(self):
        with self._lock:
            self._token = None
            self._generation += 1
        self.store.delete()

    def products(self):
        token = self._usable_token()
        status, headers, body = self._get_products(token)
        if status == 401 and token is not None and self._has_credentials():
            token = self._renew(stale=token)
            status, headers, body = self._get_products(token)
        if status == 401:
            raise ClientError("tokenRejected", self._server_message(body, status), status)
        if status != 200:
            raise self._api_error(status, body)
        return self.parse_products(body)

    # -- overridable pieces (the broken variants replace exactly one) --------------------------

    def needs_renewal(self, token):
        """Whether the token is too close to its expiry (or past it) to be sent."""
        try:
            expires_at = float(token["expiresAt"])
        except (KeyError, ValueError):
            return True
        return self.clock.now() >= expires_at - self.RENEWAL_MARGIN

    def parse_products(self, body):
        try:
            document = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise ClientError("invalidResponse", "The products answer is not JSON")
        items = document.get("result") if isinstance(document, dict) else None
        if not isinstance(items, list):
            raise ClientError("invalidResponse", "The products answer has no result list")
        products = []
        for item in items:
            if not isinstance(item, dict) or not isinstance(item.get("id"), str) or not isinstance(item.get("title"), str):
                raise ClientError("invalidResponse", "A product in the answer has no id or title")
            products.append({"id": item["id"], "title": item["title"]})
        return products

    # -- tokens ------------------------------------------------------------------------------

    def _has_credentials(self):
        with self._lock:
            return self._credentials is not None

    def _usable_token(self):
        with self._lock:
            token, credentials = self._token, self._credentials
        if token is None or not self.needs_renewal(token):
            return token
        if credentials is None:
            raise ClientError("notLoggedIn", "The token has expired and there are no credentials to renew it")
        return self._renew(stale=token)

    def _renew(self, stale):
        """One renewal shared by every caller that found `stale` unusable."""
        with self._lock:
            current = self._token
            if current is not None and current.get("accessToken") != stale.get("accessToken") and not self.needs_renewal(current):
                return current  # someone renewed it already
            if self._credentials is None:
                raise ClientError("notLoggedIn", "There are no credentials to renew the token")
            if self._renewal is not None:
                shared, owner = self._renewal, False
            else:
                shared, owner = concurrent.futures.Future(), True
                self._renewal = shared
                credentials = self._credentials
                started = self._generation
        if not owner:
            return shared.result()
        try:
            try:
                token = self._refresh(stale, credentials)
            except ClientError as error:
                if error.kind != "tokenEndpoint":
                    raise  # 429, 5xx, transport, invalid answers: no verdict on the grant
                log("refresh refused (%s); falling back to client credentials" % error.message)
                token = self._grant({"grant_type": "client_credentials", "client_id": credentials[0], "client_secret": credentials[1]})
            self._keep_unless_changed(token, started)
            shared.set_result(token)
            return token
        except BaseException as error:
            shared.set_exception(error)
            raise
        finally:
            with self._lock:
                self._renewal = None

    def _refresh(self, token, credentials):
        return self._grant({
            "grant_type": "refresh_token",
            "client_id": credentials[0],
            "client_secret": credentials[1],
            "refresh_token": token["accessToken"],
        })

    def _started(self):
        with self._lock:
            return self._generation

    def _keep_unless_changed(self, token, started):
        """Keeps `token` only if nothing changed the stored token since `started` (a Delete
        Token while the request was in flight must not be undone by its answer)."""
        with self._lock:
            if self._generation != started:
                raise ClientError("notLoggedIn", "The token was deleted or replaced while the request was under way; nothing was stored")
            self._generation += 1
        self._keep(token)

    def _keep(self, token):
        self.store.save(token)  # a storage error leaves memory as it was
        with self._lock:
            self._token = token

    def _grant(self, form):
        body = urllib.parse.urlencode(form).encode("ascii")
        status, headers, data = self.transport.send(
            "POST", self.base_url + self.TOKEN_PATH,
            {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"},
            body,
        )
        if status != 200:
            if status in (400, 401, 403):
                raise ClientError("tokenEndpoint", self._server_message(data, status), status)
            raise self._api_error(status, data)
        try:
            document = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise ClientError("invalidResponse", "The token answer is not JSON")
        if not isinstance(document, dict) or not isinstance(document.get("access_token"), str) or not document["access_token"]:
            raise ClientError("invalidResponse", "The token answer has no access_token")
        expires = document.get("expires")
        if not isinstance(expires, (int, float)) or isinstance(expires, bool):
            expires_in = document.get("expires_in")
            if not isinstance(expires_in, (int, float)) or isinstance(expires_in, bool):
                # RFC 6749 5.1: without expires_in the server's documented default holds, and
                # seed 003 documents it: tokens last an hour.
                expires_in = self.DEFAULT_LIFETIME
            expires = self.clock.now() + expires_in
        token_type = document.get("token_type") if isinstance(document.get("token_type"), str) else "Bearer"
        return {"accessToken": document["access_token"], "tokenType": token_type, "expiresAt": str(int(expires))}

    # -- API ---------------------------------------------------------------------------------

    def _get_products(self, token):
        headers = {"Accept": "application/json"}
        if token is not None:
            headers["Authorization"] = "Bearer " + token["accessToken"]
        return self.transport.send("GET", self.base_url + self.PRODUCTS_PATH, headers)

    def _api_error(self, status, body):
        message = self._server_message(body, status)
        if 300 <= status < 400:
            return ClientError("invalidResponse", "Unexpected redirect (HTTP %d)" % status, status)
        if status >= 500:
            return ClientError("serverError", message, status)
        return ClientError("httpStatus", message, status)

    @staticmethod
    def _server_message(body, status):
        try:
            document = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            document = None
        if isinstance(document, dict):
            # Seed 003's authErrorMessage reads the text under "error" or "errors".
            for key in ("error_description", "error", "errors", "message"):
                value = document.get(key)
                if isinstance(value, list) and value and all(isinstance(item, str) for item in value):
                    value = "; ".join(value)
                if isinstance(value, str) and value:
                    return "%s (HTTP %d)" % (value, status)
        return "HTTP %d %s" % (status, http.client.responses.get(status, ""))


# ---------------------------------------------------------------------------------------------
# The driver: the protocol
# ---------------------------------------------------------------------------------------------


class Driver:
    NAME = "moltin-python"
    ACTIONS = ["auth", "refreshToken", "deleteToken", "products", "relaunch"]

    def __init__(self, client_class):
        self.client_class = client_class
        self.out_lock = threading.Lock()
        self.clock = None
        self.store = None
        self.client = None
        self.base_url = None

    def send(self, message):
        line = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
        with self.out_lock:
            PROTOCOL_OUT.write(line + "\n")
            PROTOCOL_OUT.flush()

    def hello(self):
        return {
            "type": "hello", "protocol": 1,
            "driver": {"name": self.NAME, "version": DRIVER_VERSION},
            "providers": {"moltin": self.ACTIONS},
            "capabilities": ["virtualClock", "fileStore", "storeCrash"],
        }

    def run(self):
        # A call's thread keeps the interpreter until it blocks (its first request, a wait) or
        # for 1 s, not just 5 ms: a call started in the background then decides what to send
        # before another thread (an earlier call whose held renewal was just answered) runs on,
        # however loaded the machine. The runner already writes a later question only after
        # the call; this closes what is left of that window inside the driver.
        sys.setswitchinterval(1)
        self.send(self.hello())
        for raw in sys.stdin:
            raw = raw.strip()
            if not raw:
                continue
            try:
                message = json.loads(raw)
                kind = message["type"]
            except (ValueError, KeyError, TypeError):
                self.send({"type": "fatal", "message": "not a protocol message: %s" % raw[:200]})
                return 1
            if kind == "stop":
                return 0
            try:
                self.handle(kind, message)
            except Exception as error:
                log(traceback.format_exc())
                self.send({"type": "fatal", "message": "driver failure on %s: %s" % (kind, error)})
                return 1
        log("stdin closed without stop")
        return 0

    def handle(self, kind, message):
        if kind == "start":
            if message.get("provider") != "moltin":
                self.send({"type": "fatal", "message": "moltin-python speaks moltin only, not %s" % message.get("provider")})
                return
            self.clock = VirtualClock(message["now"], ask_wait=lambda until: self.send({"type": "wait", "until": until}))
            self.base_url = message["baseURL"]
            self.store = TokenStore(message["storageDirectory"])
            self.client = self.client_class(self.base_url, self.clock, self.store)
            self.send({"type": "ready"})
        elif kind == "clock":
            self.clock.set(message["now"], refused=message.get("refused"))
        elif kind == "call":
            threading.Thread(target=self.call, args=(message,), daemon=True).start()
        elif kind == "store":
            try:
                fields = self.store.load() or {}
            except ClientError as error:
                log("store unreadable:", error.message)
                fields = {}
            self.send({"type": "store", "id": message["id"], "fields": fields})
        elif kind == "storeLocation":
            self.send({"type": "storeLocation", "id": message["id"], "directory": self.store.directory, "files": self.store.files()})
        elif kind == "crashStore":
            self.store.arm_crash()
            self.send({"type": "crashStore", "id": message["id"], "armed": True})
        else:
            log("ignoring an unknown message type:", kind)

    def call(self, message):
        call_id = message["id"]
        action = message["action"]
        arguments = message.get("arguments") or {}
        try:
            result = self.perform(action, arguments)
            if result is None:
                self.send({"type": "unsupported", "id": call_id, "message": "%s has no action %r" % (self.NAME, action)})
            else:
                self.send({"type": "ok", "id": call_id, "result": result})
        except ClientError as error:
            self.send({"type": "error", "id": call_id, "kind": error.kind, "message": error.message})
        except Exception as error:  # the SDK would have crashed the app
            log("crash in %s:\n%s" % (action, traceback.format_exc()))
            self.send({"type": "crashed", "id": call_id, "message": "%s: %s in %s" % (type(error).__name__, error, action)})

    def perform(self, action, arguments):
        client = self.client
        if action == "auth":
            client.auth(arguments.get("clientId", ""), arguments.get("clientSecret", ""))
        elif action == "refreshToken":
            client.refresh_token()
        elif action == "deleteToken":
            client.delete_token()
        elif action == "products":
            products = client.products()
            return {
                "productCount": str(len(products)),
                "productIds": ",".join(p["id"] for p in products),
                "productTitles": ",".join(p["title"] for p in products),
            }
        elif action == "relaunch":
            # A new app process: a new client over the same store; memory (credentials) lost.
            self.client = self.client_class(self.base_url, self.clock, self.store)
        else:
            return None
        return {}


def main(client_class=MoltinClient, name=None):
    driver = Driver(client_class)
    if name:
        driver.NAME = name
    code = driver.run()
    sys.stderr.flush()
    os._exit(code)  # calls still in flight (daemon threads) end with the process


if __name__ == "__main__":
    main()
