import { parseArgs } from 'node:util';
import { z } from 'zod';
import type { PrismaClient } from '../prisma/client.js';

// Operator commands. Output goes to stdout (one JSON object with --json); diagnostics go to stderr. The database and
// the organisations module are loaded once a command's arguments are known to be good, as `npm start` loads the service
// after its checks: a mistyped command answers at once instead of after seconds of loading.

const USAGE = `usage:
  npm run cli -- bootstrap --org NAME --email EMAIL [--json]   create (or reuse) an organisation and user, print a new API key
  npm run cli -- keys list --org-id ID [--json]                list an organisation's keys (prefixes only)
  npm run cli -- keys revoke PREFIX                            revoke a key by its prefix (e.g. vak_AbCdEfGh)
With --json for a program to read, run it as \`npm run --silent cli -- ...\`: npm's banner then stays off stdout.`;

class UsageError extends Error {}

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      org: { type: 'string' },
      email: { type: 'string' },
      'org-id': { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [command, sub, arg] = positionals;
  if (values.help || !command) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const print = (value: unknown, text: string) => process.stdout.write(values.json ? `${JSON.stringify(value)}\n` : `${text}\n`);

  if (command === 'bootstrap') {
    const org = z.string().trim().min(1).max(200).safeParse(values.org);
    const email = z.email().safeParse(values.email?.trim());
    if (!org.success) throw new UsageError('bootstrap needs --org NAME');
    if (!email.success) throw new UsageError('bootstrap needs --email with a valid email address');
    await withDatabase(async (prisma, { bootstrap }) => {
      const result = await bootstrap(prisma, { organizationName: org.data, email: email.data });
      print(
        result,
        `organization_id: ${result.organization_id}\nuser_id: ${result.user_id}\napi_key: ${result.api_key}\n` +
          'Keep the key now: it is stored hashed and cannot be shown again.',
      );
    });
    return;
  }

  if (command === 'keys' && sub === 'list') {
    const orgId = z.coerce.number().int().min(1).safeParse(values['org-id']);
    if (!orgId.success) throw new UsageError('keys list needs --org-id ID');
    await withDatabase(async (prisma, { listApiKeys }) => {
      const keys = await listApiKeys(prisma, orgId.data);
      print(
        { keys },
        keys
          .map((k) => `${k.prefix}  user ${k.userId}  ${k.revokedAt ? 'revoked' : 'active'}  last used ${k.lastUsedAt?.toISOString() ?? 'never'}`)
          .join('\n') || 'no keys',
      );
    });
    return;
  }

  if (command === 'keys' && sub === 'revoke') {
    if (!arg) throw new UsageError('keys revoke needs the key prefix');
    await withDatabase(async (prisma, { revokeApiKey }) => {
      const revoked = await revokeApiKey(prisma, arg);
      if (!revoked) throw new UsageError(`no active key with prefix ${arg}`);
      print({ revoked: arg }, `revoked ${arg}; running servers stop accepting it within their key cache TTL (5 s by default)`);
    });
    return;
  }
  throw new UsageError(`unknown command: ${positionals.join(' ')}`);
}

type Organizations = typeof import('../modules/organizations/index.js');

async function withDatabase(work: (prisma: PrismaClient, organizations: Organizations) => Promise<void>): Promise<void> {
  const [{ readConfig }, { openDatabase }, organizations] = await Promise.all([
    import('../lib/config.js'),
    import('../prisma/database.js'),
    import('../modules/organizations/index.js'),
  ]);
  const config = readConfig();
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    await work(db.prisma, organizations);
  } finally {
    await db.close();
  }
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n\n${USAGE}\n`);
      process.exit(2);
    }
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
