import assert from 'node:assert/strict';
import type { Response } from './harness.ts';

/** Asserts a JSON:API error document with `status`, and returns its first error. */
export function assertError(res: Response, status: number, pointer?: string) {
  assert.equal(res.status, status, `expected ${status}, got ${res.status}: ${res.raw}`);
  assert.match(String(res.headers['content-type']), /application\/vnd\.api\+json/);
  assert.ok(Array.isArray(res.body?.errors) && res.body.errors.length > 0, `no errors array: ${res.raw}`);
  for (const e of res.body.errors) assert.equal(e.status, String(status));
  if (pointer !== undefined) {
    const pointers = res.body.errors.map((e: { source?: { pointer?: string } }) => e.source?.pointer);
    assert.ok(pointers.includes(pointer), `expected pointer ${pointer}, got ${JSON.stringify(pointers)}`);
  }
  return res.body.errors[0] as { status: string; title: string; detail?: string; source?: { pointer?: string } };
}

export function assertStatus(res: Response, status: number): void {
  assert.equal(res.status, status, `expected ${status}, got ${res.status}: ${res.raw}`);
}
