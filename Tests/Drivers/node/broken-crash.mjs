#!/usr/bin/env node
// moltin-node, broken: products reads the JSON body without checking that it parsed.
// The one change: parseProducts calls JSON.parse and indexes the result with no guard (the
// JavaScript spelling of the tutorial's force unwrap), so a 200 whose body is not JSON, or is
// cut mid-document, throws a SyntaxError out of the SDK: the driver reports it as crashed.
import { MoltinClient, main } from './moltin-driver.mjs';

class CrashingMoltinClient extends MoltinClient {
  parseProducts(body) {
    const document = JSON.parse(body.toString('utf8')); // no check
    return document.result.map((item) => ({ id: item.id, title: item.title }));
  }
}

main(CrashingMoltinClient, 'moltin-node-broken-crash');
