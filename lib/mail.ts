import { appendFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';

/** One message to one person: password reset links and invitations. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
}

export interface MailTransport {
  /** `log` keeps messages in a file for the operator; `smtp` sends them. */
  readonly kind: 'log' | 'smtp';
  send(mail: Mail): Promise<void>;
}

interface StatusLogger {
  info(fields: object, message: string): void;
}

/**
 * The default transport, for an installation with no mail server: each message is appended to a file under DATA_DIR
 * (readable by the operator alone), and the log says only that one was written. The message carries a one-time link
 * that works as a password, so its text never goes to the log, where it would travel to every log collector.
 */
export function logMailTransport(file: string, logger: StatusLogger): MailTransport {
  return {
    kind: 'log',
    async send(mail) {
      await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
      const entry = `---\nDate: ${new Date().toISOString()}\nTo: ${mail.to}\nSubject: ${mail.subject}\n\n${mail.text}\n`;
      await appendFile(file, entry, { mode: 0o600 });
      logger.info({ file }, 'mail written to the mail log file');
    },
  };
}

/** Mail sent through an SMTP server (`smtps://user:pass@smtp.example.com`), from `from`. */
export function smtpMailTransport(url: string, from: string): MailTransport {
  const transporter = nodemailer.createTransport(url);
  return {
    kind: 'smtp',
    async send(mail) {
      await transporter.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
    },
  };
}
