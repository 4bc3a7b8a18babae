import type { CarrierAdapter } from './carrier.js';
import { twilioCarrier } from './twilio/adapter.js';

// The carriers a phone connection can be of, besides a SIP trunk. A new carrier is an adapter added here.

const CARRIERS: Record<string, CarrierAdapter> = { twilio: twilioCarrier };

/** The adapter of a connection's kind; undefined for a SIP trunk, which LiveKit dials. */
export function carrierOfKind(kind: string): CarrierAdapter | undefined {
  return CARRIERS[kind];
}
