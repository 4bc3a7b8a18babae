import net from 'node:net';

// An SMTP server on 127.0.0.1 that accepts every message and keeps what it received (RFC 5321: EHLO, MAIL, RCPT, DATA,
// RSET, NOOP, QUIT; any other verb is answered 500 as unrecognised; no TLS and no auth offered).

export interface ReceivedMail {
  from: string;
  to: string[];
  data: string;
}

export interface FakeSmtp {
  url: string;
  mails: ReceivedMail[];
  close(): Promise<void>;
}

export async function startFakeSmtp(): Promise<FakeSmtp> {
  const mails: ReceivedMail[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let buffer = '';
    let current: ReceivedMail = { from: '', to: [], data: '' };
    let inData = false;
    const reply = (line: string) => socket.write(`${line}\r\n`);
    reply('220 fake.smtp ESMTP');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (let end = buffer.indexOf('\r\n'); end >= 0; end = buffer.indexOf('\r\n')) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (inData) {
          if (line === '.') {
            inData = false;
            mails.push(current);
            current = { from: '', to: [], data: '' };
            reply('250 queued');
          } else current.data += `${line.startsWith('..') ? line.slice(1) : line}\n`;
          continue;
        }
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO' || verb === 'HELO') reply('250 fake.smtp');
        else if (verb === 'MAIL') ((current.from = /<([^>]*)>/.exec(line)?.[1] ?? ''), reply('250 ok'));
        else if (verb === 'RCPT') (current.to.push(/<([^>]*)>/.exec(line)?.[1] ?? ''), reply('250 ok'));
        else if (verb === 'DATA') ((inData = true), reply('354 go ahead'));
        else if (verb === 'QUIT') (reply('221 bye'), socket.end());
        else if (verb === 'RSET' || verb === 'NOOP') reply('250 ok');
        else reply('500 command unrecognized');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
