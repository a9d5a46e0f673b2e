/** Where a piece of the model came from, for error messages. */
export interface SourceLocation {
  file: string;
  /** 1-based; 0 when unknown. */
  line: number;
  column: number;
  /** JSON path inside the document, e.g. `spec.versions[0].schema.openAPIV3Schema`. */
  path?: string;
}

