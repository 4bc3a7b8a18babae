import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

// Secrets the service must use again later (a tool's API key, sent with each request it makes) are stored sealed:
// AES-256-GCM under a key from the configuration (SECRETS_KEY), so a database dump or backup does not hold them in the
// clear, and a sealed value altered or moved between rows fails to open. The sealed form names its version, so the
// key or the cipher can change and old values still open.

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const SECRETS_KEY_BYTES = 32;
/** Where the key is kept when SECRETS_KEY is not set: under DATA_DIR, beside the embedded database it protects. */
export const SECRETS_KEY_FILE = 'secrets.key';

export class SecretBox {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== SECRETS_KEY_BYTES) throw new Error(`a secrets key is ${SECRETS_KEY_BYTES} bytes, not ${key.length}`);
    this.#key = key;
  }

  /** `context` binds the value to where it is stored (`tool:12`): a sealed value copied elsewhere does not open. */
  seal(plain: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(context));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
  }

  /** Throws on a value sealed under another key or context, or altered. */
  open(sealed: string, context: string): string {
    const [version, packed] = sealed.split('.', 2);
    if (version !== VERSION || !packed) throw new Error('not a sealed secret');
    const bytes = Buffer.from(packed, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, bytes.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  }
}

/**
 * The key from SECRETS_KEY (base64 of 32 bytes), else from `<dataDir>/secrets.key`, which is created (mode 0600) on
 * first use. The file suits one host (the embedded default); processes on several hosts must share SECRETS_KEY.
 */
export function loadSecretsKey(secretsKey: string | undefined, dataDir: string): Buffer {
  if (secretsKey) return Buffer.from(secretsKey, 'base64');
  const file = path.join(dataDir, SECRETS_KEY_FILE);
  try {
    return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(SECRETS_KEY_BYTES);
  try {
    // `wx`: two processes starting together keep whichever key was written first.
    writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(file, 0o600);
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  }
}
