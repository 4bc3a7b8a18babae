// The wall clock, as it was when the process loaded this module: a test's caps and polls keep its pace while the calls
// under test run on a scaled clock (test/helpers/scaled-clock.ts), which imports these so that it always has them.

export const wallClock = {
  now: Date.now,
  performanceNow: performance.now.bind(performance),
  setTimeout: globalThis.setTimeout,
  setInterval: globalThis.setInterval,
};
