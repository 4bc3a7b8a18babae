// A carrier's Media Streams connect back to the service over a WebSocket whose address is made from PUBLIC_URL: an
// `http` base gives `ws://`, which Twilio refuses (its error 31922) after the call has been placed, and the call then
// fails with nothing on our side saying why. Said loudly instead: at start-up and on every carrier connection.

export const INSECURE_PUBLIC_URL =
  'PUBLIC_URL is not https: the media stream address carriers are given starts with ws://, which Twilio refuses (error 31922); calls on this connection will fail until PUBLIC_URL is an https address';

/** What is wrong for carrier calls with this public base URL, if anything. */
export function publicUrlProblem(publicUrl: string | undefined): string | undefined {
  if (publicUrl === undefined) return undefined;
  return new URL(publicUrl).protocol === 'https:' ? undefined : INSECURE_PUBLIC_URL;
}

/** The warnings shown on a phone connection: a carrier connection needs an https public URL; a SIP trunk does not. */
export function connectionWarnings(kind: string, publicUrl: string | undefined): string[] {
  const problem = kind === 'twilio' ? publicUrlProblem(publicUrl) : undefined;
  return problem ? [problem] : [];
}
