/**
 * Release numbers (`1.21`, `3.4.10`, `v1.20.2`): parsed and compared, for choosing what a given release of
 * Kubernetes or etcd accepts or serves (envtest's flags per binary version, the release a resource version needs).
 */

/** A release number: major, minor and patch (a missing part is 0). */
export interface ReleaseVersion {
  major: number;
  minor: number;
  patch: number;
}

/**
 * `1.21`, `3.4.10`, `v1.20.2`, `v1.30.0-rc.1+abc` as a {@link ReleaseVersion} (anything after the patch is
 * ignored); `undefined` for text that does not start so.
 */
export function parseReleaseVersion(text: string): ReleaseVersion | undefined {
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?(?:[-+].*)?$/.exec(text.trim());
  return m ? { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3] ?? 0) } : undefined;
}

/** Negative when `a` is older than `b`, 0 when equal, positive when newer (major, then minor, then patch). */
export function compareReleaseVersions(a: ReleaseVersion, b: ReleaseVersion): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch;
}
