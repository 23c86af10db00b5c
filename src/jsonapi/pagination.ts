// One pagination helper for every paginated list: parsing, and the envelope every list answers
// with (absolute links whose brackets are percent-encoded, as TFE's are, and meta.pagination).
import { Type } from 'typebox';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export interface Page {
  number: number;
  size: number;
  offset: number;
}

const PositiveInteger = Type.String({ pattern: '^(?=.*[1-9])\\d{1,9}$', description: 'a positive integer' });

/** The page parameters, for the query schema of every paginated list. */
export const PageParams = {
  'page[number]': Type.Optional(PositiveInteger),
  'page[size]': Type.Optional(PositiveInteger),
};

export interface PageQuery {
  'page[number]'?: string;
  'page[size]'?: string;
}

/** The page asked for (the first, of 20, by default); a size above the maximum is clamped, not refused. */
export function parsePage(query: PageQuery): Page {
  const number = query['page[number]'] === undefined ? 1 : Number(query['page[number]']);
  const size = Math.min(query['page[size]'] === undefined ? DEFAULT_PAGE_SIZE : Number(query['page[size]']), MAX_PAGE_SIZE);
  return { number, size, offset: (number - 1) * size };
}

/** True when the client asked for a page; some TFE lists are unpaginated otherwise. */
export function wantsPage(query: PageQuery): boolean {
  return query['page[number]'] !== undefined || query['page[size]'] !== undefined;
}

export interface PaginationMeta {
  'current-page': number;
  'page-size': number;
  'prev-page': number | null;
  'next-page': number | null;
  'total-pages': number;
  'total-count': number;
}

export interface ListEnvelope {
  links: { self: string; first: string; prev: string | null; next: string | null; last: string };
  meta: { pagination: PaginationMeta };
}

/**
 * `url` is the absolute URL of the request; its other query parameters (filters, sort) are kept
 * in every link so that following `next` gives the next page of the same list.
 */
export function envelope(url: URL, page: Page, totalCount: number): ListEnvelope {
  const totalPages = Math.max(1, Math.ceil(totalCount / page.size));
  // The links differ only in the page number: the query is encoded once, in the two parts on
  // either side of that number (URLSearchParams percent-encodes the brackets, as TFE's links do).
  const params = new URLSearchParams(url.search);
  params.set('page[number]', '1');
  params.set('page[size]', String(page.size));
  const entries = [...params];
  const at = entries.findIndex(([key]) => key === 'page[number]');
  const before = new URLSearchParams(entries.slice(0, at)).toString();
  const after = new URLSearchParams(entries.slice(at + 1)).toString();
  const head = `${url.origin}${url.pathname}?${before ? `${before}&` : ''}page%5Bnumber%5D=`;
  const tail = after ? `&${after}` : '';
  const link = (n: number) => `${head}${n}${tail}`;
  const prev = page.number > 1 ? Math.min(page.number - 1, totalPages) : null;
  const next = page.number < totalPages ? page.number + 1 : null;
  return {
    links: {
      self: link(page.number),
      first: link(1),
      prev: prev === null ? null : link(prev),
      next: next === null ? null : link(next),
      last: link(totalPages),
    },
    meta: {
      pagination: {
        'current-page': page.number,
        'page-size': page.size,
        'prev-page': prev,
        'next-page': next,
        'total-pages': totalPages,
        'total-count': totalCount,
      },
    },
  };
}
