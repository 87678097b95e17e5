#!/usr/bin/env python3
"""authlib-<version>: a FlowCheck driver around the third-party library authlib.

    python3 -m pip install --quiet authlib requests

The SDK under test is authlib's `authlib.integrations.requests_client.OAuth2Session`, used as
its documentation shows; this file only wires it to the protocol (docs/protocol.md)
and maps its exceptions onto the protocol's error kinds. Where authlib behaves differently from
what a spec checks, the driver does not work around it: the flow fails and that is the finding
(docs/reference-drivers.md lists them).

Moltin: OAuth2Session(client_id, client_secret, token_endpoint_auth_method="client_secret_post",
token_endpoint=..., grant_type="client_credentials", update_token=...): fetch_token for Auth,
refresh_token for Refresh Token, session.get for Products (authlib's OAuth2Auth renews an
expired token before the request: ensure_active_token, leeway 60 s).

Clover Full OAuth (PKCE): create_authorization_url(..., code_verifier=...) with
code_challenge_method="S256", then fetch_token(authorization_response=..., code_verifier=...).

The virtual clock. authlib reads the wall clock in exactly one place on these paths:
`authlib.oauth2.rfc6749.wrappers` does `import time` and calls `time.time()` in
OAuth2Token.__init__ (expires_at = time.time() + expires_in) and OAuth2Token.is_expired. The
driver replaces that module's global `time` (authlib.oauth2.rfc6749.wrappers.time) with a small
object whose time() returns the protocol's clock (start/clock messages); nothing else in authlib
or in the process is patched (time.time itself is untouched). requests' timeouts stay on the
wall clock: neither authlib nor requests can take an injected clock for them.

Token storage is the driver's (authlib keeps tokens in memory only and hands new ones to the
update_token callback): the same owner-only, write-temp + fsync + rename file store as the
moltin-python driver, imported from ../python/moltin_driver.py.
"""

import os
import sys
import threading
import urllib.parse

sys.dont_write_bytecode = True  # keep Tests/Drivers free of __pycache__
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))

import moltin_driver  # noqa: E402  (redirects sys.stdout to stderr: stdout is the protocol's)
from moltin_driver import ClientError, Driver, TokenStore, VirtualClock, log  # noqa: E402

# authlib refuses http:// token endpoints unless this is set; the fakes are loopback HTTP.
os.environ.setdefault("AUTHLIB_INSECURE_TRANSPORT", "1")

import authlib  # noqa: E402
import authlib.oauth2.rfc6749.wrappers as authlib_token_module  # noqa: E402
import requests  # noqa: E402
from authlib.common.security import generate_token  # noqa: E402
from authlib.integrations.base_client import InvalidTokenError, MissingTokenError, OAuthError  # noqa: E402
from authlib.integrations.requests_client import OAuth2Session  # noqa: E402
from authlib.oauth2.rfc6749.errors import MismatchingStateException  # noqa: E402

# Seconds of wall time for every request (requests' timeout): above the longest the runner's
# stall judge waits before it fails a request timeout that ignores the flow's clock (10 s on a
# crowded machine), so FLT-STALL's verdict never races this timer; below the runner's 20 s
# answer deadline, so a request nobody ends is still this client's failure, not a hang.
REAL_TIMEOUT = 18


class _VirtualTime:
    """Stands in for the `time` module inside authlib.oauth2.rfc6749.wrappers only."""

    clock = None

    def time(self):
        return self.clock.now()


VIRTUAL_TIME = _VirtualTime()
authlib_token_module.time = VIRTUAL_TIME


def map_errors(call):
    """authlib's and requests' exceptions as the protocol's error kinds."""
    try:
        return call()
    except ClientError:
        raise
    except MismatchingStateException as error:
        raise ClientError("stateMismatch", "authlib: %s" % error)
    except (MissingTokenError, InvalidTokenError) as error:
        raise ClientError("notLoggedIn", "authlib: %s: %s" % (type(error).__name__, error))
    except OAuthError as error:
        raise ClientError("tokenEndpoint", "authlib: %s" % error)
    except requests.exceptions.TooManyRedirects as error:
        raise ClientError("invalidResponse", "requests: %s" % error)
    except requests.exceptions.HTTPError as error:
        status = error.response.status_code if error.response is not None else 0
        raise ClientError("serverError" if status >= 500 else "httpStatus", "requests: %s" % error)
    except (requests.exceptions.ConnectionError, requests.exceptions.Timeout, requests.exceptions.ChunkedEncodingError) as error:
        raise ClientError("transport", "requests: %s" % error)
    except ValueError as error:  # a body that is not JSON (requests' JSONDecodeError is one)
        raise ClientError("invalidResponse", "not JSON: %s" % error)


def status_error(response):
    try:
        body = response.json()
        text = body.get("error_description") or body.get("error") or body.get("message") if isinstance(body, dict) else None
    except ValueError:
        text = None
    message = "%s (HTTP %d)" % (text or response.reason, response.status_code)
    if 300 <= response.status_code < 400:
        return ClientError("invalidResponse", message)
    if response.status_code >= 500:
        return ClientError("serverError", message)
    return ClientError("httpStatus", message)


# ---------------------------------------------------------------------------------------------
# Moltin
# ---------------------------------------------------------------------------------------------


class AuthlibMoltin:
    def __init__(self, base_url, clock, store):
        self.base_url = base_url.rstrip("/")
        self.token_url = self.base_url + "/oauth/access_token"
        self.clock = clock
        self.store = store
        # A relaunched app: no credentials, the stored token (if any) handed to a new session.
        self.session = OAuth2Session(token=self._stored_token(), default_timeout=REAL_TIMEOUT)

    def _stored_token(self):
        try:
            fields = self.store.load()
        except ClientError:
            return None
        if not fields:
            return None
        return {"access_token": fields["accessToken"], "token_type": fields.get("tokenType", "Bearer"),
                "expires_at": int(fields["expiresAt"])}

    def _save(self, token, **_):
        # authlib's update_token callback, and after fetch_token: the app persists the token.
        self.store.save({"accessToken": token["access_token"], "tokenType": token.get("token_type", "Bearer"),
                         "expiresAt": str(token["expires_at"])})

    def auth(self, client_id, client_secret):
        session = OAuth2Session(
            client_id, client_secret, token_endpoint_auth_method="client_secret_post",
            token_endpoint=self.token_url, grant_type="client_credentials",
            update_token=self._save, default_timeout=REAL_TIMEOUT,
        )
        token = map_errors(lambda: session.fetch_token(self.token_url, grant_type="client_credentials"))
        self._save(token)
        self.session = session  # the credentials of a successful Auth, in memory

    def refresh_token(self):
        token = self.session.token
        if not token or not self.session.client_id:
            raise ClientError("notLoggedIn", "no token or credentials to refresh with")
        # Moltin's refresh grant takes the access token itself; authlib calls update_token.
        map_errors(lambda: self.session.refresh_token(self.token_url, refresh_token=token["access_token"]))

    def delete_token(self):
        self.session.token = None
        self.store.delete()

    def products(self):
        response = map_errors(lambda: self.session.get(self.base_url + "/v1/products"))
        if response.status_code == 401:
            raise ClientError("tokenRejected", status_error(response).message)
        if response.status_code != 200:
            raise status_error(response)
        document = map_errors(response.json)
        items = document.get("result") if isinstance(document, dict) else None
        if not isinstance(items, list) or not all(isinstance(i, dict) and isinstance(i.get("id"), str) and isinstance(i.get("title"), str) for i in items):
            raise ClientError("invalidResponse", "the products answer has no valid result list")
        return {"productCount": str(len(items)), "productIds": ",".join(i["id"] for i in items),
                "productTitles": ",".join(i["title"] for i in items)}


# ---------------------------------------------------------------------------------------------
# Clover Full OAuth (PKCE)
# ---------------------------------------------------------------------------------------------


class AuthlibClover:
    def __init__(self, web_url, api_url, clock, store, driver, fired):
        self.web_url = web_url.rstrip("/")
        self.api_url = api_url.rstrip("/")
        self.clock = clock
        self.store = store
        self.driver = driver
        self.fired = fired  # label -> count; survives a relaunch as the app's own counter
        self.callbacks = []
        self.session = None
        self.pending = None  # (session, code_verifier) of the login in progress
        self.merchant_id = None

    # Stored session: accessToken, refreshToken, merchantId and the two expirations.
    def _stored(self):
        try:
            return self.store.load()
        except ClientError:
            return None

    def _save(self, token, merchant_id):
        fields = {"accessToken": token["access_token"], "merchantId": merchant_id}
        if token.get("refresh_token"):
            fields["refreshToken"] = token["refresh_token"]
        for ours, theirs in (("accessTokenExpiration", "access_token_expiration"), ("refreshTokenExpiration", "refresh_token_expiration")):
            if token.get(theirs) is not None:
                fields[ours] = str(int(token[theirs]))
        self.store.save(fields)
        for label in self.callbacks:
            self.fired[label] = self.fired.get(label, 0) + 1

    def _session(self, app_id, redirect_uri, stored=None):
        token = None
        if stored:
            token = {"access_token": stored["accessToken"], "token_type": "Bearer"}
            if stored.get("refreshToken"):
                token["refresh_token"] = stored["refreshToken"]
            if stored.get("accessTokenExpiration"):
                token["expires_at"] = int(stored["accessTokenExpiration"])
        if stored:
            self.merchant_id = stored.get("merchantId")

        def update_token(new_token, refresh_token=None, access_token=None):
            self._save(self._with_expires_at(new_token), self.merchant_id)

        # A PKCE (public) client: authlib gets the client id only, never the app secret.
        return OAuth2Session(
            app_id, redirect_uri=redirect_uri, code_challenge_method="S256", token=token,
            token_endpoint=self.api_url + "/oauth/v2/refresh", update_token=update_token,
            default_timeout=REAL_TIMEOUT,
        )

    @staticmethod
    def _with_expires_at(token):
        # Clover names the expiry access_token_expiration; authlib knows expires_at/expires_in.
        if token.get("access_token_expiration") is not None and token.get("expires_at") is None:
            token["expires_at"] = int(token["access_token_expiration"])
        return token

    def add_token_callback(self, label):
        self.fired.setdefault(label, 0)
        self.callbacks.append(label)
        return {"id": label}

    def setup_full(self, app_id, app_secret, redirect_uri):
        stored = self._stored()
        if stored:
            self.session = self._session(app_id, redirect_uri, stored)
            merchant = self._merchant(stored["merchantId"])
            return {"outcome": "ready", "merchantId": merchant["id"], "merchantName": merchant["name"]}
        session = self._session(app_id, redirect_uri)
        verifier = generate_token(48)
        url, state = session.create_authorization_url(self.web_url + "/oauth/v2/authorize", code_verifier=verifier)
        self.pending = (session, verifier, state)
        self.driver.send({"type": "browserOpen", "url": url})
        return {"outcome": "loginStarted"}

    def receive_redirect(self, url):
        if self.pending is None:
            raise ClientError("authorization", "no login in progress")
        session, verifier, state = self.pending
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query))
        try:
            # authlib compares the redirect's state only with the one it is given: the state
            # create_authorization_url returned is passed back, as its fetch_token documents.
            token = map_errors(lambda: session.fetch_token(
                self.api_url + "/oauth/v2/token", authorization_response=url, code_verifier=verifier, state=state))
        except ClientError as error:
            if error.kind == "stateMismatch":
                raise  # not this login's redirect: the login goes on, the browser stays open
            self.pending = None
            self.driver.send({"type": "browserDismiss"})
            if error.kind == "tokenEndpoint" and "error" in query:
                raise ClientError("authorization", "authlib: %s" % query.get("error"))
            raise
        self.pending = None
        self.driver.send({"type": "browserDismiss"})
        self.session = session
        self.merchant_id = query.get("merchant_id", "")
        self._save(self._with_expires_at(token), self.merchant_id)
        return {}

    def _merchant(self, merchant_id):
        response = map_errors(lambda: self.session.get(self.api_url + "/v3/merchants/" + urllib.parse.quote(merchant_id, safe="")))
        if response.status_code == 401:
            raise ClientError("tokenRejected", status_error(response).message)
        if response.status_code != 200:
            raise status_error(response)
        document = map_errors(response.json)
        if not isinstance(document, dict) or not isinstance(document.get("id"), str):
            raise ClientError("invalidResponse", "the merchant answer has no id")
        return {"id": document["id"], "name": str(document.get("name", ""))}

    def merchant(self, concurrent):
        stored = self._stored()
        if not stored or self.session is None:
            raise ClientError("notLoggedIn", "not logged in")
        results, errors = [], []

        def one():
            try:
                results.append(self._merchant(stored["merchantId"]))
            except BaseException as error:  # noqa: BLE001 - handed to the caller below
                errors.append(error)

        threads = [threading.Thread(target=one) for _ in range(concurrent)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if errors:
            raise errors[0]
        return {"merchantId": results[0]["id"], "merchantName": results[0]["name"], "calls": str(len(results))}

    def status(self):
        result = {"isLoggedIn": "true" if self._stored() else "false"}
        for label, count in self.fired.items():
            result["fired." + label] = str(count)
        return result

    def logout(self):
        self.session = None
        self.pending = None
        self.store.delete()
        return {}


# ---------------------------------------------------------------------------------------------
# The driver
# ---------------------------------------------------------------------------------------------


class AuthlibDriver(Driver):
    NAME = "authlib-%s" % authlib.__version__
    PROVIDERS = {
        "moltin": ["auth", "refreshToken", "deleteToken", "products", "relaunch"],
        "clover": ["setupFull", "receiveRedirect", "addTokenCallback", "status", "merchant", "logout", "relaunch"],
    }

    def __init__(self):
        super().__init__(None)
        self.provider = None
        self.fired = {}

    def hello(self):
        return {
            "type": "hello", "protocol": 1,
            "driver": {"name": self.NAME, "version": moltin_driver.DRIVER_VERSION},
            "providers": self.PROVIDERS,
            "capabilities": ["virtualClock", "fileStore", "storeCrash"],
        }

    def _new_client(self):
        if self.provider == "moltin":
            return AuthlibMoltin(self.base_url, self.clock, self.store)
        return AuthlibClover(self.base_urls.get("web", self.base_url), self.base_urls.get("api", self.base_url),
                             self.clock, self.store, self, self.fired)

    def handle(self, kind, message):
        if kind != "start":
            return super().handle(kind, message)
        self.provider = message.get("provider")
        if self.provider not in self.PROVIDERS:
            self.send({"type": "fatal", "message": "%s speaks moltin and clover only, not %s" % (self.NAME, self.provider)})
            return
        self.clock = VirtualClock(message["now"])
        VIRTUAL_TIME.clock = self.clock
        self.base_url = message["baseURL"]
        self.base_urls = message.get("baseURLs") or {}
        self.store = TokenStore(message["storageDirectory"])
        self.client = self._new_client()
        self.send({"type": "ready"})

    def perform(self, action, arguments):
        client = self.client
        if action == "relaunch":
            self.client = self._new_client()
            return {}
        if self.provider == "moltin":
            if action == "auth":
                client.auth(arguments.get("clientId", ""), arguments.get("clientSecret", ""))
            elif action == "refreshToken":
                client.refresh_token()
            elif action == "deleteToken":
                client.delete_token()
            elif action == "products":
                return client.products()
            else:
                return None
            return {}
        if action == "addTokenCallback":
            return client.add_token_callback(arguments.get("label", ""))
        if action == "setupFull":
            return client.setup_full(arguments.get("appId", ""), arguments.get("appSecret", ""), arguments.get("redirectURI", ""))
        if action == "receiveRedirect":
            return client.receive_redirect(arguments.get("url", ""))
        if action == "merchant":
            return client.merchant(int(arguments.get("concurrent", "1")))
        if action == "status":
            return client.status()
        if action == "logout":
            return client.logout()
        return None


if __name__ == "__main__":
    code = AuthlibDriver().run()
    sys.stderr.flush()
    os._exit(code)
