// A labelled set of what the callee side says first when an outbound call is answered: people picking up, voicemail
// greetings with and without a beep, IVR menus, and the carrier's "not available" messages. Spoken by espeak-ng with
// varied voices, speeds and pitches (bench/campaigns/voicemail-detector.ts); the texts are written for this set.

export type OpeningKind = 'human' | 'voicemail' | 'voicemail_no_beep' | 'ivr' | 'unavailable';

export interface Opening {
  kind: OpeningKind;
  text: string;
  /** Written after the detector's phrases and thresholds were chosen: the openings it was not shaped on. */
  heldOut: boolean;
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
  // Written after the detector's phrases were chosen, to measure it on openings it was not shaped on.
  'Hello, Northside Plumbing, Alex speaking, what can I do for you?',
  "Good afternoon, you're through to the front desk, how may I help?",
  'Hi, this is Laura, who am I talking to?',
  'Hello? Hello? Can you hear me?',
  'Oh, hi. Yes, this is she.',
  'Thank you for calling Green Valley Vet, this is Nina, how can I help you today?',
  'Yeah, go ahead.',
  'Hello, accounts department.',
  'Hi, sorry, I was just driving. Who is this?',
  'Hello, this is Doctor Patel.',
  "Morning! Dave's Garage.",
  'Hello, yes, speaking.',
  'Hi, is this about the delivery?',
  'Hello, Carter Law Office, Emma speaking.',
  'Yes, good morning, how can I help?',
  'Hi. Who is calling, please?',
  "Hello, it's Ben, I'm a bit busy, what is it?",
  'Good evening, Lopez residence, this is Carmen.',
  'Mm, hello?',
  'Hello, thank you for calling Summit Realty, this is Grace, how may I direct your call?',
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
  // Written after the detector's phrases were chosen.
  "Hi, this is Olivia. I'm not available right now, but if you leave your name and number I'll call you back.",
  "You've reached Northside Plumbing. We're unable to take your call. Please leave a message after the tone.",
  'This is Ben. Leave a message.',
  "Hey, it's Grace. You know what to do.",
  'Please record your message after the tone. To re-record, press star.',
  'Hello, you have reached the office of Doctor Patel. Our office hours are nine to five. Please leave a detailed message.',
  "Hi, this is Nina. I can't pick up right now. Text me or leave a voicemail.",
  "Sorry, I'm away from my desk. Please leave your name, number and a short message, and I will get back to you.",
  'The mailbox of Carmen Lopez is full and cannot accept new messages.',
  "Hi, you've got Alex. Leave me a message.",
];

const ivr = [
  'Thank you for calling Acme Bank. For account balances, press one. For customer service, press two.',
  'Welcome to City Hospital. If this is a medical emergency, please hang up and dial nine one one.',
  'Thank you for calling. Your call may be recorded for quality purposes. Please listen carefully as our menu options have changed.',
  'Hello, and welcome to the support line. Please say or enter your account number, followed by the pound key.',
  'For English, press one. Para espanol, oprima el dos.',
  // Written after the detector's phrases were chosen.
  "Welcome to Summit Realty. If you know your party's extension, you may dial it at any time.",
  'Thank you for calling Green Valley Vet. All of our staff are currently helping other clients. Please stay on the line.',
  'You have reached the automated payment line. Please have your card ready.',
];

const unavailable = [
  'The person you are calling is not available. Please try again later.',
  'The number you have dialed is not in service. Please check the number and try again.',
  'The wireless customer you are calling is not available at this time.',
  'Your call cannot be completed as dialed. Please check the number and dial again.',
  'The subscriber you have called is unavailable. Please try again later.',
  // Written after the detector's phrases were chosen.
  'We are sorry, the number you have reached has been disconnected.',
  'The call could not be connected. Please hang up and try again.',
];

/** How many of each list were written before the detector's phrases were chosen; those after are held out. */
const FIRST_WRITTEN = { human: 32, voicemail: 15, ivr: 5, unavailable: 5 };

const label = (kind: OpeningKind, texts: string[], firstWritten: number): Opening[] => texts.map((text, i) => ({ kind, text, heldOut: i >= firstWritten }));

export const OPENINGS: Opening[] = [
  ...label('human', human, FIRST_WRITTEN.human),
  ...label('voicemail', voicemail, FIRST_WRITTEN.voicemail),
  // The same greetings on machines that do not beep.
  ...label('voicemail_no_beep', voicemail.slice(0, 5), 5),
  ...label('ivr', ivr, FIRST_WRITTEN.ivr),
  ...label('unavailable', unavailable, FIRST_WRITTEN.unavailable),
];
