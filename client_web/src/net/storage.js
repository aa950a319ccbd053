// @ts-check
// The page's localStorage, or null where the browser blocks it (private modes, disabled site data): every
// caller then keeps what it needs in memory.
export function safeStorage() {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null;
  }
}
