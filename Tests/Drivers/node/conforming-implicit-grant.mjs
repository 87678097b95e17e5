#!/usr/bin/env node
// moltin-node, conforming: Auth asks for grant_type=implicit.
// The one change: the grant seed 003 recommends: grant_type "can be implicit, client_credentials,
// refresh_token and authorization_code. For iOS apps, the implicit value should be used."
// Every Moltin flow must pass.
import { MoltinClient, main } from './moltin-driver.mjs';

class ImplicitGrantMoltinClient extends MoltinClient {
  grant(form) {
    return super.grant(form.grant_type === 'client_credentials' ? { ...form, grant_type: 'implicit' } : form);
  }
}

main(ImplicitGrantMoltinClient, 'moltin-node-conforming-implicit-grant');
