/**
 * Splits a byte stream of newline-delimited JSON (a watch response body) into parsed values as they arrive.
 * Chunk boundaries may fall anywhere, including inside a multi-byte UTF-8 character: lines are joined as bytes
 * and decoded once. A line spread over many chunks is concatenated once (no quadratic re-copying), and each line
 * is parsed exactly once. Blank lines are skipped; a final line without a trailing newline is still parsed.
 */

const NEWLINE = 0x0a;

/** Yields one parsed JSON value per line of `chunks`. A line that is not valid JSON throws a `SyntaxError`. */
export async function* parseJsonLines(chunks: AsyncIterable<Buffer | Uint8Array | string>): AsyncGenerator<unknown, void, undefined> {
  let pending: Buffer[] = [];
  for await (const raw of chunks) {
    const chunk = typeof raw === 'string' ? Buffer.from(raw, 'utf8') : Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(NEWLINE, start);
      if (nl === -1) {
        if (start < chunk.length) pending.push(start === 0 ? chunk : chunk.subarray(start));
        break;
      }
      const head = chunk.subarray(start, nl);
      const line = pending.length === 0 ? head : Buffer.concat([...pending, head]);
      pending = [];
      start = nl + 1;
      const value = parseLine(line);
      if (value !== undefined) yield value;
    }
  }
  if (pending.length > 0) {
    const value = parseLine(Buffer.concat(pending));
    if (value !== undefined) yield value;
  }
}

function parseLine(line: Buffer): unknown {
  if (line.length === 0) return undefined;
  const text = line.toString('utf8');
  // A JSON value is never shorter than one character; only short lines can be blank (e.g. a lone "\r").
  if (line.length <= 4 && text.trim() === '') return undefined;
  return JSON.parse(text);
}
