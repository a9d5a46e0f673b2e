import type { KubeObject } from '../../client/types.js';
import type { EventRecorder, EventType } from '../../events/event-recorder.js';

/** One event a {@link FakeEventRecorder} saw. */
export interface RecordedEvent {
  object: KubeObject;
  type: EventType;
  reason: string;
  message: string;
  /** The action given (events.k8s.io/v1's; the broadcaster defaults it to the reason), when one was. */
  action?: string;
}

/**
 * An in-memory recorder for unit tests (client-go `record.FakeRecorder`): `events` holds `"<type> <reason> <message>"`
 * strings in order, `recorded` the full calls. Tests may clear either array.
 */
export class FakeEventRecorder implements EventRecorder {
  readonly events: string[] = [];
  readonly recorded: RecordedEvent[] = [];

  event(obj: KubeObject, type: EventType, reason: string, message: string, action?: string): void {
    this.events.push(`${type} ${reason} ${message}`);
    this.recorded.push({ object: obj, type, reason, message, ...(action !== undefined ? { action } : {}) });
  }
}
