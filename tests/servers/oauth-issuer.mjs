// An OAuth 2.1 authorization server for the tests of toolhost's resource server
// (tests/all/oauth.rs): `oauth2-mock-server` from npm, issuing real signed JWTs
// from its token endpoint. Run as `node oauth-issuer.mjs NODE_MODULES [ISSUER]`:
// it listens on a free loopback port and prints `{"issuer": URL, "port": PORT, "kid": KID}`; with
// ISSUER it claims to be that issuer (an impostor with keys of its own). A token
// request may also carry `expires_in` (seconds, negative for a token already
// expired), `iss` (an issuer other than its own) and `client_id` (the token's `sub`
// and `client_id`, as RFC 9068 has them). A line `rotate` on stdin adds a new
// signing key, printed as `{"kid": KID}`; the server then signs with its keys in turn.
import { createInterface } from "node:readline";

const modules = process.argv[2];
const { OAuth2Server } = await import(`${modules}/oauth2-mock-server/dist/index.mjs`);

const server = new OAuth2Server();
const first = await server.issuer.keys.generate("RS256");
if (process.argv[3]) {
    server.issuer.url = process.argv[3];
}
server.service.on("beforeTokenSigning", (token, request) => {
    const body = request.body ?? {};
    if (body.expires_in !== undefined) {
        token.payload.exp = token.payload.iat + Number(body.expires_in);
        token.payload.nbf = Math.min(token.payload.nbf, token.payload.exp - 1);
    }
    if (body.iss !== undefined) {
        token.payload.iss = body.iss;
    }
    if (body.client_id !== undefined) {
        token.payload.sub = body.client_id;
        token.payload.client_id = body.client_id;
    }
});
await server.start(0, "127.0.0.1");
console.log(JSON.stringify({ issuer: server.issuer.url, port: server.address().port, kid: first.kid }));

for await (const line of createInterface({ input: process.stdin })) {
    if (line.trim() === "rotate") {
        const key = await server.issuer.keys.generate("RS256");
        console.log(JSON.stringify({ kid: key.kid }));
    }
}
await server.stop();
