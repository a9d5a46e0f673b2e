/**
 * Listing in pages (client-go `tools/pager`): asks for `limit` items at a time and follows the continue token until
 * the list is whole. A continue token that expires mid-way (410 Gone) starts over with one unpaginated list, as
 * client-go's `ListPager` does when its paginated list expires; any other error is thrown as is. Pages are asked for
 * one after the other; nothing is kept between calls.
 */
import { isGone } from '../client/errors.js';
import type { ListOptions } from '../client/interfaces.js';
import type { KubeList } from '../client/types.js';
import type { Logger } from '../log.js';

/** Every page of a list: the items, the list's resourceVersion, and how many pages it took. */
export interface PagedList<T> {
  items: T[];
  resourceVersion: string;
  pages: number;
}

/**
 * Lists every page (client-go's pager): `first` names the selectors, resourceVersion and page size (`limit`; unset:
 * one unpaginated list). A continue token that expires mid-way (410) starts over with one unpaginated list (and calls
 * `restarted`, if given); any other error is thrown as is.
 */
export async function listPages<T>(
  request: (opts: ListOptions) => Promise<KubeList<T>>,
  first: ListOptions,
  log: Logger,
  restarted?: () => void,
): Promise<PagedList<T>> {
  const items: T[] = [];
  let limit = first.limit;
  let resourceVersion = '';
  let cont: string | undefined;
  let pages = 0;
  for (;;) {
    let page;
    try {
      page = await request({ ...first, resourceVersion: cont ? undefined : first.resourceVersion, limit, continue: cont });
    } catch (err) {
      if (!isGone(err) || !cont) throw err;
      log.info('list continuation expired; falling back to a full list', { resourceVersion: first.resourceVersion });
      restarted?.();
      items.length = 0;
      cont = undefined;
      limit = undefined;
      continue;
    }
    pages++;
    for (const item of page.items ?? []) items.push(item);
    resourceVersion = page.metadata?.resourceVersion ?? resourceVersion;
    cont = page.metadata?.continue || undefined;
    if (!cont) return { items, resourceVersion, pages };
  }
}
