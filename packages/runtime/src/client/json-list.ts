/**
 * Decodes a JSON list response (`{"apiVersion":…,"items":[…],"kind":…,"metadata":{…}}`) while it arrives: each
 * element of the top-level `items` array is parsed once the chunk holding its last byte is in (the elements whole
 * in one chunk with one `JSON.parse`), so the decoding of a big LIST overlaps its transfer, and the body is never held whole, neither as one buffer nor as one string (for 100,000
 * objects that is some 55 MB of each, plus the chunks it was joined from). Everything outside `items` (a few hundred
 * bytes) is kept as bytes and parsed at the end with `[]` in place of the items, which are then put back.
 *
 * The result is what `JSON.parse` of the whole body gives, for any JSON text: a body whose top level is not an object,
 * or has no `items` array, is simply parsed whole at the end (the same as before). Invalid JSON throws a
 * `SyntaxError` (from `JSON.parse`, or "Unexpected end of JSON input" when the body stops inside a value).
 * Structural characters are ASCII, and no byte of a multi-byte UTF-8 character is ASCII, so cutting the bytes at
 * element boundaries never splits a character; an element spread over several chunks is joined once. Separators
 * between elements are checked as `JSON.parse` would (a missing, leading or trailing comma is a SyntaxError).
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/** `items` as bytes: `"items"` including its quotes. */
const ITEMS_KEY = Buffer.from('"items"');

function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

function unexpected(b: number): SyntaxError {
  return new SyntaxError(`Unexpected token '${String.fromCharCode(b)}' in JSON`);
}

/** Incremental decoder of one list body: `push()` every chunk in order, then `end()` for the value. */
export class JsonListDecoder {
  /** Nesting depth outside strings: 1 inside the top-level object, 2 inside `items`, … */
  private depth = 0;
  private inString = false;
  /** The previous byte inside a string was an unescaped backslash. */
  private escaped = false;
  /** The top level is not an object: everything is kept and parsed at the end. */
  private whole = false;
  private started = false;
  /** Bytes of the body outside the items' elements (the list's skeleton). */
  private readonly skeleton: Buffer[] = [];
  /** The last string that ended at depth 1 (a key, when a ':' follows), as bytes; only while it is short. */
  private lastKey: Buffer[] = [];
  private lastKeyLength = 0;
  /** The string being read started at depth 1 (its bytes go to `lastKey`). */
  private inKey = false;
  /** Set by a ':' at depth 1 after the key `"items"`: the next value is the items array. */
  private itemsValueNext = false;
  /** Inside the top-level `items` array (depth 2 is its elements' level). */
  private inItems = false;
  private itemsSeen = false;
  /** Pieces of the element being read (when it spans chunks). */
  private element: Buffer[] = [];
  private inElement = false;
  /** The element is a scalar (ends at a ',' or ']' at depth 2). */
  private scalarElement = false;
  /** What may come next at the elements' level: after '[' either, after an element a ',' or ']', after ',' an element. */
  private expect: 'element-or-end' | 'comma-or-end' | 'element' = 'element-or-end';
  private readonly items: unknown[] = [];
  /** The complete elements of the current chunk not parsed yet: from `batchStart` to `batchEnd` (-1: none). */
  private batchStart = -1;
  private batchEnd = -1;

  push(chunk: Buffer): void {
    if (this.whole) {
      this.skeleton.push(chunk);
      return;
    }
    const n = chunk.length;
    let i = 0;
    if (!this.started) {
      while (i < n && isSpace(chunk[i]!)) i++;
      if (i === n) return;
      this.started = true;
      if (chunk[i] !== OPEN_BRACE) {
        this.whole = true;
        this.skeleton.push(chunk.subarray(i));
        return;
      }
    }
    /** Where the current run of skeleton bytes (or element bytes) in this chunk started. */
    let runStart = i;
    /** Where the depth-1 string being read started in this chunk (-1: none). */
    let keyStart = this.inString && this.inKey ? i : -1;
    /** The next backslash at or after `i` in this chunk (-1: none left); found lazily, once per backslash. */
    let backslash = -2;
    while (i < n) {
      if (this.inString) {
        if (this.escaped) {
          this.escaped = false;
          i++;
          continue;
        }
        // Jump to the closing quote, stepping over escapes (a backslash and the byte after it).
        const q = chunk.indexOf(QUOTE, i);
        if (backslash !== -1 && backslash < i) backslash = chunk.indexOf(BACKSLASH, i);
        if (backslash !== -1 && (q === -1 || backslash < q)) {
          i = backslash + 1;
          this.escaped = true;
          continue;
        }
        if (q === -1) {
          i = n;
          break;
        }
        this.inString = false;
        i = q + 1;
        if (keyStart >= 0) {
          this.keyPiece(chunk.subarray(keyStart, i));
          keyStart = -1;
          this.inKey = false;
        }
        continue;
      }
      const b = chunk[i]!;
      if (b === QUOTE) {
        this.inString = true;
        if (this.depth === 1) {
          // A string at depth 1 is a key (or a scalar value, which is never followed by ':').
          this.lastKey = [];
          this.lastKeyLength = 0;
          this.inKey = true;
          keyStart = i;
        } else if (this.inItems && this.depth === 2 && !this.inElement) {
          runStart = this.startElement(i, true);
        }
        i++;
        continue;
      }
      if (b === OPEN_BRACE || b === OPEN_BRACKET) {
        if (this.inItems && this.depth === 2 && !this.inElement) runStart = this.startElement(i, false);
        this.depth++;
        if (this.depth === 2) {
          if (b === OPEN_BRACKET && this.itemsValueNext) {
            // The top-level items array begins: its '[' ends a skeleton run.
            this.inItems = true;
            this.itemsSeen = true;
            this.expect = 'element-or-end';
            this.skeleton.push(chunk.subarray(runStart, i + 1));
            runStart = i + 1;
          }
          this.itemsValueNext = false;
        }
        i++;
        continue;
      }
      if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
        if (this.inItems && this.depth === 2) {
          // The items array closes (after a scalar element, possibly); the ']' starts a skeleton run.
          if (this.inElement) this.endElement(chunk, runStart, i);
          if (this.expect === 'element') throw unexpected(b);
          this.inItems = false;
          runStart = i;
        }
        this.depth--;
        if (this.depth < 0) throw unexpected(b);
        i++;
        if (this.inItems && this.depth === 2 && this.inElement && !this.scalarElement) {
          this.endElement(chunk, runStart, i);
          runStart = i;
        }
        continue;
      }
      if (this.depth === 1) {
        if (b === COLON) this.itemsValueNext = !this.itemsSeen && this.isItemsKey();
        else if (b === COMMA) this.itemsValueNext = false;
      } else if (this.inItems && this.depth === 2) {
        if (b === COMMA) {
          if (this.inElement) this.endElement(chunk, runStart, i);
          if (this.expect !== 'comma-or-end') throw unexpected(b);
          this.expect = 'element';
          runStart = i + 1;
        } else if (!this.inElement && !isSpace(b)) {
          runStart = this.startElement(i, true);
        }
      }
      i++;
    }
    this.flush(chunk);
    if (keyStart >= 0) this.keyPiece(chunk.subarray(keyStart, n));
    // Keep what this chunk holds of the current run: element bytes, or skeleton bytes (between elements: nothing).
    if (runStart < n) {
      if (!this.inItems) this.skeleton.push(chunk.subarray(runStart, n));
      else if (this.inElement) this.element.push(chunk.subarray(runStart, n));
    }
  }

  /** The decoded value (`undefined` for an empty body). */
  end(): unknown {
    if (!this.started) return undefined;
    if (this.whole || !this.itemsSeen) return JSON.parse(Buffer.concat(this.skeleton).toString('utf8'));
    if (this.depth !== 0 || this.inString || this.inItems) throw new SyntaxError('Unexpected end of JSON input');
    const list = JSON.parse(Buffer.concat(this.skeleton).toString('utf8')) as { items?: unknown };
    list.items = this.items;
    return list;
  }

  private keyPiece(piece: Buffer): void {
    this.lastKeyLength += piece.length;
    if (this.lastKeyLength <= ITEMS_KEY.length) this.lastKey.push(piece);
  }

  private isItemsKey(): boolean {
    return this.lastKeyLength === ITEMS_KEY.length && Buffer.concat(this.lastKey).equals(ITEMS_KEY);
  }

  /** An element of `items` (a scalar, or an object or array) begins at `at`; returns the new run start. */
  private startElement(at: number, scalar: boolean): number {
    if (this.expect === 'comma-or-end') throw new SyntaxError('Unexpected token in JSON: a \',\' is missing between two items');
    this.inElement = true;
    this.scalarElement = scalar;
    this.element = [];
    return at;
  }

  /**
   * The element that began at `runStart` (or in an earlier chunk) ends before `end`. One that began in this chunk
   * joins the chunk's batch (parsed in one go by `flush`); one spread over chunks is parsed now (it is the first to
   * end in this chunk, so the order is kept).
   */
  private endElement(chunk: Buffer, runStart: number, end: number): void {
    if (this.element.length === 0) {
      if (this.batchStart < 0) this.batchStart = runStart;
      this.batchEnd = end;
    } else {
      const bytes = Buffer.concat([...this.element, chunk.subarray(runStart, end)]);
      this.items.push(JSON.parse(bytes.toString('utf8')));
      this.element = [];
    }
    this.inElement = false;
    this.scalarElement = false;
    this.expect = 'comma-or-end';
  }

  /**
   * Parses the elements that began and ended in `chunk` with one `JSON.parse` (they are a valid array's content,
   * separators included), which costs less than a call per element.
   */
  private flush(chunk: Buffer): void {
    if (this.batchStart < 0) return;
    const batch = JSON.parse('[' + chunk.toString('utf8', this.batchStart, this.batchEnd) + ']') as unknown[];
    this.batchStart = -1;
    for (const item of batch) this.items.push(item);
  }
}
