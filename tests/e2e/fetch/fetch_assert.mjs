// Assertions shared by the fetch e2e scenarios.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';

// Passed as --deadline-ms where a scenario expects the deadline to expire.
export const SHORT_DEADLINE_MS = '1000';

export function sha256Ref(text) {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

// `r` is a fetch() result: the process outcome plus its parsed --json line.
export function assertError(r, code, messagePattern) {
  assert.equal(r.json.ok, false, r.raw);
  assert.equal(r.json.error.code, code, r.raw);
  if (messagePattern) assert.match(r.json.error.message, messagePattern);
  assert.notEqual(r.code, 0);
}
