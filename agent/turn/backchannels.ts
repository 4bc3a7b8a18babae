// What a caller says over the assistant to show they are listening, not to take the turn: "mm-hmm", "yeah", "okay",
// "right", "I see". Words like these, and only these, said while the assistant speaks, are a backchannel: the reply
// goes on. The same words as an answer (after a question, when the assistant has stopped) are a turn like any other;
// telling the two apart is the overlap filter's (agent/turn/overlap-filter.ts).

/** Single words that acknowledge; recognisers spell the hums many ways ("mhm", "mm-hmm", "uh-huh", "hmm"). */
const ACKNOWLEDGING_WORDS = new Set([
  'yeah',
  'yea',
  'yep',
  'yup',
  'yes',
  'ya',
  'okay',
  'ok',
  'k',
  'right',
  'sure',
  'alright',
  'cool',
  'great',
  'good',
  'fine',
  'nice',
  'wow',
  'oh',
  'ah',
  'aha',
  'uh',
  'huh',
  'um',
  'hm',
  'hmm',
  'mm',
  'mhm',
  'mmhmm',
  'mmm',
  'uhhuh',
  'uhuh',
  'gotcha',
  'totally',
  'exactly',
  'absolutely',
  'indeed',
  'true',
  'really',
  'interesting',
  'perfect',
]);

/** Two- and three-word acknowledgements, joined by a space once the text is normalised. */
const ACKNOWLEDGING_PHRASES = new Set([
  'i see',
  'got it',
  'i got it',
  'makes sense',
  'that makes sense',
  'of course',
  'all right',
  'i know',
  'i understand',
  'sounds good',
  'that sounds good',
  'go on',
  'go ahead',
  'uh huh',
  'mm hmm',
  'uh hum',
  'oh okay',
  'oh ok',
  'okay okay',
  'yeah yeah',
  'right right',
  'oh really',
  'oh wow',
  'oh i see',
  'ah i see',
  'i see i see',
  'okay sure',
  'yes yes',
  'that is right',
  "that's right",
  'thats right',
  'fair enough',
  'no way',
  'oh right',
  'yeah right',
  'ok got it',
  'okay got it',
  'yeah sure',
  'yes sure',
  'okay great',
  'ok great',
  'great thanks',
  'okay thanks',
  'thank you',
]);

/** The text as lower-case words, hums joined ("mm-hmm" -> "mm hmm" -> one phrase). */
export function wordsOf(text: string): string[] {
  return (
    text
      .toLowerCase()
      .replace(/[-_]/g, ' ')
      .match(/[a-z0-9']+/g) ?? []
  );
}

/**
 * The words of `text` that are not acknowledgements, in order: greedy over the known phrases, longest first. Empty
 * for a pure backchannel ("mm-hmm", "yeah, I see"); "yeah but wait" leaves ["but", "wait"].
 */
export function substantiveWords(text: string): string[] {
  const words = wordsOf(text);
  const rest: string[] = [];
  for (let i = 0; i < words.length;) {
    const three = words.slice(i, i + 3).join(' ');
    const two = words.slice(i, i + 2).join(' ');
    if (i + 3 <= words.length && ACKNOWLEDGING_PHRASES.has(three)) i += 3;
    else if (i + 2 <= words.length && ACKNOWLEDGING_PHRASES.has(two)) i += 2;
    else if (ACKNOWLEDGING_WORDS.has(words[i]!)) i += 1;
    else rest.push(words[i++]!);
  }
  return rest;
}

/** Whether `text` only acknowledges (and says something). */
export function isBackchannel(text: string): boolean {
  return wordsOf(text).length > 0 && substantiveWords(text).length === 0;
}
