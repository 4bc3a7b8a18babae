import type { TtsProvider } from './vendors.js';

// The voices offered by name in the assistant builder, per voice provider: the built-in voice's own, and a curated list
// of each vendor's stock voices (their catalogues hold hundreds, and any voice id of an account's library is accepted
// as typed). `voice_id` stores the id; Deepgram names a voice by its model.

export interface Voice {
  id: string;
  name: string;
  /** Accent and character, as a person choosing would want to know. */
  description: string;
  /** Where the vendor serves a short recording of the voice, when its catalogue names one (read server-side only). */
  previewUrl?: string;
}

export const VOICES: Record<TtsProvider, Voice[]> = {
  local: [
    { id: 'en-us', name: 'American English', description: 'The built-in voice, offline, no key' },
    { id: 'en', name: 'British English', description: 'Built-in' },
    { id: 'en-gb-scotland', name: 'Scottish English', description: 'Built-in' },
    { id: 'en-029', name: 'Caribbean English', description: 'Built-in' },
    { id: 'fr', name: 'French', description: 'Built-in' },
    { id: 'de', name: 'German', description: 'Built-in' },
    { id: 'es', name: 'Spanish', description: 'Built-in' },
    { id: 'it', name: 'Italian', description: 'Built-in' },
  ],
  elevenlabs: [
    { id: '21m00Tcm4TlvDq8ikWAM', name: 'Rachel', description: 'American, calm, female' },
    { id: 'EXAVITQu4vr4xnSDxMaL', name: 'Bella', description: 'American, soft, female' },
    { id: 'MF3mGyEYCl7XYWbV9V6O', name: 'Elli', description: 'American, young, female' },
    { id: 'pNInz6obpgDQGcFmaJgB', name: 'Adam', description: 'American, deep, male' },
    { id: 'ErXwobaYiN019PkySvjV', name: 'Antoni', description: 'American, warm, male' },
    { id: 'TxGEqnHWrfWFTfGW9XjX', name: 'Josh', description: 'American, young, male' },
  ],
  cartesia: [
    { id: 'a0e99841-438c-4a64-b679-ae501e7d6091', name: 'Barbershop Man', description: 'American, conversational, male' },
    { id: '15a9cd88-84b0-4a8b-95f2-5d583b54c72e', name: 'Reading Lady', description: 'American, clear, female' },
    { id: '71a7ad14-091c-4e8e-a314-022ece01c121', name: 'British Reading Lady', description: 'British, female' },
    { id: 'd46abd1d-2d02-43e8-819f-51fb652c1c61', name: 'Newsman', description: 'American, announcer, male' },
    { id: 'e00d0e4c-a5c8-443f-a8a3-473eb9a62355', name: 'Friendly Sidekick', description: 'American, upbeat' },
    { id: '3b554273-4299-48b9-9aaf-eefd438e3941', name: 'Indian Lady', description: 'Indian English, female' },
    { id: 'a249eaff-1e96-4d2c-b23b-12efa4f66f41', name: 'French Conversational Lady', description: 'French, female' },
    { id: '3f4ade23-6eb4-4279-ab05-6a144947c4d5', name: 'German Conversational Woman', description: 'German, female' },
  ],
  deepgram: [
    { id: 'aura-2-thalia-en', name: 'Thalia', description: 'American, clear, female' },
    { id: 'aura-2-andromeda-en', name: 'Andromeda', description: 'American, casual, female' },
    { id: 'aura-2-helena-en', name: 'Helena', description: 'American, caring, female' },
    { id: 'aura-2-apollo-en', name: 'Apollo', description: 'American, confident, male' },
    { id: 'aura-2-arcas-en', name: 'Arcas', description: 'American, natural, male' },
    { id: 'aura-2-orion-en', name: 'Orion', description: 'American, calm, male' },
  ],
};

/** The voice a provider uses when the assistant names none. */
export const DEFAULT_VOICE: Partial<Record<TtsProvider, string>> = { local: 'en-us' };
