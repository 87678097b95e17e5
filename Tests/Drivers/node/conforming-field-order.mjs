#!/usr/bin/env node
// moltin-node, conforming: the token request's form fields in another order.
// The one change: grant sends its fields last to first. A form is read by name (WHATWG URL
// 5.1), so the server reads the same request. Every Moltin flow must pass.
import { MoltinClient, main } from './moltin-driver.mjs';

class ReorderedFormMoltinClient extends MoltinClient {
  grant(form) {
    return super.grant(Object.fromEntries(Object.entries(form).reverse()));
  }
}

main(ReorderedFormMoltinClient, 'moltin-node-conforming-field-order');
