#!/usr/bin/env node
// moltin-node, conforming: the authentication scheme in lower case, "bearer <token>".
// The one change: getProducts writes the scheme as some HTTP stacks do. The scheme is
// case-insensitive (RFC 9110 11.1; RFC 6750 2.1 names it Bearer). Every Moltin flow must pass.
import { MoltinClient, main } from './moltin-driver.mjs';

class LowercaseBearerMoltinClient extends MoltinClient {
  getProducts(token) {
    const headers = { Accept: 'application/json' };
    if (token) headers.Authorization = `bearer ${token.accessToken}`;
    return this.transport.send('GET', `${this.baseURL}/v1/products`, headers);
  }
}

main(LowercaseBearerMoltinClient, 'moltin-node-conforming-bearer-lowercase');
