#!/usr/bin/env node
// moltin-node, conforming: renews only once the token has expired (a margin of 0).
// The one change: needsRenewal without the 60 s margin. Seed 003 asks for a new token once "the
// expiry time is reached" and fixes no margin. Every Moltin flow must pass.
import { MoltinClient, main } from './moltin-driver.mjs';

class AtExpiryMoltinClient extends MoltinClient {
  needsRenewal(token) {
    const expiresAt = Number(token.expiresAt);
    return !Number.isFinite(expiresAt) || this.clock.now() >= expiresAt;
  }
}

main(AtExpiryMoltinClient, 'moltin-node-conforming-margin-zero');
