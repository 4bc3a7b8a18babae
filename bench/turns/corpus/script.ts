// The turn-taking corpus as it is spoken: what each caller says, phrase by phrase, and the silence put between the
// phrases. Each phrase is rendered on its own by an offline voice and the silences are inserted as zeros, so a pause's
// place and length are exact labels; where speech starts and ends inside a phrase is measured on the rendered audio
// (render.ts). The measured labels of every item in every voice are in manifest.json (generate.ts writes it).

export type Engine = 'espeak' | 'flite';

export interface VoiceSpec {
  id: string;
  engine: Engine;
  /** espeak-ng voice with its variant (`en-us+m3`), or a flite voice name. */
  voice: string;
  /** espeak-ng only: words per minute (its default is 175) and pitch (0-99, default 50). */
  wordsPerMinute?: number;
  pitch?: number;
}

/**
 * Ten voices: espeak-ng in two accents, male and female variants, slow and fast; flite's four 16 kHz voices (Debian
 * `flite`). SVOX Pico is not among them: Debian ships it only in non-free, which this machine's sources leave out.
 */
export const VOICES: VoiceSpec[] = [
  { id: 'espeak-en-us', engine: 'espeak', voice: 'en-us', wordsPerMinute: 175, pitch: 50 },
  { id: 'espeak-en-gb', engine: 'espeak', voice: 'en-gb', wordsPerMinute: 160, pitch: 45 },
  { id: 'espeak-en-us-m3', engine: 'espeak', voice: 'en-us+m3', wordsPerMinute: 150, pitch: 40 },
  { id: 'espeak-en-gb-f2', engine: 'espeak', voice: 'en-gb+f2', wordsPerMinute: 170, pitch: 60 },
  { id: 'espeak-en-us-f4-slow', engine: 'espeak', voice: 'en-us+f4', wordsPerMinute: 135, pitch: 65 },
  { id: 'espeak-en-gb-rp-m7-fast', engine: 'espeak', voice: 'en-gb-x-rp+m7', wordsPerMinute: 195, pitch: 35 },
  { id: 'flite-slt', engine: 'flite', voice: 'slt' },
  { id: 'flite-rms', engine: 'flite', voice: 'rms' },
  { id: 'flite-awb', engine: 'flite', voice: 'awb' },
  { id: 'flite-kal16', engine: 'flite', voice: 'kal16' },
];

/**
 * Leading silence before an item's first voiced sample, ms. The VAD judges 32 ms windows and the end-of-turn model
 * reads audio in its own frames, so moving the same speech by a few ms can change a verdict: each item is played at
 * these offsets.
 */
export const OFFSETS_MS = [0, 8, 13, 21];

export type ItemKind = 'pauses' | 'complete' | 'backchannel' | 'barge_in';

export interface Phrase {
  /** The words, as a recogniser would give them when the phrase ends. */
  text: string;
  /** What an engine is given instead, where it would misread the words (espeak-ng phoneme input is `[[...]]`). */
  spoken?: Partial<Record<Engine, string>>;
}

export interface ScriptItem {
  id: string;
  kind: ItemKind;
  /** `pauses` items: what the caller is giving (phone number, email, code, list, hesitation). */
  topic?: string;
  phrases: Phrase[];
  /**
   * Silence inserted after each phrase but the last, ms. In `pauses` items each is a pause inside the caller's turn:
   * the turn is not over, and a reply there cuts the caller off.
   */
  pausesMs: number[];
}

const p = (text: string, spoken?: Phrase['spoken']): Phrase => (spoken ? { text, spoken } : { text });

/** Pauses of 0.5 to 1.2 s inside a turn, at the places people pause when they read out or think. */
const PAUSE_ITEMS: ScriptItem[] = [
  { id: 'phone-415', topic: 'phone', phrases: [p('my number is four one five'), p('five five five'), p('two six seven one')], pausesMs: [700, 900] },
  { id: 'phone-650', topic: 'phone', phrases: [p('you can reach me at six five zero'), p('three two one'), p('four four zero nine')], pausesMs: [600, 1100] },
  { id: 'email-john', topic: 'email', phrases: [p("it's john"), p('dot'), p('smith at gmail dot com')], pausesMs: [800, 600] },
  { id: 'email-sarah', topic: 'email', phrases: [p('my email is sarah'), p('underscore'), p('lee at outlook dot com')], pausesMs: [1000, 500] },
  { id: 'code-a7b9', topic: 'code', phrases: [p('the code is A'), p('seven'), p('B'), p('nine')], pausesMs: [600, 700, 900] },
  { id: 'code-x4k2', topic: 'code', phrases: [p('my booking reference is X'), p('four'), p('K'), p('two')], pausesMs: [900, 500, 1200] },
  { id: 'list-eggs', topic: 'list', phrases: [p('I need eggs,'), p('milk,'), p('and bread')], pausesMs: [700, 1000] },
  { id: 'list-apples', topic: 'list', phrases: [p('can you add apples,'), p('bananas,'), p('and some orange juice')], pausesMs: [500, 800] },
  { id: 'hesitation-table', topic: 'hesitation', phrases: [p("I'd like to book a table for"), p('um'), p('four people')], pausesMs: [1200, 600] },
  { id: 'hesitation-thursday', topic: 'hesitation', phrases: [p("we're arriving on"), p('uh'), p('Thursday, I think')], pausesMs: [900, 700] },
  { id: 'date-birth', topic: 'date', phrases: [p('my date of birth is March'), p('third'), p('nineteen eighty five')], pausesMs: [800, 1100] },
].map((item) => ({ ...item, kind: 'pauses' as const }));

/** Finished questions and answers: the turn is over at the end of speech. */
const COMPLETE_ITEMS: ScriptItem[] = [
  'What time do you open tomorrow?',
  'Can I change my appointment to Friday?',
  'Yes, that works for me.',
  "No, I don't need anything else, thank you.",
  'How much does the premium plan cost?',
  'My name is David Miller.',
  "I'd like to cancel my order.",
  "That's all, goodbye.",
  'Do you deliver on Sundays?',
  'Please send it to my office.',
].map((text, i) => ({ id: `complete-${i + 1}`, kind: 'complete' as const, phrases: [p(text)], pausesMs: [] }));

/**
 * Said over the assistant's reply to show the caller is listening; the reply should go on. espeak-ng spells "mm-hmm"
 * out letter by letter and flite reads it as a word of three syllables, hence the spoken forms.
 */
const BACKCHANNEL_ITEMS: ScriptItem[] = [
  p('mm-hmm', { espeak: "[[m@m'h@m]]", flite: 'uh hum' }),
  p('yeah'),
  p('okay'),
  p('uh huh'),
  p('right'),
  p('I see'),
].map((phrase, i) => ({ id: `backchannel-${i + 1}`, kind: 'backchannel' as const, phrases: [phrase], pausesMs: [] }));

/**
 * Real words over the reply: the reply should stop. Split where a recogniser would have given the first words (a
 * streaming one gives them within a word or two), with the short gaps of connected speech.
 */
const BARGE_IN_ITEMS: ScriptItem[] = [
  { id: 'barge-in-stop', phrases: [p('wait,'), p('stop,'), p("that's wrong")], pausesMs: [120, 150] },
  { id: 'barge-in-tuesday', phrases: [p('no no,'), p('I said Tuesday')], pausesMs: [150] },
  { id: 'barge-in-address', phrases: [p('hold on,'), p("that's not my address")], pausesMs: [130] },
  { id: 'barge-in-repeat', phrases: [p('sorry,'), p('can you say that again')], pausesMs: [140] },
].map((item) => ({ ...item, kind: 'barge_in' as const }));

export const SCRIPT: ScriptItem[] = [...PAUSE_ITEMS, ...COMPLETE_ITEMS, ...BACKCHANNEL_ITEMS, ...BARGE_IN_ITEMS];

/** The question each backchannel and barge-in run starts with, so that the assistant is replying when they come. */
export const LEAD_QUESTION_ID = 'complete-1';
