// How late a process's audio frames have left over the last few seconds, kept as counts per lateness band in one slot
// per second: recording is two array writes per tick, and the p95 over the window is a walk over 10 x 9 counts.

/** Upper bounds (ms) of the bands; the last band takes everything later. */
const BANDS_MS = [5, 10, 20, 30, 40, 60, 100, 200, Infinity];
const SLOT_MS = 1_000;

export class LatenessWindow {
  readonly #slots: Uint32Array[];
  readonly #slotStart: number[];
  readonly #windowMs: number;
  readonly #now: () => number;

  constructor(windowMs = 10_000, now: () => number = () => performance.now()) {
    const slots = Math.max(1, Math.round(windowMs / SLOT_MS));
    this.#windowMs = slots * SLOT_MS;
    this.#slots = Array.from({ length: slots }, () => new Uint32Array(BANDS_MS.length));
    this.#slotStart = new Array<number>(slots).fill(-Infinity);
    this.#now = now;
  }

  record(lateMs: number): void {
    const now = this.#now();
    const index = Math.floor(now / SLOT_MS) % this.#slots.length;
    const start = Math.floor(now / SLOT_MS) * SLOT_MS;
    if (this.#slotStart[index] !== start) {
      this.#slots[index]!.fill(0);
      this.#slotStart[index] = start;
    }
    let band = 0;
    while (lateMs > BANDS_MS[band]!) band++;
    this.#slots[index]![band]!++;
  }

  /**
   * The lateness (ms, a band's upper bound) that 95 % of the window's frames were within, with how many frames the
   * window holds; 0 and 0 when no audio played.
   */
  p95(): { ms: number; frames: number } {
    const since = this.#now() - this.#windowMs;
    const counts = new Array<number>(BANDS_MS.length).fill(0);
    let frames = 0;
    this.#slots.forEach((slot, i) => {
      if (this.#slotStart[i]! + SLOT_MS <= since) return;
      slot.forEach((n, band) => {
        counts[band] = counts[band]! + n;
        frames += n;
      });
    });
    if (frames === 0) return { ms: 0, frames: 0 };
    let seen = 0;
    for (let band = 0; band < BANDS_MS.length; band++) {
      seen += counts[band]!;
      if (seen >= frames * 0.95) return { ms: Math.min(BANDS_MS[band]!, 1_000), frames };
    }
    return { ms: 1_000, frames };
  }
}
