/** API key format: `svc_test_` or `svc_live_` followed by 43 URL-safe random characters (32 bytes). */
import { createHash, randomBytes } from 'node:crypto';
import type { KeyKind } from '../store/types.js';

export const KEY_PREFIX: Record<KeyKind, string> = { test: 'svc_test_', live: 'svc_live_' };
const KEY_PATTERN = /^svc_(test|live)_[A-Za-z0-9_-]{32,128}$/;

export function generateApiKey(kind: KeyKind): string {
  return KEY_PREFIX[kind] + randomBytes(32).toString('base64url');
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** The kind a well-formed key announces, or null for anything that is not a key of ours. */
export function parseApiKey(key: string): KeyKind | null {
  const match = KEY_PATTERN.exec(key);
  return match ? (match[1] as KeyKind) : null;
}

export const lastFour = (key: string): string => key.slice(-4);

/** A new key and what the store keeps of it (its SHA-256 hash and last four characters); the key itself is shown once. */
export function newKeyMaterial(kind: KeyKind): { key: string; keyHash: string; last4: string } {
  const key = generateApiKey(kind);
  return { key, keyHash: hashApiKey(key), last4: lastFour(key) };
}
