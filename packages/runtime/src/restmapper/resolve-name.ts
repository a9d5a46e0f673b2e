/**
 * A resource or kind name as kubectl takes it (cli-runtime's `Builder.mappingFor`), resolved on a `MappingTable`:
 *
 * 0. a category (kubectl expands categories first): the one kind in it, else ambiguous (use `resolveCategory`);
 * 1. as a resource: `plural.version.group` when the name has two dots or more, then `resource.group` (everything
 *    after the first dot is the group, matched by prefix), then the shortcut expander (short names), then priority;
 * 2. failing that, as a kind: `Kind.version.group`, then `Kind.group` (`Kind` alone is a core kind).
 *
 * Accepted: `deployments`, `deployment`, `Deployment`, `deploy`, `deployments.apps`, `deployments.v1.apps`,
 * `Deployment.apps`, `Deployment.v1.apps`, `deploy.apps`. As in kubectl, a short name with a version
 * (`hpa.v2.autoscaling`) resolves to the preferred version of its resource: the shortcut expander drops the version.
 */
import type { GroupKind, GroupVersionKind } from '../discovery/types.js';
import type { MappingTable, WarningHandler } from './mapping-table.js';
import { suggestResource } from './suggest.js';
import { AmbiguousResourceError, isNoMatchError, NoResourceMatchError, type PartialResource, type RESTMapping } from './types.js';

/** The mapping kubectl would use for `name` (see the module comment); throws `NoResourceMatchError` when none. */
export function resolveName(t: MappingTable, name: string, warn?: WarningHandler): RESTMapping {
  // kubectl expands categories before anything else (cli-runtime's `ReplaceAliases`): `fleet` names the kinds of the
  // category `fleet` even where a kind's singular is `fleet` too. One kind: its mapping; several: ambiguous.
  const category = t.categoryNames(name);
  if (category.length === 1 && category[0] !== name) return resolveName(t, category[0]!, warn);
  if (category.length > 1) {
    throw new AmbiguousResourceError(name, category.map((n) => t.resourceFor(t.expandShortcut({ resource: n.split('.')[0]!, group: n.split('.').slice(1).join('.') }, warn))));
  }
  const dots = name.split('.');
  const firstDot = name.indexOf('.');
  const groupResource: PartialResource = firstDot < 0 ? { resource: name } : { resource: name.slice(0, firstDot), group: name.slice(firstDot + 1) };
  let ambiguity: AmbiguousResourceError | undefined;
  const kindOf = (partial: PartialResource): GroupVersionKind | undefined => {
    try {
      const r = t.resourceFor(t.expandShortcut(partial, warn));
      return { group: r.group, version: r.version, kind: r.kind };
    } catch (err) {
      if (err instanceof AmbiguousResourceError) ambiguity ??= err;
      else if (!isNoMatchError(err)) throw err;
      return undefined;
    }
  };
  let gvk: GroupVersionKind | undefined;
  if (dots.length >= 3) gvk = kindOf({ resource: dots[0]!, version: dots[1]!, group: dots.slice(2).join('.') });
  gvk ??= kindOf(groupResource);
  if (gvk) return t.restMapping({ group: gvk.group, kind: gvk.kind }, [gvk.version]);

  const groupKind: GroupKind = firstDot < 0 ? { group: '', kind: name } : { group: name.slice(firstDot + 1), kind: name.slice(0, firstDot) };
  if (dots.length >= 3) {
    const found = tryMapping(t, { group: dots.slice(2).join('.'), kind: dots[0]! }, dots[1]!);
    if (found) return found;
  }
  const found = tryMapping(t, groupKind, '');
  if (found) return found;
  if (ambiguity) throw ambiguity;
  throw new NoResourceMatchError(name, suggestResource(groupResource.resource, t.resources));
}

function tryMapping(t: MappingTable, gk: GroupKind, version: string): RESTMapping | undefined {
  if (!gk.kind) return undefined;
  try {
    return t.restMapping(gk, version ? [version] : []);
  } catch (err) {
    if (isNoMatchError(err) || err instanceof AmbiguousResourceError) return undefined;
    throw err;
  }
}
