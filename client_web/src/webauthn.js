// @ts-check
// Passkeys with the browser's own WebAuthn API (navigator.credentials): the server's JSON options (base64url
// strings) become the ArrayBuffers the API takes, and its answer becomes JSON again for the server.

export function fromBase64url(text) {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out.buffer;
}

export function toBase64url(buffer) {
  const bytes = new Uint8Array(buffer);
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function passkeysAvailable() {
  return Boolean(globalThis.PublicKeyCredential && navigator.credentials?.create);
}

const descriptors = (list) => (list ?? []).map((d) => ({ ...d, id: fromBase64url(d.id) }));

/** navigator.credentials.create from the server's registration options; the credential as JSON. */
export async function createPasskey(options) {
  const publicKey = {
    ...options,
    challenge: fromBase64url(options.challenge),
    user: { ...options.user, id: fromBase64url(options.user.id) },
    excludeCredentials: descriptors(options.excludeCredentials),
  };
  const cred = /** @type {PublicKeyCredential} */ (await navigator.credentials.create({ publicKey }));
  const r = /** @type {AuthenticatorAttestationResponse} */ (cred.response);
  return {
    id: cred.id,
    rawId: toBase64url(cred.rawId),
    type: cred.type,
    response: {
      clientDataJSON: toBase64url(r.clientDataJSON),
      attestationObject: toBase64url(r.attestationObject),
      transports: r.getTransports?.() ?? [],
    },
    clientExtensionResults: cred.getClientExtensionResults?.() ?? {},
  };
}

/** navigator.credentials.get from the server's authentication options; the assertion as JSON. */
export async function getPasskey(options) {
  const publicKey = {
    ...options,
    challenge: fromBase64url(options.challenge),
    allowCredentials: descriptors(options.allowCredentials),
  };
  const cred = /** @type {PublicKeyCredential} */ (await navigator.credentials.get({ publicKey }));
  const r = /** @type {AuthenticatorAssertionResponse} */ (cred.response);
  return {
    id: cred.id,
    rawId: toBase64url(cred.rawId),
    type: cred.type,
    response: {
      clientDataJSON: toBase64url(r.clientDataJSON),
      authenticatorData: toBase64url(r.authenticatorData),
      signature: toBase64url(r.signature),
      userHandle: r.userHandle ? toBase64url(r.userHandle) : null,
    },
    clientExtensionResults: cred.getClientExtensionResults?.() ?? {},
  };
}
