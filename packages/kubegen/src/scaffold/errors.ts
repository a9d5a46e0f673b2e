/**
 * A scaffolding request that cannot be carried out as asked: an invalid name, a folder that is not empty, a kind
 * that already exists, a project that was not made by `codegen init`. Thrown before anything is written; the CLI
 * prints the message as one line and exits 1.
 */
export class ScaffoldError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScaffoldError';
  }
}
