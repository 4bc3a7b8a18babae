import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { logMailTransport } from './mail.js';

describe('the log mail transport', () => {
  it('keeps the whole message in a file only its owner reads, and logs neither the address nor the link', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'mail-'));
    try {
      const lines: { fields: object; message: string }[] = [];
      const transport = logMailTransport(path.join(dir, 'mail.log'), { info: (fields, message) => lines.push({ fields, message }) });
      await transport.send({ to: 'ada@example.com', subject: 'Reset your password', text: 'Open http://127.0.0.1:3000/reset?token=SECRET-TOKEN once.' });
      const file = await readFile(path.join(dir, 'mail.log'), 'utf8');
      expect(file).toContain('To: ada@example.com');
      expect(file).toContain('reset?token=SECRET-TOKEN');
      expect((await stat(path.join(dir, 'mail.log'))).mode & 0o077).toBe(0);
      expect(lines).toHaveLength(1);
      expect(JSON.stringify(lines)).not.toMatch(/SECRET-TOKEN|ada@example\.com/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
