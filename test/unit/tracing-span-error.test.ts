/**
 * recordSpanError (packages/runtime/src/tracing/span-error.ts): the one way the client, reconcile, list and watch
 * spans record an error — `error.type`, an `exception` event and status ERROR — read back from the SDK's spans.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as api from '@opentelemetry/api';
import { recordSpanError } from '@kubegen/runtime/internal/tracing/span-error.js';
import { inMemoryTracing } from '../support/in-memory-tracing.js';

describe('recordSpanError', () => {
  const { exporter, provider } = inMemoryTracing();

  it('records an Error: its name as error.type, an exception event, status ERROR with its message', () => {
    exporter.reset();
    const span = provider.getTracer('t').startSpan('s');
    const err = new TypeError('bad input');
    recordSpanError(api, span, err);
    assert.equal(exporter.getFinishedSpans().length, 0, 'the span is not ended');
    span.end();
    const [s] = exporter.getFinishedSpans();
    assert.equal(s!.attributes['error.type'], 'TypeError');
    assert.deepEqual(s!.status, { code: api.SpanStatusCode.ERROR, message: 'bad input' });
    assert.deepEqual(s!.events.map((e) => [e.name, e.attributes?.['exception.type'], e.attributes?.['exception.message']]), [['exception', 'TypeError', 'bad input']]);
  });

  it('wraps a thrown non-Error in an Error named Error, its message the value as a string', () => {
    exporter.reset();
    const span = provider.getTracer('t').startSpan('s');
    recordSpanError(api, span, 42);
    span.end();
    const [s] = exporter.getFinishedSpans();
    assert.equal(s!.attributes['error.type'], 'Error');
    assert.deepEqual(s!.status, { code: api.SpanStatusCode.ERROR, message: '42' });
    assert.equal(s!.events[0]!.attributes?.['exception.message'], '42');
  });
});
