/** metav1.Time's wire format: RFC 3339 with second precision. */
export function formatEventTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
