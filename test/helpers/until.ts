/** Polls `read` until it gives a truthy value, which it returns; fails after `timeoutMs`. */
export async function until<T>(read: () => Promise<T | null | undefined | false>, timeoutMs = 5000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
