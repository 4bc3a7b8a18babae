// The words of answering machines: voicemail greetings, IVR menus and the network's announcements say these, people
// picking up a call do not. Written from the stock greetings of carriers' voicemail and of PBX auto-attendants, not
// from the labelled set the detector is measured on (bench/campaigns/openings.ts). Most are phrases, so that "Hi, can
// I help you?" or "this is Tom" never match; a few words are machines' alone in the first seconds of a call ("message",
// "beep", "voicemail"), and they matter because a streaming recogniser misses one word in seven or so, which breaks a
// phrase ("leave a message" heard as "leave a") but rarely every word of one.

const PATTERNS: RegExp[] = [
  // Voicemail.
  /\bleave (a|your|me a|us a|the) (brief |short |detailed )?(message|name|number|details|voicemail)/,
  /\b(after|at) the (beep|tone|signal)/,
  /\b(you'?ve|you have|you) reached\b/,
  /\b(is|are|am|i'?m|we'?re) (not |un)available\b/,
  /\b(isn'?t|aren'?t) available\b/,
  /\b(can'?t|cannot|can not|unable to|not able to) (take|answer|come to|get to|pick up)\b/,
  /\bvoice ?mail\b/,
  /\bmail ?box\b/,
  /\bmessages?\b/,
  /\b(beep|tone)\b/,
  /\b(have|you) reached\b/,
  /\bunavailable\b/,
  /\b(get|call|ring) (back to you|you back)\b/,
  /\baway from (my|the|our) (phone|desk)\b/,
  /\bout of (the|my) office\b/,
  /\b(our|the) office is (now )?closed\b/,
  /\brecord your message\b/,
  /\bwhen you (are|have) finished\b/,
  // Menus.
  /\bpress (one|two|three|four|five|six|seven|eight|nine|zero|star|pound|hash|\d)\b/,
  /\b(say or enter|enter or say)\b/,
  /\bmenu options\b/,
  /\bfollowed by the (pound|hash)\b/,
  /\bmay be (recorded|monitored)\b/,
  /\bplease (stay on|hold) the line\b/,
  /\bhang up and dial\b/,
  /\bpara espa/,
  // The network's announcements.
  /\b(not|no longer) in service\b/,
  /\b(dialed|dialled|disconnected)\b/,
  /\bcannot be completed\b/,
  /\b(please )?try (again|your call again) later\b/,
  /\b(number|person|party|customer|subscriber) you (are calling|have (called|dialed|dialled))\b/,
];

/** Lowercase words and apostrophes, one space apart: how a recogniser's text is compared. */
export function normalizeHeard(text: string): string {
  return text
    .toLowerCase()
    .replace(/[’‘]/g, "'")
    .replace(/[^a-z0-9' ]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The machine's phrase in `text`, or null when it has none. */
export function machinePhrase(text: string): string | null {
  const heard = normalizeHeard(text);
  for (const pattern of PATTERNS) {
    const match = pattern.exec(heard);
    if (match) return match[0];
  }
  return null;
}
