// Loose readers for `terraform show -json` documents: a missing or mistyped part reads as empty,
// so a document from an older or newer Terraform still maps instead of throwing.
export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type Obj = { [k: string]: Json };

export const obj = (x: unknown): Obj => (x && typeof x === 'object' && !Array.isArray(x) ? (x as Obj) : {});
export const list = (x: unknown): Json[] => (Array.isArray(x) ? x : []);
export const str = (x: unknown, fallback = ''): string => (typeof x === 'string' ? x : fallback);

/** Sets a key taken from a document: `__proto__` becomes a key like any other, not the prototype. */
export function put(into: Obj, key: string, value: Json): void {
  Object.defineProperty(into, key, { value, enumerable: true, writable: true, configurable: true });
}
