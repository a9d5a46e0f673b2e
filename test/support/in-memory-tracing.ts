/**
 * The tracing set-up of the unit tests that read spans back: the SDK's in-memory exporter behind a simple span
 * processor, and the async-hooks context manager (spans nest) registered before the enclosing `describe`'s tests;
 * after them the runtime's tracing is turned off, the provider shut down and the globals undone.
 */
import { after, before } from 'node:test';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { disableTracing } from '@kubegen/runtime/internal/tracing/otel.js';

/** Call inside a `describe`: its exporter and provider (pass the provider to `enableTracing`). */
export function inMemoryTracing(): { exporter: InMemorySpanExporter; provider: BasicTracerProvider } {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  before(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  });
  after(async () => {
    disableTracing();
    await provider.shutdown();
    context.disable();
    trace.disable();
  });
  return { exporter, provider };
}
