import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { loadSecretsKey, SecretBox, SECRETS_KEY_FILE } from './secret-box.js';

const box = () => new SecretBox(Buffer.alloc(32, 7));

describe('sealed secrets', () => {
  it('opens what it sealed, and seals the same value differently each time', () => {
    const a = box().seal('Bearer sk_live_abc', 'tool-header:1:authorization');
    const b = box().seal('Bearer sk_live_abc', 'tool-header:1:authorization');
    expect(a).not.toBe(b);
    expect(a).not.toContain('sk_live');
    expect(box().open(a, 'tool-header:1:authorization')).toBe('Bearer sk_live_abc');
  });

  it('refuses a value moved to another context, altered, or sealed under another key', () => {
    const sealed = box().seal('secret', 'tool-header:1:x-api-key');
    expect(() => box().open(sealed, 'tool-header:2:x-api-key')).toThrow();
    // One bit of the body flipped (a character swapped in the text could decode to the same bytes, or be the same).
    const [version, packed] = sealed.split('.') as [string, string];
    const bytes = Buffer.from(packed, 'base64url');
    bytes[bytes.length - 1]! ^= 1;
    const altered = `${version}.${bytes.toString('base64url')}`;
    expect(() => box().open(altered, 'tool-header:1:x-api-key')).toThrow();
    expect(() => new SecretBox(Buffer.alloc(32, 8)).open(sealed, 'tool-header:1:x-api-key')).toThrow();
    expect(() => box().open('plain text', 'tool-header:1:x-api-key')).toThrow('not a sealed secret');
  });

  it('takes SECRETS_KEY when given, else makes a key file only its owner can read, and keeps using it', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'secrets-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const given = Buffer.alloc(32, 3).toString('base64');
    expect(loadSecretsKey(given, dir)).toEqual(Buffer.alloc(32, 3));
    const made = loadSecretsKey(undefined, dir);
    expect(made).toHaveLength(32);
    const file = path.join(dir, SECRETS_KEY_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8').trim()).toBe(made.toString('base64'));
    expect(loadSecretsKey(undefined, dir)).toEqual(made);
  });

  it('refuses a key of the wrong length', () => {
    expect(() => new SecretBox(Buffer.alloc(16))).toThrow('32 bytes');
  });
});
