#!/usr/bin/env node
// moltin-node, broken: never renews before expiry.
// The one change: the expiry check is gone (needsRenewal always answers false), so the SDK
// sends a token it knows has expired and only recovers after the server's 401, or, without
// credentials, reports the 401 instead of "not logged in".
import { MoltinClient, main } from './moltin-driver.mjs';

class NoExpiryMoltinClient extends MoltinClient {
  needsRenewal() { return false; }
}

main(NoExpiryMoltinClient, 'moltin-node-broken-no-expiry');
