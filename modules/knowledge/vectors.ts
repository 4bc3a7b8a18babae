// Vectors as stored (chunk_embeddings.embedding): float32, little-endian, L2-normalised, so a dot product is the cosine.
// Every platform Node ships for is little-endian, so a Float32Array's own bytes are the stored form.

export function toBytes(vector: Float32Array): Uint8Array<ArrayBuffer> {
  const copy = new Float32Array(vector);
  return new Uint8Array(copy.buffer);
}

export function fromBytes(bytes: Uint8Array): Float32Array {
  // A fresh, aligned copy: the driver's buffer may start at an odd offset of a shared pool.
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return new Float32Array(copy.buffer);
}

export function normalised(vector: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  const norm = Math.sqrt(sum);
  if (norm === 0 || Math.abs(norm - 1) < 1e-6) return vector;
  const out = new Float32Array(vector.length);
  for (let i = 0; i < vector.length; i++) out[i] = vector[i]! / norm;
  return out;
}

/** The text a chunk is embedded as: its headings first, since they say what the passage is about. */
export function embeddingText(chunk: { headingPath: string[]; content: string }): string {
  return chunk.headingPath.length > 0 ? `${chunk.headingPath.join(' > ')}\n\n${chunk.content}` : chunk.content;
}
