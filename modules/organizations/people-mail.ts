import type { Mail } from '../../lib/mail.js';

// The text of the dashboard's mail. Links are absolute: the mail is read outside the browser that asked for it.

export function invitationMail(input: { to: string; organizationName: string; role: string; url: string }): Mail {
  return {
    to: input.to,
    subject: `You are invited to ${input.organizationName}`,
    text:
      `You have been invited to join ${input.organizationName} as ${input.role}.\n\n` +
      `Open this link within 7 days to choose your password and join:\n${input.url}\n\n` +
      'If you did not expect this, ignore this mail.\n',
  };
}

export function resetMail(input: { to: string; url: string }): Mail {
  return {
    to: input.to,
    subject: 'Reset your password',
    text:
      'Someone, probably you, asked to reset the password of your account.\n\n' +
      `Open this link within an hour to choose a new one (it works once):\n${input.url}\n\n` +
      'If it was not you, ignore this mail: your password stays as it is.\n',
  };
}
