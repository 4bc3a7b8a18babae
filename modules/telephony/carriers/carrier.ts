// What the service needs of a carrier that dials through its own REST API and carries the call's audio on a WebSocket
// to us (Twilio's Media Streams today; Telnyx's Call Control and Vonage's Voice API have the same four parts). Each
// carrier is one adapter: creating a call, reading its status callbacks, checking its signatures, and its media wire
// format. The dialler, the callbacks' route and the call runtime know only this interface.

/** A carrier account as the connection stores it, opened for a request. */
export interface CarrierAccount {
  accountSid: string;
  authToken: string;
  /** The REST API's base URL (https://api.twilio.com, or a compatible carrier's). */
  apiBaseUrl: string;
}

export interface CarrierDialRequest {
  to: string;
  from: string;
  /** Our WebSocket the answered call's audio is connected to, and the per-call token its start message must carry. */
  streamUrl: string;
  streamToken: string;
  /** Where the carrier reports the call's progress (ringing, answered, ended). */
  statusCallbackUrl: string;
  /** Where the carrier reports its answering-machine verdict; absent when none was asked for. */
  machineDetectionUrl?: string | undefined;
  ringingTimeoutS: number;
  maxCallDurationS: number;
}

/** A call to the person a warm transfer consults: it speaks the briefing and asks them to accept with a key. */
export interface CarrierConsultRequest {
  to: string;
  /** A number of the account: the one the caller called, or the one an outbound call came from. */
  from: string;
  briefing: string;
  /** Where the carrier POSTs the key the person pressed; its answer says what their call does next. */
  answerUrl: string;
  statusCallbackUrl: string;
  machineDetectionUrl: string;
  ringingTimeoutS: number;
}

/** A call's state at the carrier, in our words. */
export type CarrierCallState = 'queued' | 'ringing' | 'in_progress' | 'completed' | 'busy' | 'no_answer' | 'failed' | 'canceled';

/** What a status callback, or a look at the carrier's call, says. */
export interface CarrierCallReport {
  providerCallSid: string;
  state: CarrierCallState;
  /** The carrier's answering-machine verdict, when it has one: human, machine_start, machine_end_beep, … */
  answeredBy?: string | undefined;
  /** The SIP response of a failed call, when the carrier gives it. */
  sipCode?: number | undefined;
  /** When the carrier created the call: tells a call we created from an older one to the same number. */
  createdAt?: Date | undefined;
}

/**
 * Why a request to the carrier did not succeed. `refused`: it answered no, and nothing was created. `retry`: it asked us
 * to come back (rate limit), nothing was created. `unknown`: no answer, or a server error, so the call may or may not
 * exist; the dial is then resolved by looking at the carrier's calls, never by asking again blindly.
 */
export class CarrierRequestError extends Error {
  constructor(
    readonly outcome: 'refused' | 'retry' | 'unknown',
    /** A stable reason for the call's `end_reason` (`invalid_number`, `carrier_auth_failed`, …). */
    readonly reason: string,
    message: string,
    readonly details: { status?: number; carrierCode?: number } = {},
  ) {
    super(message);
    this.name = 'CarrierRequestError';
  }
}

export interface CarrierAdapter {
  readonly kind: string;
  /** Creates the call; answers the carrier's id of it. Throws CarrierRequestError. */
  createCall(account: CarrierAccount, request: CarrierDialRequest): Promise<{ providerCallSid: string }>;
  /** Ends the call at the carrier, whatever state it is in; a call already over is not an error. */
  hangUp(account: CarrierAccount, providerCallSid: string): Promise<void>;
  /**
   * Connects the call's other party to `destination` (a number, or a SIP URI) instead of to us: the carrier stops our
   * stream and dials there. Throws CarrierRequestError; `signal` gives up on the request.
   */
  transfer(account: CarrierAccount, providerCallSid: string, destination: string, signal?: AbortSignal): Promise<void>;
  /** Calls the person a warm transfer consults (CarrierConsultRequest); answers the carrier's id of that call. */
  createConsultCall(account: CarrierAccount, request: CarrierConsultRequest): Promise<{ providerCallSid: string }>;
  /** Moves a call into the conference `room` (the caller of an accepted warm transfer). Throws CarrierRequestError. */
  joinConference(account: CarrierAccount, providerCallSid: string, room: string, signal?: AbortSignal): Promise<void>;
  /**
   * Reads the consulted person's answer (the key callback of CarrierConsultRequest.answerUrl): whether they accepted,
   * and the markup that answers the callback: their call joins the conference `room`, or ends.
   */
  readConsultAnswer(params: Record<string, string>, room: string): { accepted: boolean; reply: string };
  /** The call's state now, or null when the carrier has no such call. */
  fetchCall(account: CarrierAccount, providerCallSid: string): Promise<CarrierCallReport | null>;
  /** Calls from `from` to `to` created at or after `since`, newest first: finds a call whose creation went unanswered. */
  findCalls(account: CarrierAccount, query: { to: string; from: string; since: Date }): Promise<CarrierCallReport[]>;
  /** Reads a status or answering-machine callback's parameters. */
  readCallback(params: Record<string, string>): CarrierCallReport | null;
  /** Whether a callback to `url` with `params` was signed with the account's token. */
  verifySignature(account: CarrierAccount, url: string, params: Record<string, string>, headers: Record<string, string | string[] | undefined>): boolean;
}
