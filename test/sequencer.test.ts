import { describe, expect, it } from 'vitest';
import { planOrder } from './sequencer.js';

const BUSY = ['test/dashboard/pages.test.ts', 'test/startup/signals.test.ts', 'test/service-start.test.ts'];
const WAITING = ['test/runtime/call-transfer.test.ts', 'test/runtime/call-timeline.test.ts', 'test/knowledge/url-source.test.ts'];

describe('the order test files start in', () => {
  it('starts one busy file beside the longest waiting ones, and the next busy file when a slot frees', () => {
    const order = planOrder([...WAITING, 'lib/markup.test.ts', ...BUSY], (f) => f, 3, undefined, 1);
    expect(order.slice(0, 3)).toEqual(['test/dashboard/pages.test.ts', 'test/knowledge/url-source.test.ts', 'test/runtime/call-transfer.test.ts']);
    // The waiting files run out before the page tour ends: the other busy files follow in the slots that free.
    expect(order).toHaveLength(7);
    expect(new Set(order)).toEqual(new Set([...WAITING, 'lib/markup.test.ts', ...BUSY]));
    expect(order.indexOf('test/startup/signals.test.ts')).toBeLessThan(order.indexOf('test/service-start.test.ts'));
  });

  it('starts as many busy files at once as it is told, beside the longest waiting ones', () => {
    const order = planOrder([...WAITING, 'lib/markup.test.ts', ...BUSY], (f) => f, 4, undefined, 2);
    expect(order.slice(0, 4)).toEqual([
      'test/dashboard/pages.test.ts',
      'test/startup/signals.test.ts',
      'test/knowledge/url-source.test.ts',
      'test/runtime/call-transfer.test.ts',
    ]);
  });

  it('runs every file on one worker, longest first after the busy ones allowed at once', () => {
    const order = planOrder(['lib/markup.test.ts', 'test/runtime/call-timeline.test.ts', 'test/startup/signals.test.ts'], (f) => f, 1);
    expect(order).toEqual(['test/startup/signals.test.ts', 'test/runtime/call-timeline.test.ts', 'lib/markup.test.ts']);
  });

  it('starts the files that get a process each after the others, together, longest first', () => {
    const own = new Set(['test/knowledge/search.test.ts', 'test/knowledge/url-source.test.ts']);
    const order = planOrder(
      ['test/startup/signals.test.ts', 'test/knowledge/search.test.ts', 'test/knowledge/url-source.test.ts'],
      (f) => f,
      3,
      (f) => own.has(f),
    );
    expect(order).toEqual(['test/startup/signals.test.ts', 'test/knowledge/url-source.test.ts', 'test/knowledge/search.test.ts']);
  });
});
