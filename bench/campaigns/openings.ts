// A labelled set of what the callee side says first when an outbound call is answered: people picking up, voicemail
// greetings with and without a beep, IVR menus, and the carrier's "not available" messages. Spoken by espeak-ng with
// varied voices, speeds and pitches (bench/campaigns/voicemail-detector.ts); the texts are written for this set.

export type OpeningKind = 'human' | 'voicemail' | 'voicemail_no_beep' | 'ivr' | 'unavailable';

export interface Opening {
  kind: OpeningKind;
  text: string;
}

const human = [
  'Hello?',
  'Hello.',
  'Hi.',
  'Yeah?',
  'Yes, hello?',
  'Hi, this is Sam.',
  'Hello, who is this?',
  'Speaking.',
  'Good morning.',
  'Hey.',
  'Hello, Maria speaking.',
  'Yes?',
  'Hi there.',
  'This is John.',
  'Good afternoon, Smith residence.',
  'Uh, hello?',
  "Hi, it's Kate.",
  'Yeah, hello.',
  'Hello, Acme Dental.',
  'Hi, who am I speaking with?',
  'Hello, this is Mark.',
  'Good evening.',
  "Yes, what's up?",
  'Hello, Jenny here.',
  'Hi, can I help you?',
  'Morning, this is Dave.',
  'Hello, Brown household.',
  'Yep?',
  "Hello, it's Priya.",
  'Hi, yes?',
  'Good morning, Acme Dental, how can I help you?',
  "Hello, thanks for calling Rosa's Bakery, this is Tom.",
];

const voicemail = [
  "Hi, you've reached John. I can't take your call right now. Please leave a message after the beep.",
  'Hello, this is Maria. Leave your name and number and I will call you back.',
  "You've reached the voicemail of Dave Brown. Please leave a message after the tone.",
  "Hi, it's Kate. Sorry I missed you. Leave a message and I'll get back to you as soon as I can.",
  'The person at extension two four one is not available. Please leave a message after the tone.',
  "Hey, this is Sam. I'm away from my phone. Leave a message.",
  "Hello, you've reached the Smith residence. We can't come to the phone right now, please leave a message.",
  'Thank you for calling Acme Dental. Our office is closed. Please leave a message and we will return your call.',
  'This is Priya. I am in a meeting. Please leave your message after the beep.',
  "Hi, you've reached Mark's phone. Leave a message and have a great day.",
  'Please leave your message for Jenny after the tone. When you are finished, you may hang up.',
  "Hello. I can't answer right now. Leave a message.",
  "Hi, this is Tom from Rosa's Bakery. I'm out delivering. Leave a message and I'll call you back today.",
  'You have reached four one five, five five five, zero one two three. Please leave a message.',
  'Hi, leave a message.',
];

const ivr = [
  'Thank you for calling Acme Bank. For account balances, press one. For customer service, press two.',
  'Welcome to City Hospital. If this is a medical emergency, please hang up and dial nine one one.',
  'Thank you for calling. Your call may be recorded for quality purposes. Please listen carefully as our menu options have changed.',
  'Hello, and welcome to the support line. Please say or enter your account number, followed by the pound key.',
  'For English, press one. Para espanol, oprima el dos.',
];

const unavailable = [
  'The person you are calling is not available. Please try again later.',
  'The number you have dialed is not in service. Please check the number and try again.',
  'The wireless customer you are calling is not available at this time.',
  'Your call cannot be completed as dialed. Please check the number and dial again.',
  'The subscriber you have called is unavailable. Please try again later.',
];

export const OPENINGS: Opening[] = [
  ...human.map((text) => ({ kind: 'human' as const, text })),
  ...voicemail.map((text) => ({ kind: 'voicemail' as const, text })),
  // The same greetings on machines that do not beep.
  ...voicemail.slice(0, 5).map((text) => ({ kind: 'voicemail_no_beep' as const, text })),
  ...ivr.map((text) => ({ kind: 'ivr' as const, text })),
  ...unavailable.map((text) => ({ kind: 'unavailable' as const, text })),
];
