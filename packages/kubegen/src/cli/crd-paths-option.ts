/**
 * `--crds <path>`, the option `validate` and `explore` share: CRD files or folders, the flag repeated or the paths
 * separated by commas; the command receives them as one list, in the order given.
 */

/** Adds one `--crds` value (maybe comma-separated) to the ones before it. */
function collectPaths(value: string, previous: string[] = []): string[] {
  return [...previous, ...value.split(',').filter(Boolean)];
}

/** The arguments of commander's `requiredOption` for `--crds`: `.requiredOption(...CRD_PATHS_OPTION)`. */
export const CRD_PATHS_OPTION = ['--crds <path>', 'a CRD file or folder; repeat the flag (or separate with commas) for more', collectPaths] as const;
