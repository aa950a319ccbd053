// @ts-check
// Passkeys with the browser's own WebAuthn API (navigator.credentials): the server's JSON options (base64url
// strings) become the ArrayBuffers the API takes, and its answer becomes JSON again for the server.

/**
 * @param {string} text
 * @returns {ArrayBuffer}
 */
export function fromBase64url(text) {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out.buffer;
}

/**
 * @param {ArrayBuffer} buffer
 * @returns {string}
 */
export function toBase64url(buffer) {
  const bytes = new Uint8Array(buffer);
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function passkeysAvailable() {
  return Boolean(globalThis.PublicKeyCredential && navigator.credentials?.create);
}

/** Whether the page was opened on an IP address (`http://127.0.0.1:8000`): WebAuthn needs a domain name as
 * the relying party's id, so no passkey can be made or used there (the server answers `passkey_needs_domain`). */
export function onIpAddress(hostname = location.hostname) {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(hostname) || hostname.includes(":") || hostname.startsWith("[");
}

/** The same page by name when it was opened on a loopback address (`http://localhost:PORT/…`), else null. */
export function byNameAddress(url = location) {
  const loopback = /^127\./.test(url.hostname) || url.hostname === "[::1]" || url.hostname === "::1";
  if (!loopback) return null;
  return `${url.protocol}//localhost${url.port ? `:${url.port}` : ""}${url.pathname}${url.hash}`;
}

/** Passkeys can be used on this page: the browser has WebAuthn and the page has a domain name. */
export function passkeysHere() {
  return passkeysAvailable() && !onIpAddress();
}

/** @typedef {{id: string, type: PublicKeyCredentialType, transports?: AuthenticatorTransport[]}} JsonDescriptor */
/** @param {JsonDescriptor[] | undefined} list @returns {PublicKeyCredentialDescriptor[]} */
const descriptors = (list) => (list ?? []).map((d) => ({ ...d, id: fromBase64url(d.id) }));

/**
 * navigator.credentials.create from the server's registration options; the credential as JSON.
 * @param {Record<string, any>} options the server's PublicKeyCredentialCreationOptions (base64url strings)
 */
export async function createPasskey(options) {
  const publicKey = /** @type {PublicKeyCredentialCreationOptions} */ ({
    ...options,
    challenge: fromBase64url(options.challenge),
    user: { ...options.user, id: fromBase64url(options.user.id) },
    excludeCredentials: descriptors(options.excludeCredentials),
  });
  const cred = /** @type {PublicKeyCredential} */ (await navigator.credentials.create({ publicKey }));
  const r = /** @type {AuthenticatorAttestationResponse} */ (cred.response);
  return credentialJson(cred, {
    attestationObject: toBase64url(r.attestationObject),
    transports: r.getTransports?.() ?? [],
  });
}

/**
 * navigator.credentials.get from the server's authentication options; the assertion as JSON.
 * @param {Record<string, any>} options the server's PublicKeyCredentialRequestOptions (base64url strings)
 */
export async function getPasskey(options) {
  /** @type {PublicKeyCredentialRequestOptions} */
  const publicKey = {
    ...options,
    challenge: fromBase64url(options.challenge),
    allowCredentials: descriptors(options.allowCredentials),
  };
  const cred = /** @type {PublicKeyCredential} */ (await navigator.credentials.get({ publicKey }));
  const r = /** @type {AuthenticatorAssertionResponse} */ (cred.response);
  return credentialJson(cred, {
    authenticatorData: toBase64url(r.authenticatorData),
    signature: toBase64url(r.signature),
    userHandle: r.userHandle ? toBase64url(r.userHandle) : null,
  });
}

/**
 * A credential as the server reads it: its ids and type, its response's client data and `fields` (the
 * ceremony's own, base64url), and its extension results.
 * @param {PublicKeyCredential} cred
 * @param {Record<string, unknown>} fields
 */
function credentialJson(cred, fields) {
  return {
    id: cred.id,
    rawId: toBase64url(cred.rawId),
    type: cred.type,
    response: { clientDataJSON: toBase64url(cred.response.clientDataJSON), ...fields },
    clientExtensionResults: cred.getClientExtensionResults?.() ?? {},
  };
}
