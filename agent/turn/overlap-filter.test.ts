import { stt } from '@livekit/agents';
import { describe, expect, it, vi } from 'vitest';
import { OverlapFilter } from './overlap-filter.js';

const words = (type: stt.SpeechEventType, text: string): stt.SpeechEvent => ({
  type,
  alternatives: [{ text, language: 'en' as never, startTime: 0, endTime: 0, confidence: 1 }],
});
const final = (text: string) => words(stt.SpeechEventType.FINAL_TRANSCRIPT, text);
const interim = (text: string) => words(stt.SpeechEventType.INTERIM_TRANSCRIPT, text);

function filter(options: { minWords?: number; replyActive?: boolean } = {}) {
  const onDropped = vi.fn();
  let active = options.replyActive ?? true;
  const f = new OverlapFilter({ minWords: options.minWords ?? 1, replyActive: () => active, onDropped });
  return { f, onDropped, endReply: () => void (active = false) };
}

describe('the overlap filter', () => {
  it('passes every word of an utterance that began while the assistant was silent', () => {
    const { f } = filter();
    f.callerStarted(false);
    expect(f.accept(final('yeah'))).toHaveLength(1);
  });

  it('drops a backchannel said over the reply once the caller stops, and says so', () => {
    const { f, onDropped } = filter();
    f.callerStarted(true);
    expect(f.accept(interim('mm'))).toEqual([]);
    expect(f.accept(final('mm-hmm'))).toEqual([]);
    expect(f.callerStopped()).toEqual([]);
    expect(onDropped).toHaveBeenCalledOnce();
    // The next utterance, over silence, is a turn again.
    f.callerStarted(false);
    expect(f.accept(final('what time is it?'))).toHaveLength(1);
  });

  it('settles a backchannel whose final words come after the caller stopped', () => {
    const { f, onDropped } = filter();
    f.callerStarted(true);
    expect(f.callerStopped()).toEqual([]);
    expect(onDropped).not.toHaveBeenCalled();
    expect(f.accept(final('okay'))).toEqual([]);
    expect(onDropped).toHaveBeenCalledOnce();
  });

  it('releases the held words in order as soon as they say something', () => {
    const { f, onDropped } = filter();
    f.callerStarted(true);
    const first = interim('yeah');
    const second = interim('yeah but wait');
    expect(f.accept(first)).toEqual([]);
    expect(f.accept(second)).toEqual([first, second]);
    // The rest of the utterance follows as it comes.
    const rest = final('yeah but wait, that is wrong');
    expect(f.accept(rest)).toEqual([rest]);
    expect(onDropped).not.toHaveBeenCalled();
  });

  it('holds a barge-in until it has min_interruption_words words that are not acknowledgements', () => {
    const { f, onDropped } = filter({ minWords: 3 });
    f.callerStarted(true);
    expect(f.accept(final('okay, no'))).toEqual([]);
    f.callerStarted(true);
    const more = final('not that one');
    expect(f.accept(more)).toHaveLength(2);
    expect(onDropped).not.toHaveBeenCalled();
  });

  it('drops an utterance over the reply with fewer words than asked for', () => {
    const { f, onDropped } = filter({ minWords: 3 });
    f.callerStarted(true);
    f.accept(final('no'));
    f.callerStopped();
    expect(onDropped).toHaveBeenCalledWith(1);
  });

  it('releases a backchannel after all when the reply has ended meanwhile: it was an answer', () => {
    const { f, onDropped, endReply } = filter();
    f.callerStarted(true);
    const yeah = final('yeah');
    expect(f.accept(yeah)).toEqual([]);
    endReply();
    expect(f.callerStopped()).toEqual([yeah]);
    expect(onDropped).not.toHaveBeenCalled();
  });

  it('passes events other than words at once', () => {
    const { f } = filter();
    f.callerStarted(true);
    const end: stt.SpeechEvent = { type: stt.SpeechEventType.END_OF_SPEECH };
    expect(f.accept(end)).toEqual([end]);
  });
});
